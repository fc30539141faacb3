-- Counts the times passages already in the FTS5 index were indexed again in place (a
-- work's new title re-indexes its passages under the same ids). The BM25 postings sidecar
-- serves a library that has only grown since it was built by indexing the passages added
-- since in memory (prioris.engines.sqlite.postings_rank); a rewrite in place would make
-- its postings of those passages wrong, so it is counted, and the sidecar records the
-- count it was built at. Deletions need no count: they lower FTS5's own row count.
INSERT INTO index_state(key, value) VALUES ('fts_rewrites', '0')
    ON CONFLICT(key) DO NOTHING;

CREATE TRIGGER works_title_fts_rewrites AFTER UPDATE OF title ON works
WHEN old.title IS NOT new.title
BEGIN
    UPDATE index_state SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
        WHERE key = 'fts_rewrites';
END;
