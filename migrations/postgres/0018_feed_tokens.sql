-- Feed tokens: see the SQLite migration 0020_feed_tokens.sql.
CREATE TABLE feed_tokens (
    token_id TEXT COLLATE "C" PRIMARY KEY,
    account TEXT COLLATE "C" NOT NULL REFERENCES accounts(name),
    token_hash TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX feed_tokens_account ON feed_tokens(account);
