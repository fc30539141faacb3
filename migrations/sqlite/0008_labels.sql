-- Collections and tags of works, as a reference manager keeps them (Zotero's nested
-- collections and tags, a BibTeX file's keywords). One row per (work, source, label):
-- ``source`` is where the label came from ('zotero', 'bibtex', 'ris', ...), so a re-sync
-- of one source replaces its own labels and leaves the others'. A collection is its
-- full path, the segments joined by ' / ' ('Thesis / Chapter 2'). Labels are stored as
-- given; matching is case-insensitive, done by prioris.storage.labels on the few distinct
-- paths and tags (Unicode case folding, the same on every engine, which SQLite's ASCII
-- lower() and NOCASE are not), then looked up exactly through these indexes.
CREATE TABLE work_collections (
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (work_id, source, path)
);
CREATE INDEX work_collections_path ON work_collections(path, work_id);

CREATE TABLE work_tags (
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (work_id, source, tag)
);
CREATE INDEX work_tags_tag ON work_tags(tag, work_id);
