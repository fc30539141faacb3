-- Passage text is stored packed (a BLOB of raw deflate) from this release on; rows written
-- before stay TEXT. Both read through prioris_text(), a function every connection of
-- Prioris registers (prioris.engines.sqlite.textpack): the FTS5 index reads its content
-- through the view, and the title trigger hands FTS5 the text it indexed.
DROP VIEW chunk_fts_source;
CREATE VIEW chunk_fts_source AS
    SELECT c.id AS id, prioris_text(c.text) AS text, w.title AS title, c.heading AS heading
    FROM chunks c JOIN works w ON w.id = c.work_id;

DROP TRIGGER works_title_fts;
CREATE TRIGGER works_title_fts AFTER UPDATE OF title ON works
WHEN old.title IS NOT new.title
BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title, heading)
        SELECT 'delete', id, prioris_text(text), old.title, heading FROM chunks
        WHERE work_id = old.id;
    INSERT INTO chunks_fts(rowid, text, title, heading)
        SELECT id, prioris_text(text), new.title, heading FROM chunks WHERE work_id = new.id;
END;
