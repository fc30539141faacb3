"""An in-memory copy of the vector index that answers KNN with one matrix product.

sqlite-vec's ``vec0`` stays the index of record (it persists the vectors and answers
whenever this copy cannot); at 100,000 chunks its brute-force scan costs tens of
milliseconds per query on two cores, while ``matrix @ query`` costs a few. The copy is
loaded in the background once the library is large enough to need it, is tagged with the
``vectors_version`` counter that every vector write bumps in the same transaction, and is
used only while that counter has not moved: a stale copy is never consulted. Filters are
boolean masks over the same metadata the ``vec0`` table carries, so results are the same
exact KNN either way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from prioris.search.backends import ChunkScore, SearchFilters
from prioris.storage.chunks import VEC_TABLE, vectors_version

MIN_VECTORS = 20_000  # below this vec0 is already fast: no copy kept
MAX_BYTES = 1 << 30  # above this the copy would cost too much memory: vec0 only


@dataclass(frozen=True)
class Snapshot:
    version: int
    chunk_ids: np.ndarray
    matrix: np.ndarray
    work_codes: np.ndarray
    work_names: list[str]
    work_index: dict[str, int]
    source_codes: np.ndarray
    source_index: dict[str, int]
    years: np.ndarray

    def mask(self, filters: SearchFilters) -> np.ndarray | None:
        keep: np.ndarray | None = None

        def both(cond: np.ndarray) -> None:
            nonlocal keep
            keep = cond if keep is None else keep & cond

        if filters.source:
            both(self.source_codes == self.source_index.get(filters.source, -1))
        if filters.from_year is not None:
            both(self.years >= filters.from_year)
        if filters.to_year is not None:
            both((self.years <= filters.to_year) & (self.years > 0))
        if filters.work_ids is not None:
            codes = [self.work_index[w] for w in filters.work_ids if w in self.work_index]
            both(np.isin(self.work_codes, np.asarray(codes, dtype=np.int64)))
        return keep


def load_snapshot(conn: Any) -> Snapshot | None:
    """Read the whole vector table in one read transaction (a consistent snapshot)."""
    conn.execute("BEGIN")
    try:
        version = vectors_version(conn)
        count = conn.execute(
            "SELECT count(*) FROM chunks WHERE embedding_model IS NOT NULL"
        ).fetchone()[0]
        dim_row = conn.execute("SELECT value FROM index_state WHERE key = 'embedding_dim'")
        dim = int(dim_row.fetchone()[0])
        if count < MIN_VECTORS or count * dim * 4 > MAX_BYTES:
            return None
        rows = conn.execute(
            f"SELECT chunk_id, embedding, work_id, source, year FROM {VEC_TABLE}"
        ).fetchall()
    finally:
        conn.execute("COMMIT")
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
    matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    work_names, work_codes = np.unique(
        np.array([r[2] for r in rows], dtype=object), return_inverse=True
    )
    source_names, source_codes = np.unique(
        np.array([r[3] for r in rows], dtype=object), return_inverse=True
    )
    return Snapshot(
        version=version,
        chunk_ids=np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        matrix=np.ascontiguousarray(matrix, dtype=np.float32),
        work_codes=work_codes.astype(np.int64),
        work_names=[str(w) for w in work_names],
        work_index={str(w): i for i, w in enumerate(work_names)},
        source_codes=source_codes.astype(np.int64),
        source_index={str(s): i for i, s in enumerate(source_names)},
        years=np.fromiter((r[4] or 0 for r in rows), dtype=np.int64, count=len(rows)),
    )


class VectorCache:
    """Exact KNN from memory while fresh; ``None`` tells the caller to ask ``vec0``."""

    def __init__(self, connect_reader: Callable[[], Any], *, background: bool = True) -> None:
        self._connect_reader = connect_reader
        self._background = background
        self._snapshot: Snapshot | None = None
        self._loading = threading.Lock()
        self._declined_version: int | None = None
        self._queries = 0

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
        scores = snapshot.matrix @ np.asarray(query, dtype=np.float32)
        mask = snapshot.mask(filters)
        if mask is None:  # no filter: rank every row in place, no index copies
            top = min(k, len(scores))
            part = np.argpartition(scores, len(scores) - top)[len(scores) - top :]
            picked = part[np.argsort(-scores[part], kind="stable")]
        else:
            candidates = np.flatnonzero(mask)
            if len(candidates) == 0:
                return []
            chosen = scores[candidates]
            top = min(k, len(candidates))
            part = np.argpartition(-chosen, top - 1)[:top]
            picked = candidates[part[np.argsort(-chosen[part], kind="stable")]]
        return [
            ChunkScore(
                int(snapshot.chunk_ids[i]),
                snapshot.work_names[snapshot.work_codes[i]],
                float(scores[i]),
            )
            for i in picked
        ]

    def _refresh(self) -> None:
        if not self._loading.acquire(blocking=False):
            return  # a load is already under way
        if self._background:
            threading.Thread(target=self._load, daemon=True, name="prioris-vectors").start()
        else:
            self._load()

    def _load(self) -> None:
        try:
            conn = self._connect_reader()
            try:
                snapshot = load_snapshot(conn)
                if snapshot is None:
                    self._declined_version = vectors_version(conn)
                    self._snapshot = None
                else:
                    self._snapshot = snapshot
            finally:
                conn.close()
        finally:
            self._loading.release()

    def wait_until_loaded(self, timeout: float = 60.0) -> bool:
        """For batch callers and benchmarks: block until a running load has finished."""
        if self._loading.acquire(timeout=timeout):
            self._loading.release()
            return True
        return False
