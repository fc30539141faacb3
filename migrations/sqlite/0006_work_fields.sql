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
