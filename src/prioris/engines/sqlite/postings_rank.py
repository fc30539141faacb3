"""BM25 of a plain query from the postings snapshot, and keeping that snapshot built.

:class:`PostingsRanker` answers an OR of single words (the plain query syntax) with FTS5's
exact BM25 (k1 1.2, b 0.75, FTS5's idf, row count and average length, column weights text
1, title ``title_weight``, heading 0.5) computed in numpy over the snapshot of
:mod:`prioris.engines.sqlite.postings`: about 2 ms per common word at a million chunks instead of
FTS5's 2 us per matching row. It answers only while the snapshot is *fresh* (its freshness
key equals the library's), so its list is the one FTS5 would give (up to float ties);
otherwise it returns None and the caller asks FTS5.

Like the in-memory vector copy, the snapshot is built in a background thread of the
searching process, from the second query of a process on (a one-shot CLI search never
pays for it), only for libraries of at least ``min_rows`` chunks, and not again sooner
than the last build took (a library being written to does not keep a core busy). The
postings stay on disk in the sidecar file; this process keeps only the chunk lengths.

Opening a sidecar and deciding whether it fits the library is
:mod:`prioris.engines.sqlite.postings_snapshot`'s; this module picks the snapshot a query
is answered from, with the passages added since (:class:`_Overlay`), and scores.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from prioris.engines.sqlite import postings, postings_delta
from prioris.engines.sqlite.connection import sqlite3
from prioris.engines.sqlite.postings_snapshot import (
    _file_id,
    _lengths,
    _library_facts,
    _open,
    _Snapshot,
)
from prioris.search import bm25_arrays, fts_plan
from prioris.search.bm25_arrays import K1

WORD_CACHE = 20_000  # query words whose FTS5 term is remembered
FAILED_BUILD_PAUSE = 600.0  # seconds before a build that raised is tried again
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Overlay:
    """A snapshot and the passages added since (:mod:`.postings_delta`), scored with the
    library's current row count and average length: what FTS5 gives for the library at
    ``key``."""

    key: bytes
    base: _Snapshot
    delta: postings_delta.DeltaIndex
    rows: int
    norm: np.ndarray
    norm32: np.ndarray
    norm_floor: float
    ids: np.ndarray  # the chunk id at each position: the snapshot's, then the added ones

    @property
    def tokenizer(self) -> str:
        return self.base.tokenizer


class PostingsRanker:
    """Plain-query BM25 from the sidecar while it is fresh; None tells the caller to use FTS5."""

    def __init__(
        self,
        connect_reader: Callable[[], Any],
        path: Path | None,
        *,
        min_rows: int,
        background: bool = True,
    ) -> None:
        self._connect_reader = connect_reader
        self.path = path
        self.min_rows = min_rows
        self._background = background
        self._snapshot: _Snapshot | None = None
        self._examined: tuple[int, int, int] | None = None  # the file last opened
        self._lock = threading.Lock()  # the sidecar connection and the tokenizer
        self._building = threading.Lock()
        self._stop = threading.Event()
        self._next_build = 0.0  # monotonic time before which no build starts
        self._queries = 0
        self._words: dict[str, str | None] = {}
        self._tokenizer: Any = None
        self._tokenizer_spec = ""
        self.last_build: postings.BuildResult | None = None
        self.answered = 0  # queries the snapshot answered (benchmarks print it)
        self.overlaid = 0  # ... of which with the passages added since it was built
        self._warned = False  # a damaged sidecar is logged once per process
        self._delta: postings_delta.DeltaIndex | None = None
        self._overlay: _Overlay | None = None

    def rank(
        self, conn: Any, expression: str, limit: int, *, title_weight: float, rows: int
    ) -> list[tuple[int, float]] | None:
        """(chunk id, score) best first for a plain expression of single words, or None."""
        if self.path is None or self.min_rows <= 0 or rows < self.min_rows or limit == 0:
            return None
        words = fts_plan.words_of(expression) or _single_word(expression)
        if words is None:
            return None
        self._queries += 1
        key = postings.freshness_key(conn)
        snapshot: _Snapshot | _Overlay | None = self._current(key, conn)
        if snapshot is None:
            if key is not None and self._queries > 1:
                self._refresh()
            snapshot = self._overlaid(key, conn)
            if snapshot is None:
                return None
        try:
            terms = self._terms(snapshot, [w[1:-1] for w in words])
            if terms is None:
                return None  # a quoted string of several tokens is a phrase: FTS5 answers
            found = self._score(snapshot, terms, limit, title_weight)
        except (sqlite3.Error, ValueError, IndexError) as exc:
            # a damaged sidecar: FTS5 answers, a rebuild replaces it, said once
            if not self._warned:
                log.warning("BM25 postings file %s is damaged (%s); rebuilding it", self.path, exc)
                self._warned = True
            self._drop()
            self._refresh()
            return None
        self.answered += 1
        self.overlaid += isinstance(snapshot, _Overlay)
        return found

    def _overlaid(self, key: bytes | None, conn: Any) -> _Overlay | None:
        """The loaded snapshot with the passages added since it was built, when the library
        has only grown since (else None: FTS5 answers until the rebuild)."""
        base = self._snapshot
        if key is None or base is None or base.rewrites < 0:
            return None
        overlay = self._overlay
        if overlay is not None and overlay.key == key and overlay.base is base:
            return overlay
        try:
            if postings.rewrites(conn) != base.rewrites:
                return None  # a passage was deleted or indexed again since the build
            library = _library_facts(conn)
            added = library.rows - base.rows
            if not 0 <= added <= postings_delta.MAX_ROWS:
                return None
            with self._lock:
                # a delta let go is never closed here: a search on another thread may still
                # be reading it (its connection closes when the last reference goes)
                delta = self._delta
                if delta is None or delta.base_key != base.key:
                    last = int(base.ids[-1]) if len(base.ids) else 0
                    delta = postings_delta.DeltaIndex(base.tokenizer, base.key, last)
                    self._delta = delta
                delta.catch_up(conn)
                if (
                    delta.rows != added
                    or delta.last != max(library.last_id, delta.base_last)
                    or base.tokens + delta.tokens != library.tokens
                    or postings.freshness_key(conn) != key  # written meanwhile
                ):
                    self._delta = None
                    return None
                lengths = delta.lengths(_lengths(base))
                norm, norm32 = bm25_arrays.norms(lengths, library.tokens / library.rows)
                floor = bm25_arrays.floor(norm)
                ids = np.concatenate((base.ids, delta.ids()))
                overlay = _Overlay(key, base, delta, library.rows, norm, norm32, floor, ids)
                self._overlay = overlay
            return overlay
        except (sqlite3.Error, ValueError) as exc:
            log.debug("passages added since the postings were built not served: %s", exc)
            return None

    def _current(self, key: bytes | None, conn: Any) -> _Snapshot | None:
        snapshot = self._snapshot
        if snapshot is not None and snapshot.key == key and snapshot.agrees:
            return snapshot
        assert self.path is not None
        file_id = _file_id(self.path)
        if file_id is None or file_id == self._examined:
            return None
        with self._lock:
            self._examined = file_id
            opened = _open(self.path, file_id, _library_facts(conn))
            if opened is None:
                return None
            self._snapshot = opened  # a search still scoring from the old one keeps it open
        return opened if opened.key == key and opened.agrees else None

    def _drop(self) -> None:
        with self._lock:
            self._snapshot = None  # closed when the last search using it lets go

    def _terms(self, snapshot: _Snapshot | _Overlay, words: list[str]) -> list[str] | None:
        """Each word as FTS5 indexes it: the chunks_fts tokenizer on a scratch table."""
        with self._lock:
            if self._tokenizer is None or self._tokenizer_spec != snapshot.tokenizer:
                self._tokenizer = sqlite3.connect(":memory:", check_same_thread=False)
                spec = snapshot.tokenizer.replace("'", "''")
                self._tokenizer.execute(
                    f"CREATE VIRTUAL TABLE tok USING fts5(t, tokenize='{spec}')"
                )
                self._tokenizer.execute("CREATE VIRTUAL TABLE tokv USING fts5vocab(tok, instance)")
                self._tokenizer_spec, self._words = snapshot.tokenizer, {}
            missing = [w for w in dict.fromkeys(words) if w not in self._words]
            if missing:
                if len(self._words) > WORD_CACHE:
                    self._words = {}
                tok = self._tokenizer
                tok.execute("DELETE FROM tok")
                tok.executemany("INSERT INTO tok(rowid, t) VALUES (?, ?)", enumerate(missing))
                found: dict[int, list[str]] = {}
                for doc, term in tok.execute("SELECT doc, term FROM tokv"):
                    found.setdefault(doc, []).append(term)
                for i, word in enumerate(missing):
                    tokens = found.get(i, [])
                    self._words[word] = tokens[0] if len(tokens) == 1 else None
            terms = [self._words.get(w) for w in words]
        return None if any(t is None for t in terms) else [t for t in terms if t]

    def _score(
        self,
        snapshot: _Snapshot | _Overlay,
        terms: list[str],
        limit: int,
        title_weight: float,
    ) -> list[tuple[int, float]]:
        """The scores FTS5 gives, from the shared numpy core (:func:`bm25_arrays.score`),
        terms in FTS5's order."""
        lists = []
        for term in terms:  # a term twice (two words, one stem) counts twice, as in FTS5
            found = (
                self._overlay_postings(snapshot, term)
                if isinstance(snapshot, _Overlay)
                else self._postings(snapshot, term)
            )
            if found is not None:  # else in no chunk
                lists.append(found)
        floor = snapshot.norm_floor
        ranked = bm25_arrays.score(
            snapshot.norm32, snapshot.norm, lists, limit, title_weight, norm_floor=floor
        )
        ids = snapshot.ids  # positions back to chunk ids (increasing: ties keep their order)
        return [(int(ids[position]), score) for position, score in ranked]

    def _postings(self, snapshot: _Snapshot, term: str) -> bm25_arrays.TermPostings | None:
        """A term's chunk ids, ``2 x text + heading`` counts, positions and counts of its
        title occurrences, and ``idf x (k1 + 1)``, checked (:func:`bm25_arrays.decode`)."""
        with self._lock:
            cached = snapshot.terms.get(term)
            if cached is not None:
                return cached
            row = snapshot.conn.execute(
                "SELECT ids, tf, title_at, title_tf FROM postings WHERE term = ?", (term,)
            ).fetchone()
        if row is None or len(row[0]) == 0:
            return None
        size = len(snapshot.norm)
        ids = bm25_arrays.decode_ids(term, row[0], size=size)
        ids, tf, at, counts = bm25_arrays.decode(
            term, ids, row[1], row[2], row[3], size=size, order="<"
        )
        found = bm25_arrays.TermPostings(
            ids, tf, at, counts, fts_plan.idf(len(ids), snapshot.rows) * (K1 + 1)
        )
        with self._lock:
            snapshot.terms.put(term, found)
        return found

    def _overlay_postings(self, overlay: _Overlay, term: str) -> bm25_arrays.TermPostings | None:
        """The snapshot's postings of ``term`` followed by the added passages' (their ids
        are all higher), weighted with the library's current row count."""
        base = self._postings(overlay.base, term)
        with self._lock:
            ids, tf, at, counts = overlay.delta.postings(term, len(overlay.base.ids))
        if base is not None and len(ids):
            ids = np.concatenate((base.ids, ids))
            tf = np.concatenate((base.tf, tf))  # one byte and two: two
            at = np.concatenate((base.at, at + len(base.ids)))
            counts = np.concatenate((base.counts, counts))
        elif base is not None:
            ids, tf, at, counts = base.ids, base.tf, base.at, base.counts
        elif len(ids) == 0:
            return None
        weight = fts_plan.idf(len(ids), overlay.rows) * (K1 + 1)
        return bm25_arrays.TermPostings(ids, tf, at, counts, weight)

    def _refresh(self) -> None:
        if time.monotonic() < self._next_build or not self._building.acquire(blocking=False):
            return
        if self._background:
            threading.Thread(target=self._build, daemon=True, name="prioris-postings").start()
        else:
            self._build()

    def _build(self) -> None:
        started = time.monotonic()
        pause = 0.0
        try:
            conn = self._connect_reader()
            conn.execute("PRAGMA mmap_size = 0")  # streamed once: no mapped pages kept
            try:
                assert self.path is not None
                result = postings.build(conn, self.path, self._stop)
                if result is not None:
                    self.last_build = result
            finally:
                conn.close()
        except Exception as exc:  # a cache: FTS5 keeps answering, a later query retries
            log.warning("BM25 postings snapshot not built (%s): FTS5 answers meanwhile", exc)
            pause = FAILED_BUILD_PAUSE  # e.g. a read-only folder: do not retry every query
        finally:
            self._next_build = time.monotonic() + max(pause, time.monotonic() - started)
            self._building.release()

    def wait_until_built(self, timeout: float = 60.0) -> bool:
        """For benchmarks and tests: block until a running build has finished."""
        if self._building.acquire(timeout=timeout):
            self._building.release()
            return True
        return False

    def close(self) -> None:
        self._stop.set()  # a build under way gives up at its next batch of terms
        self.wait_until_built(timeout=60)
        with self._lock:
            if self._snapshot is not None:
                self._snapshot.conn.close()
                self._snapshot = None
        with self._lock:
            if self._tokenizer is not None:
                self._tokenizer.close()
                self._tokenizer = None
            if self._delta is not None:
                self._delta.close()
                self._delta, self._overlay = None, None


def _single_word(expression: str) -> list[str] | None:
    """A one-word plain query (``"word"``), which :func:`fts_plan.words_of` leaves out."""
    inner = expression[1:-1]
    if len(expression) > 2 and expression[0] == expression[-1] == '"' and '"' not in inner:
        return [expression]
    return None
