"""The HNSW build's memory follows the rows it indexes (no server needed)."""

from __future__ import annotations

from prioris.engines.postgres.index import HNSW_MEMORY_CEILING_MB, hnsw_build_memory


def test_a_small_build_gets_the_floor() -> None:
    assert hnsw_build_memory(0) == "256MB"
    assert hnsw_build_memory(50_000) == "256MB"


def test_a_million_vectors_get_room_for_the_whole_graph() -> None:
    # 2.5 KB a row: about 2.4 GB for a million, so pgvector never spills the graph
    assert hnsw_build_memory(1_000_000) == "2505MB"


def test_the_ceiling_holds_for_any_size() -> None:
    assert hnsw_build_memory(10**9) == f"{HNSW_MEMORY_CEILING_MB}MB"
