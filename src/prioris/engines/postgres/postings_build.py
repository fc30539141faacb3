"""Building PostgreSQL's BM25 postings table, and when a searching process builds it.

:func:`build` rewrites ``bm25_postings`` and ``bm25_meta`` from the ``chunks`` table in one
REPEATABLE READ transaction (the grouping done by PostgreSQL, an advisory lock so that two
processes never build at once); :class:`BuildSchedule` is the part of
:class:`~prioris.engines.postgres.postings.PostgresPostings` that decides when a searching
process builds (the first build, a rebuild once the changes grow, never more often than
the last build took) and runs it in a background thread. Separate from the ranking because
a build writes and a query only reads: the two share nothing but the table's layout.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prioris.engines.postgres.connection import WRITE_LOCK_KEY

__all__ = ["BuildResult", "BuildSchedule", "build"]

BUILD_LOCK_KEY = 0x50524942  # "PRIB": one postings build at a time, across processes
FAILED_BUILD_PAUSE = 600.0  # seconds before a build that raised is tried again
MAX_ID = (1 << 31) - 1  # ids are stored as int32
BUILD_WORK_MEM = "256MB"  # the server's sort memory for a build (it spills to disk past it)
# the name of the module these messages were logged from before it was split
log = logging.getLogger("prioris.engines.postgres.postings")

_TERMS_SQL = """
INSERT INTO bm25_postings (term, df, ids, tf, title_at, title_tf)
SELECT lexeme, count(*),
    string_agg(int4send(id::int4), '' ORDER BY id),
    CASE WHEN max(tf) <= 255
        THEN string_agg(substring(int2send(tf::int2) FROM 2), '' ORDER BY id)
        ELSE string_agg(int2send(tf::int2), '' ORDER BY id) END,
    coalesce(string_agg(int4send((n - 1)::int4), '' ORDER BY id) FILTER (WHERE a > 0), ''),
    coalesce(string_agg(int2send(least(a, 32767)::int2), '' ORDER BY id) FILTER (WHERE a > 0),
        '')
