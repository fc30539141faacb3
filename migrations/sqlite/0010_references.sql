-- Each work's reference list, read from its text (prioris.ingest.references), one row per
-- entry in printed order, and the library work an entry is when it is one (the local
-- citation graph): ``cited_work_id`` with how it was linked (``doi``, ``arxiv``, ``title``:
-- a fuzzy title + year + first author match) and the match's score. ``raw`` is the entry
-- as printed (bounded); the parsed fields may be NULL.
CREATE TABLE work_references (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    raw TEXT NOT NULL,
    authors TEXT NOT NULL DEFAULT '[]',
    title TEXT,
    year INTEGER,
    venue TEXT,
    doi TEXT,
    arxiv TEXT,
    url TEXT,
    cited_work_id TEXT REFERENCES works(id) ON DELETE SET NULL,
    link_method TEXT,
    link_score REAL,
    UNIQUE (work_id, ordinal)
);
CREATE INDEX work_references_cited ON work_references(cited_work_id);
CREATE INDEX work_references_doi ON work_references(doi);
CREATE INDEX work_references_arxiv ON work_references(arxiv);
