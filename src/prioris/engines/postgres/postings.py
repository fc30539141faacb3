"""BM25 postings inside PostgreSQL: plain queries ranked in numpy, exact at every moment.

The SQL BM25 of :mod:`prioris.engines.postgres.search` unnests the tsvector of every chunk
that matches any query word: seconds at 100k chunks for a common word. Migration postgres
0012 keeps per-lexeme arrays instead (``bm25_postings``: chunk ids, ``2 x passage +
heading`` counts, title positions and counts; the layout of SQLite's sidecar, big-endian)
with the build's figures (``bm25_meta``: row count, tokens, every chunk's length), and a
row trigger on ``chunks`` records every chunk inserted, deleted or edited since
(``bm25_changes``). The numpy core of :mod:`prioris.search.bm25_arrays` scores them.

**Exact, not fresh-or-nothing.** A query reads, in one REPEATABLE READ transaction, the
build id, the postings of its lexemes, the changed ids ``C`` and the current rows of
``C``. The build's statistics are corrected by what ``C``'s build versions contributed
(lengths from the build's lengths, lexeme membership from the postings themselves) and
what their current versions contribute; the postings are scored with ``C`` masked out and
``C``'s current versions scored beside them. The list is the SQL path's (scores within
float rounding) before a build, after it, and after any write since.

**Builds.** ``build`` aggregates in SQL (PostgreSQL does the grouping; this process holds
one statement's result set of postings at a time, not the library) in one REPEATABLE
READ transaction that replaces the postings and meta and deletes the change rows its
snapshot sees: what remains in ``bm25_changes`` is exactly what was committed after the
snapshot the postings describe. Two processes never build at once (an advisory lock, taken
*before* the snapshot so that a second builder sees the first one's result). A searching
process builds in a background thread when the library has at least ``min_rows`` chunks
and either no build exists or the changes outgrow ``CHANGES_SHARE`` of the rows, never
more often than the last build took. The first build switches change tracking on (a
``tracking`` row the trigger looks for, written under the writers' advisory lock), so a
library never built pays nothing per write.

Caches (the lengths, the term rows) are keyed by the build id read in the query's own
transaction, never by which process wrote.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from prioris.engines.postgres.connection import WRITE_LOCK_KEY
from prioris.search import bm25_arrays
from prioris.search.bm25_arrays import K1, TermPostings
from prioris.search.fts_plan import idf

BUILD_LOCK_KEY = 0x50524942  # "PRIB": one postings build at a time, across processes
# a build runs when the changed chunks pass CHANGES_SHARE of the rows, at least
# CHANGES_MIN and at most CHANGES_MAX of them: each costs a query ~0.1 ms whatever the
# library's size (its current row is read; 1,000 added 100 ms at 100k synthetic)
CHANGES_SHARE = 0.02
CHANGES_MIN = 100
CHANGES_MAX = 500
ROW_CACHE_BYTES = 256 << 20  # term rows kept decoded, per process
WORD_CACHE = 20_000  # query words whose lexeme is remembered
FAILED_BUILD_PAUSE = 600.0  # seconds before a build that raised is tried again
MAX_ID = (1 << 31) - 1  # ids are stored as int32
BUILD_WORK_MEM = "256MB"  # the server's sort memory for a build (it spills to disk past it)
log = logging.getLogger(__name__)

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

# one round trip: the read transaction, the build id and the changed ids, one snapshot
_BEGIN_SQL = (
    "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; "
    "SELECT (SELECT value FROM bm25_meta WHERE key = 'build'), "
    "ARRAY(SELECT DISTINCT chunk_id FROM bm25_changes ORDER BY 1)"
)

_LENGTHS_SQL = (
    "SELECT string_agg(int4send(coalesce(c.tsv_length, -1)), '' ORDER BY g.i) "
    "FROM generate_series(0, %s::bigint) g(i) LEFT JOIN chunks c ON c.id = g.i"
)

# the current version of changed chunks: length, and per query lexeme 2B + C and A counts
_CURRENT_SQL = (
    "SELECT c.id, c.tsv_length, u.lexeme, "
    "coalesce(2 * cardinality(array_positions(u.weights, 'B')) "
    "+ cardinality(array_positions(u.weights, 'C')), 0), "
    "coalesce(cardinality(array_positions(u.weights, 'A')), 0) "
    "FROM chunks c LEFT JOIN LATERAL (SELECT * FROM unnest(CASE WHEN c.tsv @@ {query} "
    "THEN c.tsv ELSE ''::tsvector END) v WHERE v.lexeme = ANY({lexemes})) u ON true "
    "WHERE c.id = ANY(ARRAY(SELECT chunk_id FROM bm25_changes))"
)  # @@ first: a binary search in the tsvector; unnesting one costs ~75 us (100k synthetic)


@dataclass(frozen=True)
class BuildResult:
    build_id: str
    terms: int
    pairs: int
    rows: int
    seconds: float


@dataclass(frozen=True)
class _Base:
    """What one build says: its id, row count, tokens and lengths by id (-1: no chunk)."""

    build_id: bytes
    rows: int
    tokens: int
    lengths: np.ndarray  # int64


@dataclass(frozen=True)
class _View:
    """The library now, as the build plus the changes since: row count, average length,
    the changed ids, their current lengths and per query lexeme their (2B + C, A)."""

    rows: int
    avgdl: float
    changed: np.ndarray
    lengths: dict[int, int]
    current: dict[str, dict[int, tuple[int, int]]]


@dataclass(frozen=True)
class _Read:
    """What :meth:`PostgresPostings._open` read in the query's snapshot."""

    build_id: bytes | None
    changed: np.ndarray  # sorted
    current: list[Any]  # (id, length, lexeme, 2B + C, A) of the changed chunks now
    rows: list[Any] | None  # the term rows of the lexemes ``asked`` (not remembered)
    asked: list[str]


