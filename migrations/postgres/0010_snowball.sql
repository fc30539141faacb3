-- Dismissed snowball candidates: see the SQLite migration 0012_snowball.sql.
CREATE TABLE snowball_dismissed (
    key TEXT COLLATE "C" PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    dismissed_at TEXT NOT NULL
);
