-- The researcher's notes and highlights, and what each sync last saw: see the SQLite
-- migration 0009_refsync.sql.
CREATE TABLE work_notes (
    id BIGSERIAL PRIMARY KEY,
    work_id TEXT COLLATE "C" NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    note_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL DEFAULT '',
    comment TEXT NOT NULL DEFAULT '',
    color TEXT NOT NULL DEFAULT '',
    page_label TEXT NOT NULL DEFAULT '',
    page INTEGER,
    UNIQUE (work_id, source, note_key)
);
CREATE INDEX work_notes_work ON work_notes(work_id);

CREATE TABLE refsync_items (
    scope TEXT NOT NULL,
    item_key TEXT NOT NULL,
    work_id TEXT COLLATE "C",
    fingerprint TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '{}',
    synced_at TEXT NOT NULL,
    PRIMARY KEY (scope, item_key)
);
CREATE INDEX refsync_items_work ON refsync_items(work_id);
