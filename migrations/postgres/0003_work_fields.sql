-- Citation fields and per-field origins: see the SQLite migration 0006_work_fields.sql.
ALTER TABLE works ADD COLUMN volume TEXT;
ALTER TABLE works ADD COLUMN issue TEXT;
ALTER TABLE works ADD COLUMN pages TEXT;
ALTER TABLE works ADD COLUMN publisher TEXT;
ALTER TABLE works ADD COLUMN keywords TEXT NOT NULL DEFAULT '[]';
ALTER TABLE works ADD COLUMN origins TEXT NOT NULL DEFAULT '{}';

-- The user's corrections and what undo restores: see the SQLite migration 0006.
CREATE TABLE work_edits (
    id BIGSERIAL PRIMARY KEY,
    work_id TEXT COLLATE "C" NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    edited_at TEXT NOT NULL,
    changes TEXT NOT NULL DEFAULT '{}',
    before TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX work_edits_work ON work_edits(work_id, id);
