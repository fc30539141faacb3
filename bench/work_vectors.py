"""The exact form of the work-vector score, bench-only: every work scored from memory.

The product (``scoring.with_work_vectors``) rescores the first works of the chunk KNN with
their stored vectors (``storage/work_vectors.py``, title + abstract). This form scores
every work of the library exactly, from every chunk vector and every stored work vector
held in float32, which is what the product's pool is checked against
(``bench_beir.py --group workvec``):

- ``("max", _)``: the larger of its best chunk's cosine and its work vector's cosine;
- ``("mix", w)``: ``w x work cosine + (1 - w) x best chunk cosine`` (``w = 0`` is the
  control: best chunk only, through this exact float32 path).

The KNN answers one entry per work (its best chunk's id, so snippets and Rocchio's
feedback passages stay chunks), which ``scoring.top_works`` collapses unchanged. A work
without a stored vector of the library's model counts its best chunk for both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from prioris.engines.sqlite.index import VEC_TABLE
from prioris.search.protocols import ChunkScore
from prioris.storage import work_vectors as work_vector_store


class WorkVectors:
    """Every chunk vector and every stored work vector of a library, exact float32 scores."""

    def __init__(self, conn: Any) -> None:
        rows = conn.execute(
            f"SELECT v.chunk_id, c.work_id, v.embedding FROM {VEC_TABLE} v "
            "JOIN chunks c ON c.id = v.chunk_id ORDER BY c.work_id, v.chunk_id"
        ).fetchall()
        self.chunk_ids = np.array([r[0] for r in rows], dtype=np.int64)
        self.chunks = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
        self.work_ids = [str(w[0]) for w in conn.execute("SELECT id FROM works ORDER BY id")]
        index = {w: i for i, w in enumerate(self.work_ids)}
        self.chunk_work = np.array([index[str(r[1])] for r in rows], dtype=np.int64)
        stored = work_vector_store.read(conn, self.work_ids)
        self.works = np.zeros((len(self.work_ids), self.chunks.shape[1]), dtype=np.float32)
        self.has_own = np.zeros(len(self.work_ids), dtype=bool)
        for work_id, vector in stored.items():
            self.works[index[work_id]] = vector / max(float(np.linalg.norm(vector)), 1e-12)
            self.has_own[index[work_id]] = True

    def knn(self, query: np.ndarray, limit: int, how: tuple[str, float]) -> list[ChunkScore]:
        """Works by the variant's score, best first, each with its best chunk's id."""
        q = np.asarray(query, dtype=np.float32)
        chunk_scores = self.chunks @ q
        best = np.full(len(self.work_ids), -np.inf, dtype=np.float32)
        np.maximum.at(best, self.chunk_work, chunk_scores)
        order = np.lexsort((-chunk_scores, self.chunk_work))  # per work, best chunk first
        first = np.ones(len(order), dtype=bool)
        first[1:] = self.chunk_work[order][1:] != self.chunk_work[order][:-1]
        best_chunk = np.zeros(len(self.work_ids), dtype=np.int64)
        best_chunk[self.chunk_work[order][first]] = self.chunk_ids[order][first]
        work_scores = np.where(self.has_own, self.works @ q, best)  # none: its chunk's
        kind, weight = how
        if kind == "max":
            scores = np.maximum(best, work_scores)
        else:
            scores = weight * work_scores + (1 - weight) * best
        has_chunks = np.isfinite(best)
        candidates = np.flatnonzero(has_chunks)
        ranked = candidates[np.argsort(-scores[candidates], kind="stable")]
        if limit >= 0:
            ranked = ranked[:limit]
        return [ChunkScore(int(best_chunk[i]), self.work_ids[i], float(scores[i])) for i in ranked]
