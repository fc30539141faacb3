"""OpenAlex answers cached in the library, and the day's request count (``openalex_cache``,
``openalex_requests``).

OpenAlex needs an API key on every request and charges past a free daily allowance, list
calls more than single works. So every answer is kept with its time and reused while it is
younger than the cache age, and every request that goes out is counted per UTC day in the
library itself: every process that opens the library (the CLI, the MCP server, the web
app) shares one count, and a budget is checked against it before a request is made.
"""

from __future__ import annotations

from typing import Any


def cached(conn: Any, key: str, newer_than: str) -> str | None:
    """The body cached for ``key`` if it was fetched at or after ``newer_than`` (ISO)."""
    row = conn.execute(
        "SELECT body FROM openalex_cache WHERE key = ? AND fetched_at >= ?", (key, newer_than)
    ).fetchone()
    return None if row is None else str(row[0])


def store(conn: Any, key: str, body: str, fetched_at: str) -> None:
    conn.execute(
        "INSERT INTO openalex_cache(key, body, fetched_at) VALUES (?, ?, ?) "
        "ON CONFLICT(key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at",
        (key, body, fetched_at),
    )


def requests_on(conn: Any, day: str) -> int:
    row = conn.execute("SELECT count FROM openalex_requests WHERE day = ?", (day,)).fetchone()
    return 0 if row is None else int(row[0])


def take_request(conn: Any, day: str, budget: int) -> bool:
    """Count one request of ``day`` if the budget allows it (in one statement, so two
    processes cannot both take the last one); False when the budget is spent."""
    conn.execute(
        "INSERT INTO openalex_requests(day, count) VALUES (?, 0) ON CONFLICT(day) DO NOTHING",
        (day,),
    )
    cur = conn.execute(
        "UPDATE openalex_requests SET count = count + 1 WHERE day = ? AND count < ?",
        (day, budget),
    )
    return bool(cur.rowcount)


COPY_BATCH = 500


def copy_rows(src: Any, dst: Any) -> int:
    """Copy the day counts and the cached answers of ``src`` into ``dst`` (``migrate-to``,
    inside its transaction); returns the cached answers copied.

    The day counts come along so a copied library does not start today's budget afresh;
    the cache too, since each answer was a paid request (an entry the target already has
    is kept, so a resumed copy does not rewrite it). Answers are read in batches: the
    cache can hold many pages.
    """
    days = [tuple(r) for r in src.execute("SELECT day, count FROM openalex_requests")]
    dst.executemany(
        "INSERT INTO openalex_requests(day, count) VALUES (?, ?) "
        "ON CONFLICT(day) DO UPDATE SET count = excluded.count",
        days,
    )
    copied = 0
    cursor = src.execute("SELECT key, body, fetched_at FROM openalex_cache ORDER BY key")
    while True:
        rows = [tuple(r) for r in cursor.fetchmany(COPY_BATCH)]
        if not rows:
            return copied
        dst.executemany(
            "INSERT INTO openalex_cache(key, body, fetched_at) VALUES (?, ?, ?) "
            "ON CONFLICT(key) DO NOTHING",
            rows,
        )
        copied += len(rows)


LOOKUP_BATCH = 500
"""Keys in one ``IN (...)`` lookup (well under SQLite's and libpq's parameter limits)."""


def cached_many(conn: Any, keys: list[str], newer_than: str) -> dict[str, str]:
    """The bodies cached for ``keys`` fetched at or after ``newer_than``, by key (one
    query a batch of keys rather than one a key: a snowball asks thousands)."""
    found: dict[str, str] = {}
    for start in range(0, len(keys), LOOKUP_BATCH):
        batch = keys[start : start + LOOKUP_BATCH]
        marks = ", ".join("?" for _ in batch)
        rows = conn.execute(
            f"SELECT key, body FROM openalex_cache WHERE key IN ({marks}) AND fetched_at >= ?",
            (*batch, newer_than),
        )
        found.update((str(r[0]), str(r[1])) for r in rows)
    return found


def store_many(conn: Any, rows: list[tuple[str, str]], fetched_at: str) -> None:
    """Keep several ``(key, body)`` answers fetched at ``fetched_at`` (one statement)."""
    conn.executemany(
        "INSERT INTO openalex_cache(key, body, fetched_at) VALUES (?, ?, ?) "
        "ON CONFLICT(key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at",
        [(key, body, fetched_at) for key, body in rows],
    )


def account_requests_on(conn: Any, day: str, account: str) -> int:
    row = conn.execute(
        "SELECT count FROM openalex_account_requests WHERE day = ? AND account = ?",
        (day, account),
    ).fetchone()
    return 0 if row is None else int(row[0])


def take_account_request(conn: Any, day: str, account: str, budget: int, share: int) -> str:
    """Count one request of ``day`` for the library (``budget``) and ``account`` (its
    ``share``), both or neither, inside the caller's write transaction: ``"ok"``, or
    ``"library"`` / ``"account"`` for the allowance that is spent."""
    if account_requests_on(conn, day, account) >= share:
        return "account"
    if not take_request(conn, day, budget):
        return "library"
    conn.execute(
        "INSERT INTO openalex_account_requests(day, account, count) VALUES (?, ?, 1) "
        "ON CONFLICT(day, account) DO UPDATE SET count = openalex_account_requests.count + 1",
        (day, account),
    )
    return "ok"


PRUNE_BATCH = 500


def prune(conn: Any, older_than: str, max_bytes: int, keep_bytes: int) -> dict[str, int]:
    """Drop the answers fetched before ``older_than`` (ISO; they are never read again),
    then, while the bodies left pass ``max_bytes``, the oldest down to ``keep_bytes``;
    inside the caller's write transaction. Returns ``{expired, evicted, entries, bytes}``
    (what is left)."""
    from prioris.storage.backend import index_of

    size = index_of(conn).byte_length("body")
    expired = conn.execute("DELETE FROM openalex_cache WHERE fetched_at < ?", (older_than,))
    row = conn.execute(f"SELECT count(*), coalesce(sum({size}), 0) FROM openalex_cache").fetchone()
    entries, total = int(row[0]), int(row[1])
    evicted = 0
    if total > max_bytes:
        cursor = conn.execute(f"SELECT key, {size} FROM openalex_cache ORDER BY fetched_at, key")
        doomed: list[str] = []
        while total > keep_bytes and (rows := cursor.fetchmany(PRUNE_BATCH)):
            for key, length in rows:
                if total <= keep_bytes:
                    break
                doomed.append(str(key))
                total -= int(length)
        for start in range(0, len(doomed), PRUNE_BATCH):
            batch = doomed[start : start + PRUNE_BATCH]
            marks = ", ".join("?" for _ in batch)
            conn.execute(f"DELETE FROM openalex_cache WHERE key IN ({marks})", batch)
        evicted, entries = len(doomed), entries - len(doomed)
    return {
        "expired": max(int(expired.rowcount), 0),
        "evicted": evicted,
        "entries": entries,
        "bytes": total,
    }
