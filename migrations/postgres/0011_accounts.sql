-- Accounts and the audit log: see the SQLite migration 0013_accounts.sql.
CREATE TABLE accounts (
    name TEXT COLLATE "C" PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
    token_id TEXT COLLATE "C" NOT NULL UNIQUE,
    token_hash TEXT NOT NULL,
    salt TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE audit_log (
    id BIGSERIAL PRIMARY KEY,
    at TEXT NOT NULL,
    account TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log(at);
