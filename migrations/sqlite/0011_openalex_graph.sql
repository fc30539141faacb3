-- OpenAlex answers kept in the library, and the requests made each day.
--
-- ``openalex_cache``: one row per request (``key`` is the request's path and query, the
-- API key left out) with the response body and when it was fetched; a row younger than
-- PRIORIS_MCP_OPENALEX_CACHE_DAYS answers the same request again without the network.
-- ``openalex_requests``: how many requests went out on each UTC day (every process of
-- the library counts here), against PRIORIS_MCP_OPENALEX_DAILY_BUDGET.
CREATE TABLE openalex_cache (
    key TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    fetched_at TEXT NOT NULL
);
CREATE TABLE openalex_requests (
    day TEXT PRIMARY KEY,
    count INTEGER NOT NULL DEFAULT 0
);