FROM (
    SELECT u.lexeme, c.id,
        2 * cardinality(array_positions(u.weights, 'B'))
            + cardinality(array_positions(u.weights, 'C')) AS tf,
        cardinality(array_positions(u.weights, 'A')) AS a,
        row_number() OVER (PARTITION BY u.lexeme ORDER BY c.id) AS n
    FROM chunks c, unnest(c.tsv) u
) p
GROUP BY lexeme
"""

_LENGTHS_SQL = (
    "SELECT string_agg(int4send(coalesce(c.tsv_length, -1)), '' ORDER BY g.i) "
    "FROM generate_series(0, %s::bigint) g(i) LEFT JOIN chunks c ON c.id = g.i"
)


@dataclass(frozen=True)
class BuildResult:
    build_id: str
    terms: int
    pairs: int
    rows: int
    seconds: float


def build(raw: Any, stop: threading.Event | None = None) -> BuildResult | None:
    """Rebuild the postings of the library behind ``raw`` (a psycopg connection in
    autocommit mode, this build's own), or None when another process is building, the
    chunk ids do not fit int32, or ``stop`` was set before the build began."""
    started = time.perf_counter()
    tracking = raw.execute("SELECT 1 FROM bm25_meta WHERE key = 'tracking'").fetchone()
    if tracking is None:
        # under the writers' lock: every write committed after this one records its chunks
        with raw.transaction():
            raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))
            raw.execute(
                "INSERT INTO bm25_meta VALUES ('tracking', '1') ON CONFLICT (key) DO NOTHING"
            )
    if not raw.execute("SELECT pg_try_advisory_lock(%s)", (BUILD_LOCK_KEY,)).fetchone()[0]:
        return None
    try:
        if stop is not None and stop.is_set():
            return None
        raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")  # the snapshot: after the lock
        try:
            raw.execute("SET LOCAL statement_timeout = 0")
            # the build's one sort of (lexeme, chunk) pairs, in the server's memory
            raw.execute(f"SET LOCAL work_mem = '{BUILD_WORK_MEM}'")
            rows, tokens, last = raw.execute(
                "SELECT count(*), coalesce(sum(tsv_length), 0), coalesce(max(id), -1) FROM chunks"
            ).fetchone()
            if last > MAX_ID - 1 or raw.execute("SELECT min(id) < 0 FROM chunks").fetchone()[0]:
                raw.execute("ROLLBACK")
                return None
            raw.execute("DELETE FROM bm25_postings")
            raw.execute(_TERMS_SQL)
            terms, pairs = raw.execute(
                "SELECT count(*), coalesce(sum(df), 0) FROM bm25_postings"
            ).fetchone()
            lengths = raw.execute(_LENGTHS_SQL, (int(last),)).fetchone()[0] or b""
            build_id = uuid.uuid4().hex
            seconds = time.perf_counter() - started
            meta = {
                "build": build_id.encode(),
                "rows": str(int(rows)).encode(),
                "tokens": str(int(tokens)).encode(),
                "lengths": bytes(lengths),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()).encode(),
                "seconds": f"{seconds:.3f}".encode(),
            }
            raw.execute("DELETE FROM bm25_meta WHERE key <> 'tracking'")
            with raw.cursor() as cursor:
                cursor.executemany("INSERT INTO bm25_meta VALUES (%s, %s)", list(meta.items()))
            raw.execute("DELETE FROM bm25_changes")  # the rows this snapshot sees, only
            raw.execute("COMMIT")
        except BaseException:
            raw.execute("ROLLBACK")
            raise
    finally:
        raw.execute("SELECT pg_advisory_unlock(%s)", (BUILD_LOCK_KEY,))
    return BuildResult(build_id, int(terms), int(pairs), int(rows), time.perf_counter() - started)


class BuildSchedule:
    """When and where a :class:`~prioris.engines.postgres.postings.PostgresPostings`
    builds: a mixin over the attributes its ``__init__`` sets."""

    _connect: Callable[[], Any]
    min_rows: int
    _background: bool
    _building: threading.Lock
    _stop: threading.Event
    _next_build: float
    _queries: int
    _warned: bool
    last_build: BuildResult | None

    def _maybe_first_build(self, raw: Any) -> None:
        """No build yet: one starts (from a process's second query on) when the library
        has ``min_rows`` chunks by the planner's estimate (a count would scan)."""
        if self._queries < 2 or time.monotonic() < self._next_build:
            return
        estimate = raw.execute(
            "SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass"
        ).fetchone()[0]
        if estimate is None or estimate < 0:
            estimate = raw.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if estimate >= self.min_rows:
            self._refresh()
        else:
            self._next_build = time.monotonic() + 60.0  # look again in a minute

    def _refresh(self) -> None:
        if time.monotonic() < self._next_build or not self._building.acquire(blocking=False):
            return
        if self._background:
            threading.Thread(target=self._build, daemon=True, name="prioris-pg-postings").start()
        else:
            self._build()

    def _build(self) -> None:
        started = time.monotonic()
        pause = 0.0
        try:
            raw = self._connect()
            try:
                result = build(raw, self._stop)
                if result is not None:
                    self.last_build = result
                    self._warned = False
            finally:
                raw.close()
        except Exception as exc:  # SQL keeps answering; a later query retries
            log.warning("BM25 postings not built (%s): SQL answers meanwhile", exc)
            pause = FAILED_BUILD_PAUSE
        finally:
            self._next_build = time.monotonic() + max(pause, time.monotonic() - started)
            self._building.release()

    def build_now(self) -> BuildResult | None:
        """Build in this thread (``prioris reindex --postings``, tests, benchmarks)."""
        with self._building:
            raw = self._connect()
            try:
                result = build(raw, self._stop)
            finally:
                raw.close()
        if result is not None:
            self.last_build = result
        return result

    def wait_until_built(self, timeout: float = 600.0) -> bool:
        if self._building.acquire(timeout=timeout):
            self._building.release()
            return True
        return False

    def close(self) -> None:
        self._stop.set()
        self.wait_until_built(timeout=60)
