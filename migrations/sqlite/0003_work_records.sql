-- What each source said about a work, kept side by side: the header a PDF printed
-- ('printed') and each provider's record ('arxiv', 'openalex', 'europepmc'). The works
-- row holds the merged record; these rows keep the evidence it was merged from.
CREATE TABLE work_records (
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    origin TEXT NOT NULL,
    record TEXT NOT NULL DEFAULT '{}',
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (work_id, origin)
);
