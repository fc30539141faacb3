-- Each work's reference list and the local citation graph: see the SQLite migration
-- 0010_references.sql.
CREATE TABLE work_references (
    id BIGSERIAL PRIMARY KEY,
    work_id TEXT COLLATE "C" NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    raw TEXT NOT NULL,
    authors TEXT NOT NULL DEFAULT '[]',
    title TEXT,
    year INTEGER,
    venue TEXT,
    doi TEXT,
    arxiv TEXT,
    url TEXT,
    cited_work_id TEXT COLLATE "C" REFERENCES works(id) ON DELETE SET NULL,
    link_method TEXT,
    link_score DOUBLE PRECISION,
    UNIQUE (work_id, ordinal)
);
CREATE INDEX work_references_cited ON work_references(cited_work_id);
CREATE INDEX work_references_doi ON work_references(doi);
CREATE INDEX work_references_arxiv ON work_references(arxiv);
