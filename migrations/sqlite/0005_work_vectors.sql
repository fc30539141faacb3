-- One vector per work (its title and abstract as one text) beside its chunks' vectors:
-- vector search scores a work by 0.3 x this vector's cosine + 0.7 x its best chunk's,
-- which won every split of SciFact and NFCorpus (docs/benchmarks.md, section 9). Rows are
-- read by work id only (the works a chunk KNN found are rescored), so there is no second
-- vector index. ``model`` is the embedding model that made the vector (a vector of another
-- model is ignored until ``prioris reindex`` replaces it).
CREATE TABLE work_vectors (
    work_id TEXT PRIMARY KEY REFERENCES works(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    embedding BLOB NOT NULL
);

-- A new title or abstract makes the vector stale: it is dropped in the same statement, the
-- work is scored by its chunks alone until ingest or reindex embeds the new text.
CREATE TRIGGER works_vector_stale AFTER UPDATE OF title, abstract ON works
WHEN old.title IS NOT new.title OR old.abstract IS NOT new.abstract
BEGIN
    DELETE FROM work_vectors WHERE work_id = new.id;
END;

-- A library that already has works gets their vectors from `prioris reindex`; until its
-- first full pass, opening the library says so (one indexed read, not a count).
INSERT INTO index_state(key, value)
    SELECT 'work_vectors_pending', '1' WHERE EXISTS (SELECT 1 FROM works);
