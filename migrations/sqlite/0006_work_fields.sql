-- The fields a citation needs beside title, authors, year and venue, and where each field of
-- the merged record came from. ``type`` keeps the work's type as the provider or the user
-- names it (article, proceedings-article, book, dissertation, report, preprint, ...);
-- exports map it to BibTeX, RIS and CSL types. ``keywords`` is a JSON list; ``origins`` a
-- JSON object {field: origin} where origin is 'user', a reference manager ('zotero',
-- 'bibtex', 'ris'), a provider ('openalex', 'europepmc', 'arxiv'), 'pdf_metadata' (the
-- PDF's Info dictionary or XMP) or 'printed' (read from the first page).
ALTER TABLE works ADD COLUMN volume TEXT;
ALTER TABLE works ADD COLUMN issue TEXT;
ALTER TABLE works ADD COLUMN pages TEXT;
ALTER TABLE works ADD COLUMN publisher TEXT;
ALTER TABLE works ADD COLUMN keywords TEXT NOT NULL DEFAULT '[]';
ALTER TABLE works ADD COLUMN origins TEXT NOT NULL DEFAULT '{}';

-- The user's corrections, one row per edit, newest last: ``changes`` is the patch as given
-- ({field: value}, null clears); ``before`` what undo restores (the 'user' record, the
-- merged fields and origins before the edit, the aliases the edit added and removed).
-- ``prioris edit ID --undo`` takes the newest row back and deletes it.
CREATE TABLE work_edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    edited_at TEXT NOT NULL,
    changes TEXT NOT NULL DEFAULT '{}',
    before TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX work_edits_work ON work_edits(work_id, id);
