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

The parts: :mod:`~prioris.engines.postgres.postings_build` builds the table and decides
when (its ``BuildSchedule``), :mod:`~prioris.engines.postgres.postings_snapshot` reads a
query's snapshot and keeps what a process remembers per build (its ``SnapshotReads``);
:class:`PostgresPostings`, made of the two, ranks here. This module re-exports ``build``
and ``BuildResult``, which its callers import from here.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from prioris.engines.postgres.postings_build import BuildResult, BuildSchedule, build
from prioris.engines.postgres.postings_snapshot import SnapshotReads, _Base, _Read
from prioris.search import bm25_arrays
from prioris.search.bm25_arrays import K1, TermPostings
from prioris.search.fts_plan import idf

__all__ = ["BuildResult", "PostgresPostings", "build"]

log = logging.getLogger(__name__)


class PostgresPostings(SnapshotReads, BuildSchedule):
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
        stats: tuple[int, float, dict[str, int]] | None = None,
    ) -> list[tuple[int, str, float]] | None:
        """(chunk id, work id, score) best first for single words, or None (SQL answers).

        ``raw``: an autocommit psycopg connection; ``accept(raw, ids)``: the work of each of
        ``ids`` the query's filters keep (in the same transaction); ``stats``: the chunk
        count, average length and chunks per lexeme to score with instead of this table's
        (a shard ranks with the whole library's)."""
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
            found = self._rank(raw, read, lexemes, limit, title_weight, accept, stats)
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
        stats: tuple[int, float, dict[str, int]] | None = None,
    ) -> list[tuple[int, str, float]] | None:
        if read.build_id is None:
            self._maybe_first_build(raw)
            return None
        base = self._load(raw, read.build_id)
        if not lexemes:
            return []
        if stats is not None and any(lexeme not in stats[2] for lexeme in lexemes):
            return None  # statistics of other lexemes than this table's: SQL answers
        changed = read.changed
        view = self._view(base, lexemes, read)
        current_len, current = view.lengths, view.current
        rows, avgdl = (view.rows, view.avgdl) if stats is None else stats[:2]
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
            df = df if stats is None else stats[2][lexeme]
            weight = idf(df, rows) * (K1 + 1)
            lists += [TermPostings(*p, weight) for p in pieces if len(p[0])]
        return self._ranked(raw, (norm32, norm, floor), lists, limit, title_weight, accept)

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


def _not_in(ids: np.ndarray, changed: np.ndarray) -> np.ndarray | None:
    """Mask of the ``ids`` (sorted) not in ``changed`` (sorted), None when all are kept."""
    if len(changed) == 0 or len(ids) == 0:
        return None
    where = np.minimum(np.searchsorted(changed, ids), len(changed) - 1)
    keep = changed[where] != ids
    return None if bool(keep.all()) else keep
