"""What a PostgreSQL postings query reads in its snapshot, and what a process remembers.

One round trip opens the query's REPEATABLE READ transaction and reads the build id, the
chunks changed since the build (with their current rows) and the term rows this process
does not hold; :class:`SnapshotReads`, the part of
:class:`~prioris.engines.postgres.postings.PostgresPostings` that does it, corrects the
build's statistics by those changes (asking for a rebuild once they outgrow
:data:`CHANGES_SHARE`), checks and decodes the build's figures and term rows, and keeps
them per build id (the lengths, the length norms, the term rows up to
:data:`ROW_CACHE_BYTES`, the lexemes of query words). Separate from the ranking because
it is the state a ranking reads, and how it is kept exact and fresh, not the scoring.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from prioris.search import bm25_arrays

__all__ = ["CHANGES_MAX", "CHANGES_MIN", "CHANGES_SHARE", "SnapshotReads"]

# a build runs when the changed chunks pass CHANGES_SHARE of the rows, at least
# CHANGES_MIN and at most CHANGES_MAX of them: each costs a query ~0.1 ms whatever the
# library's size (its current row is read; 1,000 added 100 ms at 100k synthetic)
CHANGES_SHARE = 0.02
CHANGES_MIN = 100
CHANGES_MAX = 500
ROW_CACHE_BYTES = 256 << 20  # term rows kept decoded, per process
WORD_CACHE = 20_000  # query words whose lexeme is remembered

# one round trip: the read transaction, the build id and the changed ids, one snapshot
_BEGIN_SQL = (
    "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; "
    "SELECT (SELECT value FROM bm25_meta WHERE key = 'build'), "
    "ARRAY(SELECT DISTINCT chunk_id FROM bm25_changes ORDER BY 1)"
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


class SnapshotReads:
    """The snapshot reads and per-build memory of a
    :class:`~prioris.engines.postgres.postings.PostgresPostings`: a mixin over the
    attributes its ``__init__`` sets."""

    _lock: threading.Lock
    _base: _Base | None
    _rows: OrderedDict[str, tuple[np.ndarray, ...]]
    _rows_bytes: int
    _norms: tuple[Any, np.ndarray, np.ndarray, float] | None
    _words: dict[str, str | None]
    _refresh: Callable[[], None]  # BuildSchedule's: a rebuild once the changes outgrow it

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
