-- As SQLite migration 0017_openalex_accounts.sql: OpenAlex's requests each account took each UTC day (accounts mode: a reader's share of
-- the library's budget, PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET), and the cache's
-- answers by age, oldest first: what its size bound and `reindex --openalex-cache` drop.
CREATE TABLE openalex_account_requests (
    day TEXT NOT NULL,
    account TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, account)
);
CREATE INDEX openalex_cache_fetched ON openalex_cache(fetched_at);
