-- OpenAlex answers kept in the library and the requests made each day: see the SQLite
-- migration 0011_openalex_graph.sql.
CREATE TABLE openalex_cache (
    key TEXT COLLATE "C" PRIMARY KEY,
    body TEXT NOT NULL,
    fetched_at TEXT NOT NULL
);
CREATE TABLE openalex_requests (
    day TEXT PRIMARY KEY,
    count INTEGER NOT NULL DEFAULT 0
);
