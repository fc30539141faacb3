-- Citation fields and per-field origins: see the SQLite migration 0006_work_fields.sql.
ALTER TABLE works ADD COLUMN volume TEXT;
ALTER TABLE works ADD COLUMN issue TEXT;
ALTER TABLE works ADD COLUMN pages TEXT;
ALTER TABLE works ADD COLUMN publisher TEXT;
ALTER TABLE works ADD COLUMN keywords TEXT NOT NULL DEFAULT '[]';
ALTER TABLE works ADD COLUMN origins TEXT NOT NULL DEFAULT '{}';
