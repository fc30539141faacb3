"""Work-level scores from passage scores.

A work is found through its passages. ``decay = 0`` scores a work by its best passage
alone (the order of the passage list, as before); ``decay > 0`` adds the work's next
passages with geometrically falling weights, ``best + decay * (second - floor) +
decay**2 * (third - floor) ...``, so a work that matches in several places outranks one
with a single lucky passage of the same strength. ``floor`` is the lowest score in the
list: a further passage counts by how far it stands above what merely made the list, so
cosine scores (which sit in a narrow band well above zero) and BM25 scores are treated
alike, and a passage at the floor adds nothing. Only the passages present in the list
count (it is a prefix of the index's ranking), which is what a search can afford.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from prioris.search.protocols import ChunkScore, best_per_work


def collapse(scores: Sequence[ChunkScore], decay: float = 0.0) -> list[ChunkScore]:
    """One entry per work: its best chunk, with the work's score; best work first.

    ``scores`` is ordered best first (higher score is better). With ``decay == 0`` the
    result keeps that order and each work's best score unchanged.
    """
    if decay <= 0.0:
        return best_per_work(scores)
    best: dict[str, ChunkScore] = {}
    total: dict[str, float] = {}
    weight: dict[str, float] = {}
    floor = min(item.score for item in scores) if scores else 0.0
    for item in scores:  # best first, so each work's passages arrive in falling order
        if item.work_id not in best:
            best[item.work_id] = item
            total[item.work_id] = item.score
            weight[item.work_id] = decay
        else:
            total[item.work_id] += weight[item.work_id] * (item.score - floor)
            weight[item.work_id] *= decay
    order = sorted(best, key=lambda w: -total[w])  # stable: ties keep the list's order
    return [ChunkScore(best[w].chunk_id, w, total[w]) for w in order]


def top_works(
    fetch: Callable[[int], list[ChunkScore]],
    k: int,
    *,
    cap: int | None,
    decay: float = 0.0,
) -> list[ChunkScore]:
    """The top ``k`` works from a chunk ranking: fetch 4x as many chunks as works wanted,
    and more while too few distinct works came back and more chunks exist (``cap`` is the
    backend's ceiling on one fetch)."""
    limit = k * 4 if cap is None else min(k * 4, cap)
    while True:
        rows = fetch(limit)
        works = collapse(rows, decay)
        if len(works) >= k or len(rows) < limit or (cap is not None and limit >= cap):
            return works[:k]
        limit = limit * 4 if cap is None else min(limit * 4, cap)


def with_work_vectors(
    works: Sequence[ChunkScore],
    vectors: Mapping[str, np.ndarray],
    query: np.ndarray,
    weight: float,
) -> list[ChunkScore]:
    """Works of a vector list (one entry each, its best chunk's cosine) scored
    ``weight x cosine(query, work's own vector) + (1 - weight) x best chunk's cosine``,
    best first (ties keep the list's order). A passage matches one part of a paper, the
    work vector (title + abstract) what the paper is about; a work without one keeps its
    chunk's score, as if both agreed."""
    unit = np.asarray(query, dtype=np.float32)
    unit = unit / max(float(np.linalg.norm(unit)), 1e-12)
    scores = np.array([item.score for item in works], dtype=np.float64)
    rows = [i for i, item in enumerate(works) if _fits(vectors.get(item.work_id), unit)]
    if rows:
        matrix = np.vstack([vectors[works[i].work_id] for i in rows])
        norms = np.maximum(np.linalg.norm(matrix, axis=1), 1e-12)
        cosines = (matrix @ unit) / norms
        scores[rows] = weight * cosines + (1.0 - weight) * scores[rows]
    order = np.argsort(-scores, kind="stable")  # ties keep the list's order
    return [
        ChunkScore(works[i].chunk_id, works[i].work_id, float(scores[i])) for i in order.tolist()
    ]


def _fits(vector: np.ndarray | None, unit: np.ndarray) -> bool:
    """A stored vector the query can be compared with (another model's size is not)."""
    return vector is not None and vector.shape == unit.shape
