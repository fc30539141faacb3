-- Accounts of a shared library (issue 24): a name, a role, and only a salted scrypt hash
-- of the account's token. ``token_id`` is the token's public part (``<token_id>.<secret>``)
-- so a presented token finds its account without trying every hash.
CREATE TABLE accounts (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
    token_id TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL,
    salt TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
-- Every write made through a remote interface: who, what (action), on what (target), when.
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    account TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log(at);
