"""Each leg's candidate list: the BM25 and the vector ranking, as passages or as works.

A works list takes each work's best passages (:func:`~prioris.search.scoring.top_works`,
fetching deeper until it has enough works); the vector leg then blends in each work's
own vector (:func:`~prioris.search.scoring.with_work_vectors`) over a wider pool when the
backend keeps them. :class:`~prioris.search.service.SearchService` decides which legs run,
in which thread, and fuses them; how one leg's list is gathered is this module's job. The
service keeps its ``_fts`` and ``_nearest`` methods (benches swap and time them) and
calls these.
"""

from __future__ import annotations

import numpy as np

from prioris.search.fusion_config import FusionConfig
from prioris.search.protocols import (
    VEC_MAX_K,
    ChunkScore,
    SearchBackend,
    SearchFilters,
    WorkVectors,
)
from prioris.search.scoring import collapse, top_works, with_work_vectors


def fts_candidates(
    backend: SearchBackend,
    config: FusionConfig,
    expression: str,
    filters: SearchFilters,
    k: int | None,
    chunks: bool,
    seen: list[ChunkScore] | None = None,
) -> list[ChunkScore]:
    """The BM25 list: ``k`` passages, or ``k`` works (``k=None``: every match); ``seen``
    receives every passage the list was built from."""

    def ranked(limit: int) -> list[ChunkScore]:
        found = backend.fts(expression, filters, limit, title_weight=config.title_weight)
        if seen is not None:
            seen[:] = found  # a longer fetch holds the shorter one
        return found

    decay = config.fts_decay
    if k is None:  # every match (SQLite: LIMIT -1)
        return ranked(-1) if chunks else collapse(ranked(-1), decay)
    return ranked(k) if chunks else top_works(ranked, k, cap=None, decay=decay)


def nearest_candidates(
    backend: SearchBackend,
    config: FusionConfig,
    vector: np.ndarray,
    filters: SearchFilters,
    k: int,
    chunks: bool,
    seen: list[ChunkScore] | None = None,
) -> list[ChunkScore]:
    """The vector list: the ``k`` passages nearest ``vector``, or ``k`` works scored with
    their own vectors too; ``seen`` receives every passage the list was built from."""

    def nearest(limit: int) -> list[ChunkScore]:
        found = backend.knn(vector, filters, limit)
        if seen is not None:
            seen[:] = found  # a longer fetch holds the shorter one
        return found

    if chunks:
        return nearest(k)
    decay, weight = config.vector_decay, config.work_vector_weight
    if weight <= 0 or not isinstance(backend, WorkVectors):
        return top_works(nearest, k, cap=VEC_MAX_K, decay=decay)
    pool = max(config.work_vector_pool, config.work_vector_pool_factor * k)
    found = top_works(nearest, pool, cap=VEC_MAX_K, decay=decay)
    own = backend.work_vectors([item.work_id for item in found])
    return with_work_vectors(found, own, vector, weight)[:k]
