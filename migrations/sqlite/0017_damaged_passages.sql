-- A library file someone hands over may hold passages that cannot be read (damaged, a
-- deflate bomb, a format of a newer release): prioris_text() reads them as '' and
-- prioris_readable() says which they are. A new title re-indexes only the readable
-- passages of the work: handing FTS5 '' in place of the text it indexed would corrupt
-- the index. Deleting a damaged passage rebuilds the index from its content instead
-- (prioris.engines.sqlite.index.SqliteChunkIndex.delete_rows).
DROP TRIGGER works_title_fts;
CREATE TRIGGER works_title_fts AFTER UPDATE OF title ON works
WHEN old.title IS NOT new.title
BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title, heading)
        SELECT 'delete', id, prioris_text(text), old.title, heading FROM chunks
        WHERE work_id = old.id AND prioris_readable(text);
    INSERT INTO chunks_fts(rowid, text, title, heading)
        SELECT id, prioris_text(text), new.title, heading FROM chunks
        WHERE work_id = new.id AND prioris_readable(text);
END;
