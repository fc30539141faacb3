-- BM25 postings of our own (issue 24, "Speed on PostgreSQL"): a plain query is ranked in
-- numpy from per-term arrays (engines/postgres/postings.py) instead of unnesting the
-- tsvector of every chunk that matches any of its words.
--
-- bm25_postings: one row per lexeme of chunks.tsv, as of the last build.
--   ids      the chunk ids holding the lexeme (any weight), strictly increasing, int32
--            BIG-endian (int4send's byte order);
--   tf       per chunk, 2 x (B positions) + (C positions) = 2 x passage + heading
--            (heading weighs 0.5), uint8 when every value fits, else uint16 big-endian
--            (the width is len(tf) / len(ids));
--   title_at positions in ids of the chunks with the lexeme in the title (A), int32 BE;
--   title_tf their A counts, uint16 BE (title_weight is a query-time setting).
-- The layout is SQLite's sidecar (engines/sqlite/postings.py) in the other byte order, so
-- one numpy core (search/bm25_arrays.py) scores both. STORAGE EXTERNAL: not compressed,
-- a row is read in one copy.
CREATE TABLE bm25_postings (
    term TEXT COLLATE "C" PRIMARY KEY,
    df INTEGER NOT NULL,
    ids BYTEA NOT NULL,
    tf BYTEA NOT NULL,
    title_at BYTEA NOT NULL,
    title_tf BYTEA NOT NULL
);
ALTER TABLE bm25_postings ALTER COLUMN ids SET STORAGE EXTERNAL,
    ALTER COLUMN tf SET STORAGE EXTERNAL, ALTER COLUMN title_at SET STORAGE EXTERNAL,
    ALTER COLUMN title_tf SET STORAGE EXTERNAL;

-- bm25_meta: the build's figures (build id, rows, tokens = sum of tsv_length, lengths:
-- tsv_length by chunk id as int32 BE with -1 for ids that held no chunk, built_at,
-- seconds) and 'tracking', present once a first build asked the trigger below to record
-- changes (a library never built pays nothing).
CREATE TABLE bm25_meta (
    key TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
ALTER TABLE bm25_meta ALTER COLUMN value SET STORAGE EXTERNAL;

-- bm25_changes: the chunk ids inserted, deleted or edited since the build's snapshot (old
-- and new id; duplicates allowed: no key, so two writers never wait on one row). A build
-- deletes the rows its REPEATABLE READ snapshot sees, so what remains is exactly what
-- changed after the snapshot the postings describe.
CREATE TABLE bm25_changes (
    chunk_id BIGINT NOT NULL
);

CREATE FUNCTION prioris_bm25_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM bm25_meta WHERE key = 'tracking') THEN
        IF TG_OP <> 'INSERT' THEN
            INSERT INTO bm25_changes VALUES (OLD.id);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
            INSERT INTO bm25_changes VALUES (NEW.id);
        END IF;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER chunks_bm25 AFTER INSERT OR DELETE OR UPDATE OF id, title, text, heading
    ON chunks FOR EACH ROW EXECUTE FUNCTION prioris_bm25_change();