def _text(value: Any) -> str:
    return bytes(value).decode("ascii")


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


class PostgresPostings:
    """Plain-query BM25 from the postings table; None tells the caller to use SQL."""

    def __init__(
        self,
        connect: Callable[[], Any],
        *,
        min_rows: int,
        background: bool = True,
    ) -> None:
        """``connect``: a new autocommit psycopg connection (a build's own)."""
        self._connect = connect
        self.min_rows = min_rows
        self._background = background
        self._lock = threading.Lock()
        self._building = threading.Lock()
        self._stop = threading.Event()
        self._next_build = 0.0
        self._queries = 0
        self._base: _Base | None = None
        self._rows: OrderedDict[str, tuple[np.ndarray, ...]] = OrderedDict()
        self._rows_bytes = 0
        self._norms: tuple[Any, np.ndarray, np.ndarray, float] | None = None
        self._words: dict[str, str | None] = {}
        self._warned = False
        self.last_build: BuildResult | None = None
        self.answered = 0  # queries the postings answered (benchmarks print it)

    # -- ranking -------------------------------------------------------------------------

    def rank(
        self,
        raw: Any,
        words: list[str],
        limit: int,
        *,
        title_weight: float,
        accept: Callable[[Any, list[int]], dict[int, str]],
    ) -> list[tuple[int, str, float]] | None:
        """(chunk id, work id, score) best first for single words, or None (SQL answers).

        ``raw``: an autocommit psycopg connection; ``accept(raw, ids)``: the work of each of
        ``ids`` the query's filters keep (in the same transaction)."""
        if self.min_rows <= 0 or limit == 0:
            return None
        self._queries += 1
        lexemes = self._lexemes(raw, words)  # the dictionary only: before the snapshot
        if lexemes is None:
            return None  # a word of several tokens is a phrase: SQL answers
        if not lexemes:
            return []  # stop words only ("not", "the"): nothing is indexed under them
        try:
            read = self._open(raw, lexemes)
            found = self._rank(raw, read, lexemes, limit, title_weight, accept)
        except ValueError as exc:
            if not self._warned:
                log.warning("BM25 postings damaged (%s): SQL answers until a rebuild", exc)
                self._warned = True
            with self._lock:
                self._base, self._rows, self._rows_bytes, self._norms = None, OrderedDict(), 0, None
            self._refresh()  # not sooner than the last build took
            return None
        finally:
            raw.execute("COMMIT")
        if found is not None:
            self.answered += 1
        return found

    def _rank(
        self,
        raw: Any,
        read: _Read,
        lexemes: list[str],
        limit: int,
        title_weight: float,
        accept: Callable[[Any, list[int]], dict[int, str]],
    ) -> list[tuple[int, str, float]] | None:
        if read.build_id is None:
            self._maybe_first_build(raw)
            return None
        base = self._load(raw, read.build_id)
        if not lexemes:
            return []
        changed = read.changed
        view = self._view(base, lexemes, read)
        current_len, current = view.lengths, view.current
        rows, avgdl = view.rows, view.avgdl
        norm, norm32, floor = self._norm(base, avgdl, current_len)
        lists: list[TermPostings] = []
        found = self._postings(raw, base, lexemes, read)
        for lexeme in lexemes:
            stored = found[lexeme]
            mine = current[lexeme]
            pieces = []
            df = len(mine)
            if stored is not None:
                ids, tf, at, counts = stored
                keep = _not_in(ids, changed)
                if keep is not None:
                    position = np.cumsum(keep) - 1
                    kept_at = keep[at]
                    ids, tf = ids[keep], tf[keep]
                    at, counts = position[at[kept_at]], counts[kept_at]
                df += len(ids)
                pieces.append((ids, tf, at, counts))
            if mine:
                cids = np.array(sorted(mine), dtype=np.int64)
                ctf = np.array([mine[c][0] for c in cids], dtype=np.int64)
                ca = np.array([mine[c][1] for c in cids], dtype=np.int64)
                cat = np.flatnonzero(ca)
                pieces.append((cids, ctf, cat, ca[cat]))
            weight = idf(df, rows) * (K1 + 1)
            lists += [TermPostings(*p, weight) for p in pieces if len(p[0])]
        return self._ranked(raw, (norm32, norm, floor), lists, limit, title_weight, accept)

    def _open(self, raw: Any, lexemes: list[str]) -> _Read:
        """One round trip: the REPEATABLE READ transaction begun, the build id, the
        changed ids, their current rows and the term rows this process does not remember
        (all of them when the build is not the one it used last)."""
        from psycopg import sql

        with self._lock:
            base = self._base
            missing = [x for x in lexemes if base is None or x not in self._rows]
        array = "ARRAY[" + ", ".join(sql.Literal(x).as_string(raw) for x in lexemes) + "]::text[]"
        query = " | ".join("'" + x.replace("\\", "\\\\").replace("'", "''") + "'" for x in lexemes)
        tsquery = sql.Literal(query or "''").as_string(raw) + "::tsquery"
        parts = [_BEGIN_SQL, _CURRENT_SQL.format(lexemes=array, query=tsquery)]
        if missing:
            wanted = ", ".join(sql.Literal(x).as_string(raw) for x in missing)
            parts.append(
                "SELECT term, df, ids, tf, title_at, title_tf FROM bm25_postings "
                f"WHERE term = ANY(ARRAY[{wanted}]::text[])"
            )
        cursor = raw.execute("; ".join(parts))
        cursor.nextset()
        build_id, changed = cursor.fetchone()
        cursor.nextset()
        current = cursor.fetchall()
        rows = None
        if missing:
            cursor.nextset()
            rows = cursor.fetchall()
        return _Read(
            None if build_id is None else bytes(build_id),
            np.array(changed or [], dtype=np.int64),
            current,
            rows,
            missing,
        )

    def _view(self, base: _Base, lexemes: list[str], read: _Read) -> _View:
        """The build's statistics corrected by the changed chunks' build and current
        versions (read in the caller's transaction)."""
        changed = read.changed
        if len(changed) > min(max(CHANGES_MIN, CHANGES_SHARE * base.rows), CHANGES_MAX):
            self._refresh()
        current_len: dict[int, int] = {}
        current: dict[str, dict[int, tuple[int, int]]] = {x: {} for x in lexemes}
        for cid, length, lexeme, tf, a in read.current:
            current_len[int(cid)] = int(length)
            if lexeme is not None and lexeme in current:
                current[lexeme][int(cid)] = (int(tf), int(a))
        lengths = base.lengths
        was = changed[changed < len(lengths)]
        was = was[lengths[was] >= 0]  # changed chunks that the build counted
        rows = base.rows - len(was) + len(current_len)
        tokens = base.tokens - int(lengths[was].sum()) + sum(current_len.values())
        avgdl = max(tokens / rows, 1.0) if rows > 0 else 1.0
        return _View(rows, avgdl, changed, current_len, current)

    def statistics(self, raw: Any, lexemes: list[str]) -> tuple[int, float, dict[str, int]] | None:
        """Exact row count, average length and chunks per lexeme from the postings and
        the changes since (the SQL path's statistics, no scan), or None without a build."""
        if self.min_rows <= 0:
            return None
        lexemes = list(dict.fromkeys(lexemes))
        try:
            read = self._open(raw, lexemes)
            if read.build_id is None:
                return None
            base = self._load(raw, read.build_id)
            view = self._view(base, lexemes, read)
            counts = {}
            found = self._postings(raw, base, lexemes, read)
            for lexeme in view.current:
                stored = found[lexeme]
                df = len(view.current[lexeme])
                if stored is not None:
                    keep = _not_in(stored[0], view.changed)
                    df += len(stored[0]) if keep is None else int(keep.sum())
                counts[lexeme] = df
            return view.rows, view.avgdl, counts
        except ValueError:
            return None  # damaged: counted in SQL; the ranking path reports it
        finally:
            raw.execute("COMMIT")

    @staticmethod
    def _ranked(
        raw: Any,
        norms: tuple[np.ndarray, np.ndarray, float],
        lists: list[TermPostings],
        limit: int,
        title_weight: float,
        accept: Callable[[Any, list[int]], dict[int, str]],
    ) -> list[tuple[int, str, float]]:
        """The scored list through the filters: a filtered query asks for more until
        ``limit`` survive or every matching chunk was seen."""
        want = limit if limit < 0 else max(limit, 1)
        norm32, norm, floor = norms
        while True:
            scored = bm25_arrays.score(norm32, norm, lists, want, title_weight, norm_floor=floor)
            owners = accept(raw, [c for c, _ in scored]) if scored else {}
            kept = [(c, owners[c], s) for c, s in scored if c in owners]
            if want < 0 or len(scored) < want or len(kept) >= limit:
                return kept if limit < 0 else kept[:limit]
            want *= 8

    def _load(self, raw: Any, build_id: bytes) -> _Base:
        """The build's figures, read once per build id; checked against each other."""
        with self._lock:
            base = self._base
            if base is not None and base.build_id == build_id:
                return base
        meta = {
            str(k): bytes(v)
            for k, v in raw.execute(
                "SELECT key, value FROM bm25_meta WHERE key IN ('rows', 'tokens', 'lengths')"
            )
        }
        try:
            rows, tokens = int(_text(meta["rows"])), int(_text(meta["tokens"]))
            raw_lengths = meta["lengths"]
        except (KeyError, ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"bm25_meta incomplete ({exc})") from None
        if len(raw_lengths) % 4:
            raise ValueError("bm25_meta lengths damaged")
        lengths = np.frombuffer(raw_lengths, dtype=">i4").astype(np.int64)
        present = lengths[lengths >= 0]
        if len(present) != rows or int(present.sum()) != tokens or np.any(lengths < -1):
            raise ValueError("bm25_meta lengths disagree with its row count or tokens")
        base = _Base(build_id, rows, tokens, lengths)
        with self._lock:
            self._base, self._rows, self._rows_bytes, self._norms = base, OrderedDict(), 0, None
        return base

    def _norm(
        self, base: _Base, avgdl: float, current: dict[int, int]
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """Length norms by chunk id: the build's lengths with the changed chunks' current
        ones, and their floor (:func:`bm25_arrays.floor`); the last ones are kept for the
        next query with the same figures."""
        key = (base.build_id, avgdl, tuple(sorted(current.items())))
        with self._lock:
            if self._norms is not None and self._norms[0] == key:
                return self._norms[1], self._norms[2], self._norms[3]
        lengths = base.lengths
        if current:
            size = max(len(lengths), max(current) + 1)
            lengths = np.concatenate([lengths, np.zeros(size - len(lengths), np.int64)])
            ids = np.fromiter(current, dtype=np.int64, count=len(current))
            lengths[ids] = np.fromiter(current.values(), dtype=np.int64, count=len(current))
        norm, norm32 = bm25_arrays.norms(np.maximum(lengths, 0), avgdl)
        floor = bm25_arrays.floor(norm)
        with self._lock:
            self._norms = (key, norm, norm32, floor)
        return norm, norm32, floor

    def _postings(
        self, raw: Any, base: _Base, lexemes: list[str], read: _Read
    ) -> dict[str, tuple[np.ndarray, ...] | None]:
        """The lexemes' stored arrays (native byte order, checked), remembered per build;
        those :meth:`_open` read (for the build it guessed) or else one more statement."""
        found: dict[str, tuple[np.ndarray, ...] | None] = {}
        if read.rows is not None:  # read in the snapshot: rows of its build, ``base``
            found.update(self._decode(base, read.asked, read.rows))
        with self._lock:
            for lexeme in lexemes:
                if self._base is base and lexeme in self._rows:
                    self._rows.move_to_end(lexeme)
                    found[lexeme] = self._rows[lexeme]
        missing = [x for x in lexemes if x not in found]
        if not missing:
            return found
        rows = raw.execute(
            "SELECT term, df, ids, tf, title_at, title_tf FROM bm25_postings "
            "WHERE term = ANY(%s::text[])",
            (missing,),
        ).fetchall()
        found.update(self._decode(base, missing, rows))
        return found

    def _decode(
        self, base: _Base, asked: list[str], rows: list[Any]
    ) -> dict[str, tuple[np.ndarray, ...] | None]:
        """Term rows checked and decoded (and remembered); a lexeme without a row is in
        no chunk of the build."""
        found: dict[str, tuple[np.ndarray, ...] | None] = dict.fromkeys(asked)
        for row in rows:
            lexeme = str(row[0])
            ids, tf, at, counts = bm25_arrays.decode(
                lexeme,
                bytes(row[2]),
                bytes(row[3]),
                bytes(row[4]),
                bytes(row[5]),
                size=len(base.lengths),
                order=">",
            )
            ids = ids.astype(np.int64)
            if int(row[1]) != len(ids) or bool(np.any(base.lengths[ids] < 0)):
                raise ValueError(f"postings of {lexeme!r} disagree with the build's chunks")
            arrays = (ids, tf.astype(np.uint16), at.astype(np.int64), counts.astype(np.uint16))
            found[lexeme] = arrays
            self._remember(base, lexeme, arrays)
        return found

    def _remember(self, base: _Base, lexeme: str, arrays: tuple[np.ndarray, ...]) -> None:
        size = sum(a.nbytes for a in arrays)
        with self._lock:
            if self._base is base and size < ROW_CACHE_BYTES:
                self._rows[lexeme] = arrays
                self._rows_bytes += size
                while self._rows_bytes > ROW_CACHE_BYTES:
                    _, dropped = self._rows.popitem(last=False)
                    self._rows_bytes -= sum(a.nbytes for a in dropped)

    def _lexemes(self, raw: Any, words: list[str]) -> list[str] | None:
        """The distinct lexemes of the words (stop words drop out, as in to_tsquery), or
        None when a word becomes several tokens (a phrase in the tsquery)."""
        missing = [w for w in dict.fromkeys(words) if w not in self._words]
        if missing:
            found = raw.execute(
                "SELECT w, array(SELECT lexeme FROM unnest(v)), prioris_tsv_length(v) "
                "FROM unnest(%s::text[]) w, to_tsvector('english', prioris_fold(w)) v",
                (missing,),
            ).fetchall()
            with self._lock:
                if len(self._words) > WORD_CACHE:
                    self._words = {}
                for word, lexemes, tokens in found:
                    single = len(lexemes) <= 1 and int(tokens) <= 1
                    self._words[word] = (lexemes[0] if lexemes else "") if single else None
        out: list[str] = []
        for word in words:
            lexeme = self._words.get(word)
            if lexeme is None:
                return None
            if lexeme and lexeme not in out:
                out.append(lexeme)
        return out

    # -- builds ----------------------------------------------------------------------------

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


def _not_in(ids: np.ndarray, changed: np.ndarray) -> np.ndarray | None:
    """Mask of the ``ids`` (sorted) not in ``changed`` (sorted), None when all are kept."""
    if len(changed) == 0 or len(ids) == 0:
        return None
    where = np.minimum(np.searchsorted(changed, ids), len(changed) - 1)
    keep = changed[where] != ids
    return None if bool(keep.all()) else keep
