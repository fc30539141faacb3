-- The work of a ranked chunk, read without visiting the heap: the BM25 ranking names a few
-- hundred chunk ids (hybrid asks for 400) and reads each one's work. By primary key each
-- is a random heap page holding the passage's text: 52-125 ms for 400 ids at a million
-- chunks. This index answers by an index-only scan (43 MB at a million): 5-12 ms.
CREATE INDEX IF NOT EXISTS chunks_id_work ON chunks (id) INCLUDE (work_id);
