-- Collections made in Prioris: see the SQLite migration 0016_user_collections.sql.
CREATE TABLE user_collections (
    path TEXT COLLATE "C" PRIMARY KEY,
    created_at TEXT NOT NULL
);
