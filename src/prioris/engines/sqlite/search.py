"""The SQLite search backend: FTS5 BM25, KNN from the vector copy or ``vec0``, hit rows.

Each thread reads through its own connection (WAL lets readers run beside the one
writer), so a search never waits for an ingest and hybrid's two halves run in parallel.

FTS5 has no top-k pruning: a query costs about a microsecond per chunk matching any of
its words, which at a million chunks is the tail of every mode. Past ``FTS_SPLIT_ROWS``
chunks the backend ranks a plain query over the chunks holding its rare words only when
that provably gives the full query's list (:mod:`prioris.search.fts_plan`), and
otherwise ranks the lower and upper halves of the chunk ids in two threads and merges
them; BM25's statistics are those of the whole index in every part, so each merged list
is the one a single query gives. Before any of that, a plain query without filters is
ranked from the BM25 postings snapshot (:mod:`prioris.engines.sqlite.postings_rank`) when the
library has one that matches its FTS5 index: the same list, without FTS5's ``bm25()``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from prioris.engines.sqlite import textpack
from prioris.engines.sqlite.index import VEC_TABLE
from prioris.engines.sqlite.postings_rank import PostingsRanker
from prioris.engines.sqlite.queries import count_works, fts_search, vector_search
from prioris.engines.sqlite.vector_cache import VectorCache
from prioris.search import fts_plan
from prioris.search.protocols import ChunkScore, Passage, SearchFilters, WorkSummary
from prioris.storage import labels as label_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage.chunks import vectors_version

BATCH = 500  # ids per IN (...) list
FTS_SPLIT_ROWS = 100_000  # rank FTS in two halves past this many chunk ids
LAST_ROWID = (1 << 63) - 1
COUNT_CACHE = 20_000  # words whose chunk counts are remembered (per index version)


class SqliteSearchBackend:
    def __init__(
        self,
        connect_reader: Callable[[], Any],
        *,
        postings_path: Path | None = None,
        postings_min_rows: int = FTS_SPLIT_ROWS,
    ) -> None:
        """``postings_path``: the BM25 postings sidecar of the library (None: never built)."""
        self._connect_reader = connect_reader
        self._local = threading.local()
        self._opened: list[Any] = []
        self._opened_lock = threading.Lock()
        self.vector_cache = VectorCache(connect_reader)
        self.postings = PostingsRanker(connect_reader, postings_path, min_rows=postings_min_rows)
        self._fts_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prioris-fts")
        self._counts: dict[str, int] = {}
        self._counts_version = -1
        self.pruned_queries = 0  # how often the rare-word plan answered (benchmarks read it)

    @property
    def conn(self) -> Any:
        """This thread's read connection, opened on first use."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect_reader()
            self._local.conn = conn
            with self._opened_lock:
                self._opened.append(conn)
        return conn

    def close(self) -> None:
        self.vector_cache.close()
        self.postings.close()
        self._fts_pool.shutdown(wait=True)
        with self._opened_lock:
            for conn in self._opened:
                conn.close()
            self._opened.clear()

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        last = self.conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0
        if filters == SearchFilters():  # filtered queries stay with FTS5 (filters in SQL)
            ranked = self.postings.rank(
                self.conn, expression, limit, title_weight=title_weight, rows=last
            )
            if ranked is not None:
                return self._with_works(ranked)
        if last < FTS_SPLIT_ROWS:
            return fts_search(self.conn, expression, filters, limit, title_weight=title_weight)
        words = fts_plan.words_of(expression)
        counts = None if words is None else self._match_counts(words)
        plan = None if counts is None else fts_plan.plan(counts, last)
        for _ in range(2):  # a failed first split gives the score that makes a second one hold
            if plan is None or counts is None:
                break
            found = self._in_parallel(
                (plan.rare_only, None), (plan.rare_and_common, None), filters, limit, title_weight
            )
            if len(found) < limit:
                break  # chunks with only common words are needed to fill the list
            if found[-1].score >= plan.bound:
                self.pruned_queries += 1
                return found
            plan = fts_plan.plan(counts, last, below=found[-1].score)
        middle = last // 2
        return self._in_parallel(
            (expression, (0, middle)),
            (expression, (middle + 1, LAST_ROWID)),  # rows added meanwhile too
            filters,
            limit,
            title_weight,
        )

    def _with_works(self, ranked: list[tuple[int, float]]) -> list[ChunkScore]:
        """The postings' (chunk id, score) list with each chunk's work: from the vector
        copy where it holds the chunk, from the library for the others."""
        owners = self.vector_cache.owners(self.conn, [chunk_id for chunk_id, _ in ranked])
        missing = [chunk_id for chunk_id, _ in ranked if chunk_id not in owners]
        for batch in _batches(missing):
            marks = ", ".join("?" for _ in batch)
            owners.update(
                self.conn.execute(
                    f"SELECT id, work_id FROM chunks WHERE id IN ({marks})", batch
                ).fetchall()
            )
        return [ChunkScore(c, owners[c], s) for c, s in ranked if c in owners]

    def _in_parallel(
        self,
        first: tuple[str, tuple[int, int] | None],
        second: tuple[str, tuple[int, int] | None],
        filters: SearchFilters,
        limit: int,
        title_weight: float,
    ) -> list[ChunkScore]:
        """Two FTS queries over disjoint chunk sets, one in the pool, merged by score."""

        def run(part: tuple[str, tuple[int, int] | None]) -> list[ChunkScore]:
            expression, rowids = part
            return fts_search(
                self.conn, expression, filters, limit, title_weight=title_weight, rowids=rowids
            )

        pending = self._fts_pool.submit(run, second)
        merged = sorted([*run(first), *pending.result()], key=lambda c: -c.score)
        return merged[:limit]

    def _match_counts(self, words: list[str]) -> dict[str, int]:
        """How many chunks each quoted word matches, remembered until the index changes."""
        version = vectors_version(self.conn)
        if version != self._counts_version or len(self._counts) > COUNT_CACHE:
            self._counts, self._counts_version = {}, version
        counts = {}
        for word in words:
            if word not in self._counts:
                row = self.conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (word,)
                ).fetchone()
                self._counts[word] = int(row[0])
            counts[word] = self._counts[word]
        return counts

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        """From the in-memory copy when it is fresh, else from ``vec0``."""
        rows = self.vector_cache.knn(self.conn, vector, filters, k)
        return vector_search(self.conn, vector, filters, k) if rows is None else rows

    def vectors(self, chunk_ids: Sequence[int]) -> np.ndarray:
        """The stored vectors of a few chunks (pseudo-relevance feedback)."""
        rows = []
        for batch in _batches(list(chunk_ids)):
            marks = ", ".join("?" for _ in batch)
            rows += self.conn.execute(
                f"SELECT embedding FROM {VEC_TABLE} WHERE chunk_id IN ({marks})", batch
            ).fetchall()
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack([np.frombuffer(r[0], dtype=np.float32) for r in rows])

    def work_vectors(self, work_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The works' own vectors (title + abstract), for the vector side's work score."""
        return work_vector_store.read(self.conn, work_ids)

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        found: dict[int, Passage] = {}
        for batch in _batches(list(chunk_ids)):
            marks = ", ".join("?" for _ in batch)
            for row in self.conn.execute(
                "SELECT id, text, page_start, page_end, char_start, section, work_id "
                f"FROM chunks WHERE id IN ({marks})",
                batch,
            ):
                text = textpack.unpack(row[1], row[6])  # damaged: an error naming the work
                found[row[0]] = Passage(row[0], text, row[2], row[3], row[4], row[5])
        return found

    def page_spans(self, work_ids: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
        """``(number, start, end)`` of each PDF page of the works indexed from a PDF (a
        text without printed pages has none), so a quoted sentence names its page."""
        found: dict[str, list[tuple[int, int, int]]] = {}
        for batch in _batches(list(dict.fromkeys(work_ids))):
            marks = ", ".join("?" for _ in batch)
            for row in self.conn.execute(
                "SELECT p.work_id, p.number, p.char_start, p.char_end FROM pages p "
                "JOIN works w ON w.id = p.work_id "
                f"WHERE w.markdown_format = 'pdf' AND p.work_id IN ({marks}) "
                "ORDER BY p.work_id, p.number",
                batch,
            ):
                found.setdefault(row[0], []).append((row[1], row[2], row[3]))
        return found

    def sections(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """Each chunk's part of the paper, so back matter ranks below a work's body."""
        found: dict[int, str] = {}
        for batch in _batches(list(dict.fromkeys(chunk_ids))):
            marks = ", ".join("?" for _ in batch)
            found.update(
                self.conn.execute(
                    f"SELECT id, section FROM chunks WHERE id IN ({marks})", batch
                ).fetchall()
            )
        return found

    def labelled_works(self, collections: Sequence[str], tags: Sequence[str]) -> set[str]:
        """The works a collection and tag filter keeps (:mod:`prioris.storage.labels`)."""
        return label_store.works_in(self.conn, collections=collections, tags=tags) or set()

    def count_works(self, filters: SearchFilters) -> int:
        """Works the filters cover (what a year filter left out, for the response)."""
        return count_works(self.conn, filters)

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        found: dict[str, WorkSummary] = {}
        for batch in _batches(list(work_ids)):
            marks = ", ".join("?" for _ in batch)
            for row in self.conn.execute(
                f"SELECT id, title, authors, year, source FROM works WHERE id IN ({marks})",
                batch,
            ):
                authors = json.loads(row[2] or "[]")
                found[row[0]] = WorkSummary(row[0], row[1], authors, row[3], row[4])
        return found


def _batches(items: list[Any]) -> list[list[Any]]:
    return [items[i : i + BATCH] for i in range(0, len(items), BATCH)]
