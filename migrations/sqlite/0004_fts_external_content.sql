-- The FTS5 index reads passage text from the chunks table (external content) instead of
-- keeping a second copy of every passage: the text is stored once. Titles come from works
-- through a view; BM25 needs neither (it reads the index and its column sizes).
CREATE VIEW chunk_fts_source AS
    SELECT c.id AS id, c.text AS text, w.title AS title, c.heading AS heading
    FROM chunks c JOIN works w ON w.id = c.work_id;

DROP TABLE chunks_fts;

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, title, heading,
    content = 'chunk_fts_source', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');

-- An external-content index must be told what it indexed when a row leaves it, so a
-- work's new title is re-indexed in its chunks' rows in the same transaction.
CREATE TRIGGER works_title_fts AFTER UPDATE OF title ON works
WHEN old.title IS NOT new.title
BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title, heading)
        SELECT 'delete', id, text, old.title, heading FROM chunks WHERE work_id = old.id;
    INSERT INTO chunks_fts(rowid, text, title, heading)
        SELECT id, text, new.title, heading FROM chunks WHERE work_id = new.id;
END;
