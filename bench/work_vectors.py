"""One vector per work (title + abstract as one unit) beside the chunk vectors, bench-only.

The product embeds each chunk with its work's title line (``pipeline.embedding_text``) and
scores a work in vector mode by its best chunk. This variant adds a vector per work,
``title + "\\n" + abstract`` (the works row's abstract, else its whole text: a BEIR record
is its abstract), embedded by the same real model through the embedding cache (so it is
computed once) and kept in memory, and scores a work as

- ``("max", _)``: the larger of its best chunk's cosine and its work vector's cosine;
- ``("mix", w)``: ``w x work cosine + (1 - w) x best chunk cosine`` (``w = 0`` is the
  control: best chunk only, through this exact float32 path).

The KNN answers one entry per work (its best chunk's id, so snippets and Rocchio's
feedback passages stay chunks), which ``scoring.top_works`` collapses unchanged. MiniLM
reads at most 256 word pieces, so a long abstract's tail is not in its work vector.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from prioris.ingest.pipeline import embedding_text
from prioris.search.backends import ChunkScore
from prioris.storage.sqlite_index import VEC_TABLE

BATCH = 256


class WorkVectors:
    """Every chunk vector and one vector per work of a library, exact float32 scores."""

    def __init__(self, conn: Any, embedder: Any, name: str) -> None:
        rows = conn.execute(
            f"SELECT v.chunk_id, c.work_id, v.embedding FROM {VEC_TABLE} v "
            "JOIN chunks c ON c.id = v.chunk_id ORDER BY c.work_id, v.chunk_id"
        ).fetchall()
        self.chunk_ids = np.array([r[0] for r in rows], dtype=np.int64)
        self.chunks = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
        works = conn.execute(
            "SELECT id, title, coalesce(nullif(abstract, ''), markdown) FROM works ORDER BY id"
        ).fetchall()
        self.work_ids = [str(w[0]) for w in works]
        index = {w: i for i, w in enumerate(self.work_ids)}
        self.chunk_work = np.array([index[str(r[1])] for r in rows], dtype=np.int64)
        texts = [embedding_text(w[1] or "", (w[2] or "").strip()) for w in works]
        parts = []
        for start in range(0, len(texts), BATCH):
            parts.append(embedder.embed_passages(texts[start : start + BATCH]))
            if start and start % (BATCH * 8) == 0:
                print(f"  {name}: work vectors {start}/{len(texts)}", file=sys.stderr, flush=True)
        self.works = np.vstack(parts).astype(np.float32)

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
        work_scores = self.works @ q
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
