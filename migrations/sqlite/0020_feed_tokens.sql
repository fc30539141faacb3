-- Feed tokens (issue 37): a feed reader cannot log in, so an account's alert feeds are
-- read with a token in the feed's URL (/alerts/NAME.atom?token=...). Each account may
-- hold several (one per reader or device), each revocable alone. A token is
-- ``<token_id>.<secret>``: ``token_id`` is its public name (listed, revoked by it) and
-- only the SHA-256 of the secret is kept (256 random bits: a slow hash would add nothing).
-- A token reads feeds only, as its account, and stops working when either is revoked.
CREATE TABLE feed_tokens (
    token_id TEXT PRIMARY KEY,
    account TEXT NOT NULL REFERENCES accounts(name),
    token_hash TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX feed_tokens_account ON feed_tokens(account);
