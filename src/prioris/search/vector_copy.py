"""An in-memory copy of a library's vectors that answers KNN in numpy, for either engine.

The database's vector index stays the index of record (it persists the vectors and answers
whenever this copy cannot). On SQLite that index is sqlite-vec's brute-force ``vec0``
(about half a second a query at a million chunks); on PostgreSQL it is pgvector's HNSW,
fast but approximate (recall@10 0.71 at ``ef_search`` 400 on a million realistic chunks,
docs/benchmarks.md section 10). The copy takes one of two forms:

- up to ``EXACT_MAX_BYTES`` of float32 (about 170,000 chunks of 384 dimensions), the
  vectors themselves: exact KNN with one matrix-vector product;
- above that, :class:`~prioris.search.quantized.QuantizedVectors`: binary codes scanned
  (past 200,000 rows, for an unfiltered query, only those of the k-means lists nearest it),
  int8 rows rescoring the few thousand best, and the head of that list rescored once more
  with its float32 vectors read from the database (about 470 MB at a million chunks
  instead of 1.5 GB; recall@10 0.99 against exact search on the realistic 1M corpus).

What is engine-specific (how the rows are streamed out in one consistent snapshot, how a
few stored vectors are read back) comes in as a :class:`VectorSource`; the rest is here.
The copy is loaded in the background once the library is large enough to need it, is
tagged with the ``vectors_version`` counter that every vector write bumps in the same
transaction, and is used only while that counter has not moved -- whichever process
wrote: a stale copy is never consulted, and is dropped before its successor loads so
memory does not double. Filters are boolean masks over the same metadata the vector
table carries, applied before the ranking, so a filtered search still returns k hits
when k exist.

Here: when a copy is kept and in which form, how it is filled from the streamed rows,
the compact form's rescoring, and :class:`VectorCache`, which keeps the copy fresh. A
loaded copy and its queries (:class:`Snapshot`: owners, filter masks, nearest rows; and
:func:`one_blas_thread`) are in :mod:`prioris.search.vector_snapshot`; both names are
importable from here too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from prioris.search import quantized as compact_form
from prioris.search.protocols import ChunkScore, SearchFilters
from prioris.search.quantized import QuantizedVectors
from prioris.search.vector_snapshot import Snapshot
from prioris.search.vector_snapshot import one_blas_thread as one_blas_thread  # re-exported
from prioris.storage.chunks import vectors_version

MIN_VECTORS = 1_000  # below this the database answers in a few milliseconds: no copy kept
EXACT_MAX_BYTES = 256 << 20  # float32 copy up to this size, quantised copy above
MAX_BYTES = 1 << 30  # a copy (of either form) larger than this is not kept
SAMPLE_ROWS = 20_000  # rows that set the quantiser's mean and scales
# the compact copy's best rows are rescored with their float32 vectors read back from the
# database: int8 scores err by ~1e-3 in cosine, the gap between near neighbours. On SQLite
# a point read walks the overflow pages of vec0's 1.5 MB vector chunk (~0.8 ms quiet at
# 1M), so only the head of the list is rescored: k + 10 rows, 20 to 32 (recall@10 0.990
# on the realistic 1M corpus)
RESCORE_MIN = 20
RESCORE_MAX = 32


def copy_bytes(count: int, dim: int) -> int:
    """Memory of the copy a library of ``count`` vectors would get (0: none)."""
    if count < MIN_VECTORS:
        return 0
    exact = count * dim * 4
    if exact <= EXACT_MAX_BYTES:
        return exact
    words = (dim + 63) // 64 * 8
    compact = count * (dim + words)
    if count >= compact_form.PARTITION_MIN_ROWS:
        compact += count * (words + 8)  # the codes again in list order, and that order
    return compact if compact <= MAX_BYTES else 0


class _Codes:
    """Strings to small integer codes while streaming rows (no per-row objects kept)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def code(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = len(self.index)
        return found

    def names(self) -> list[str]:
        return list(self.index)


@dataclass(frozen=True)
class RowBatch:
    """Rows streamed out of a vector table: ids, float32 vectors (n x dim) and the
    metadata the filters test (year 0 or None: unknown)."""

    chunk_ids: Sequence[int]
    vectors: np.ndarray
    work_ids: Sequence[str]
    sources: Sequence[str]
    years: Sequence[int | None]


def build_snapshot(
    version: int,
    count: int,
    dim: int,
    sample: Callable[[], np.ndarray],
    batches: Iterable[RowBatch],
) -> Snapshot | None:
    """The copy of ``count`` rows streamed in ``batches`` (read in one consistent snapshot
    tagged ``version``), filled into preallocated arrays so loading needs little more
    memory than the copy; None when the library is too small or too large for one.
    ``sample`` gives a few thousand vectors for the compact form's quantiser, and is
    called only when that form is chosen. Rows past ``count`` (added after the count was
    taken) are left out."""
    size = copy_bytes(count, dim)
    if size == 0:
        return None
    matrix: np.ndarray | None = None
    quantized: QuantizedVectors | None = None
    if size == count * dim * 4:
        matrix = np.zeros((count, dim), dtype=np.float32)
    else:
        quantized = QuantizedVectors.allocate(sample().reshape(-1, dim), count)
    chunk_ids = np.zeros(count, dtype=np.int64)
    work_codes = np.zeros(count, dtype=np.int32)
    source_codes = np.zeros(count, dtype=np.int16)
    years = np.zeros(count, dtype=np.int16)
    works, sources = _Codes(), _Codes()
    done = 0
    for batch in batches:
        end = min(count, done + len(batch.chunk_ids))
        take = end - done
        block = np.asarray(batch.vectors[:take], dtype=np.float32).reshape(take, dim)
        if matrix is not None:
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            matrix[done:end] = block / np.maximum(norms, 1e-12)
        else:
            assert quantized is not None
            quantized.add(block)
        chunk_ids[done:end] = batch.chunk_ids[:take]
        work_codes[done:end] = [works.code(w) for w in batch.work_ids[:take]]
        source_codes[done:end] = [sources.code(s or "") for s in batch.sources[:take]]
        years[done:end] = [y or 0 for y in batch.years[:take]]
        done = end
        if done >= count:
            break
    if quantized is not None:
        quantized.build_partition()  # the lists unfiltered searches scan (large copies)
    chunk_ids = chunk_ids[:done]
    sorted_ids = sorted_rows = None
    if done > 1 and not bool(np.all(chunk_ids[1:] > chunk_ids[:-1])):
        sorted_rows = np.argsort(chunk_ids, kind="stable")
        sorted_ids = chunk_ids[sorted_rows]
    return Snapshot(
        version=version,
        chunk_ids=chunk_ids,
        matrix=None if matrix is None else matrix[:done],
        quantized=quantized,
        work_codes=work_codes[:done],
        work_names=works.names(),
        work_index=works.index,
        source_codes=source_codes[:done],
        source_index=sources.index,
        years=years[:done],
        sorted_ids=sorted_ids,
        sorted_rows=sorted_rows,
    )


def rescore_exact(
    stored: Callable[[list[int]], dict[int, np.ndarray]],
    snapshot: Snapshot,
    query: np.ndarray,
    picked: np.ndarray,
    scores: np.ndarray,
    count: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact cosine for the compact copy's best ``count`` rows (their float32 vectors as
    ``stored`` reads them from the database), merged with the int8 scores of the rest; a
    row gone from the database since the copy was taken is dropped."""
    count = min(count, len(picked))
    unit = np.asarray(query, dtype=np.float32)
    unit = unit / max(float(np.linalg.norm(unit)), 1e-12)
    exact = np.array(scores, dtype=np.float32)
    keep = np.ones(len(picked), dtype=bool)
    vectors = stored([int(snapshot.chunk_ids[picked[i]]) for i in range(count)])
    for i in range(count):
        vector = vectors.get(int(snapshot.chunk_ids[picked[i]]))
        if vector is None:
            keep[i] = False
            continue
        exact[i] = float(vector @ unit) / max(float(np.linalg.norm(vector)), 1e-12)
    picked, exact = picked[keep], exact[keep]
    order = np.argsort(-exact, kind="stable")
    return picked[order], exact[order]


class VectorSource(Protocol):
    """What an engine gives the copy: the rows, and a few stored vectors back."""

    def load(self, conn: Any) -> Snapshot | None:
        """The copy read in one consistent snapshot (None: too small or too large)."""
        ...

    def stored_vectors(self, conn: Any, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        """The float32 vectors of those chunks still in the vector table."""
        ...


class VectorCache:
    """Exact KNN from memory while fresh; ``None`` tells the caller to ask the database."""

    def __init__(
        self,
        connect_reader: Callable[[], Any],
        source: VectorSource,
        *,
        background: bool = True,
        release: Callable[[Any], None] = lambda conn: conn.close(),
    ) -> None:
        """``connect_reader`` opens the connection a load reads through, ``release`` hands
        it back once the load is over."""
        self._connect_reader = connect_reader
        self._release = release
        self._source = source
        self._background = background
        self._snapshot: Snapshot | None = None
        self._loading = threading.Lock()
        self._declined_version: int | None = None
        self._queries = 0
        self._closed = False

    def knn(
        self, conn: Any, query: np.ndarray, filters: SearchFilters, k: int
    ) -> list[ChunkScore] | None:
        version = vectors_version(conn)
        snapshot = self._snapshot
        self._queries += 1
        if snapshot is None or snapshot.version != version:
            # a one-shot process (a single CLI search) never pays for a load it cannot use
            if version != self._declined_version and self._queries > 1:
                self._refresh()
            return None
        if snapshot.quantized is None:
            picked, scores = snapshot.nearest(query, filters, k)
        else:
            rescored = max(RESCORE_MIN, min(RESCORE_MAX, k + 10))
            picked, scores = snapshot.nearest(query, filters, max(k, rescored))
            picked, scores = rescore_exact(
                lambda ids: self._source.stored_vectors(conn, ids),
                snapshot,
                query,
                picked,
                scores,
                rescored,
            )
            picked, scores = picked[:k], scores[:k]
        return [
            ChunkScore(
                int(snapshot.chunk_ids[i]),
                snapshot.work_names[snapshot.work_codes[i]],
                float(score),
            )
            for i, score in zip(picked, scores, strict=True)
        ]

    def owners(self, conn: Any, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The works of those chunks the current copy holds ({} without a current copy):
        the rest are read from the library by the caller."""
        snapshot = self._snapshot
        if snapshot is None or snapshot.version != vectors_version(conn):
            return {}
        return snapshot.owners(chunk_ids)

    def close(self) -> None:
        """Start no more loads and wait for a running one, so nothing reads the library
        after it is closed (a SQLite library in a temporary folder could not be deleted
        while a load was still opening it; a PostgreSQL pool could not close)."""
        self._closed = True
        self.wait_until_loaded()
        self._snapshot = None

    def _refresh(self) -> None:
        if self._closed or not self._loading.acquire(blocking=False):
            return  # closed, or a load is already under way
        if self._background:
            threading.Thread(target=self._load, daemon=True, name="prioris-vectors").start()
        else:
            self._load()

    def _load(self) -> None:
        try:
            self._snapshot = None  # stale anyway: free it before its successor loads
            conn = self._connect_reader()
            try:
                snapshot = self._source.load(conn)
                if snapshot is None:
                    self._declined_version = vectors_version(conn)
                self._snapshot = snapshot
            finally:
                self._release(conn)
        finally:
            self._loading.release()

    def wait_until_loaded(self, timeout: float = 60.0) -> bool:
        """For batch callers and benchmarks: block until a running load has finished."""
        if self._loading.acquire(timeout=timeout):
            self._loading.release()
            return True
        return False
