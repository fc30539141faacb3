-- One vector per work (title + abstract), read by work id only: see the SQLite migration
-- 0005_work_vectors.sql. float32 bytes, as SQLite keeps them (no pgvector index needed).
CREATE TABLE work_vectors (
    work_id TEXT COLLATE "C" PRIMARY KEY REFERENCES works(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    embedding BYTEA NOT NULL
);

CREATE FUNCTION prioris_work_vector_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM work_vectors WHERE work_id = NEW.id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER works_vector_stale AFTER UPDATE OF title, abstract ON works
    FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title
                       OR OLD.abstract IS DISTINCT FROM NEW.abstract)
    EXECUTE FUNCTION prioris_work_vector_stale();

-- A library that already has works gets their vectors from `prioris reindex`; until its
-- first full pass, opening the library says so (one indexed read, not a count).
INSERT INTO index_state(key, value)
    SELECT 'work_vectors_pending', '1' WHERE EXISTS (SELECT 1 FROM works);
