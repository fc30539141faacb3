"""The depth of the compact copy's exact rescoring pool (issue 40).

The compact copy scores rows from int8 codes, whose error (~1e-3 in cosine) is the gap
between near neighbours; the head of its list is scored again from the stored float
vectors: ``k + 10`` rows, at least ``RESCORE_MIN`` (20) and at most ``RESCORE_MAX`` (32),
and the int8 pass is asked for at least that many. On vectors whose cosines to the query
lie closer together than the int8 error, the exact top 10 sits among the int8 top 20 but
not the top 10, so a pool of k rows would return other hits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from prioris.search import vector_copy
from prioris.search.protocols import SearchFilters
from prioris.search.vector_copy import RowBatch, build_snapshot

DIM, ROWS = 64, 3_000


class _Source:
    """A VectorSource over arrays, recording which stored vectors were read back."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.reads: list[list[int]] = []

    def load(self, conn: Any) -> Any:
        batch = RowBatch(
            chunk_ids=list(range(1, ROWS + 1)),
            vectors=self.vectors,
            work_ids=[f"w{i}" for i in range(1, ROWS + 1)],
            sources=["import"] * ROWS,
            years=[2020] * ROWS,
        )
        return build_snapshot(1, ROWS, DIM, lambda: self.vectors[:1000], [batch])

    def stored_vectors(self, conn: Any, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        self.reads.append(list(chunk_ids))
        return {c: self.vectors[c - 1] for c in chunk_ids}


@pytest.fixture
def near_ties(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, _Source, np.ndarray]:
    """A loaded compact copy of 3,000 rows, 400 of them at cosine 0.90 to 0.95 to a query."""
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)
    monkeypatch.setattr(vector_copy, "EXACT_MAX_BYTES", 0)
    monkeypatch.setattr(vector_copy, "vectors_version", lambda conn: 1)
    rng = np.random.default_rng(11)
    query = rng.standard_normal(DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    rows = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    # 400 rows at cosine 0.9 to 0.95: neighbours 1e-4 apart, below the int8 error
    other = rows[:400] - (rows[:400] @ query)[:, None] * query
    other /= np.linalg.norm(other, axis=1, keepdims=True)
    cosine = 0.9 + rng.uniform(0, 0.05, 400).astype(np.float32)
    rows[:400] = cosine[:, None] * query + np.sqrt(1 - cosine**2)[:, None] * other
    source = _Source(rows)
    cache = vector_copy.VectorCache(lambda: None, source, background=False, release=lambda c: None)
    assert cache.knn(None, query, SearchFilters(), 10) is None  # a first query never loads
    assert cache.knn(None, query, SearchFilters(), 10) is None  # the second loads
    assert cache._snapshot is not None and cache._snapshot.quantized is not None
    return cache, source, query


@pytest.mark.parametrize(("k", "depth"), [(1, 20), (10, 20), (15, 25), (22, 32), (40, 32)])
def test_the_head_rescored_from_floats_is_k_plus_10_between_20_and_32(
    near_ties: tuple[Any, _Source, np.ndarray], k: int, depth: int
) -> None:
    cache, source, query = near_ties
    source.reads.clear()
    hits = cache.knn(None, query, SearchFilters(), k)
    assert [len(ids) for ids in source.reads] == [depth]
    assert len(hits) == k
    exact = {c: float(source.vectors[c - 1] @ query) for c in source.reads[0]}
    # the pool's rows come back with their exact cosine, best first
    head = [h for h in hits if h.chunk_id in exact]
    assert len(head) == min(k, depth)
    assert [h.score for h in head] == pytest.approx([exact[h.chunk_id] for h in head], abs=1e-6)
    assert [h.chunk_id for h in head] == sorted(exact, key=lambda c: -exact[c])[: len(head)]


def test_the_pool_finds_the_exact_top_10_the_int8_order_misses(
    near_ties: tuple[Any, _Source, np.ndarray],
) -> None:
    cache, source, query = near_ties
    snapshot = cache._snapshot
    picked, _ = snapshot.nearest(query, SearchFilters(), 10)  # the int8 top 10 alone
    int8_only = {int(snapshot.chunk_ids[i]) for i in picked}
    truth = set((np.argsort(-(source.vectors @ query), kind="stable")[:10] + 1).tolist())
    hits = {h.chunk_id for h in cache.knn(None, query, SearchFilters(), 10)}
    assert len(hits & truth) >= 9  # the pool of 20: 9 (of 10: 6, of 32: 10)
    assert len(hits & truth) > len(int8_only & truth)  # ... which int8 alone misses
