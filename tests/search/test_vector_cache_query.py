"""The in-memory vector copy scores any query vector as float32, as vec0 does.

A query may arrive as float64 (a vector moved by pseudo-relevance feedback, a caller's
own NumPy array): the copy casts it, so its scores, and so its order among near ties,
are those of the float32 query, whatever type the query came in.
"""

from __future__ import annotations

import numpy as np
import pytest

from prioris.engines.sqlite.connection import connect
from prioris.engines.sqlite.vector_cache import VectorCache
from prioris.library import Library
from prioris.search import vector_copy
from prioris.search.protocols import SearchFilters


@pytest.fixture
def filled(library: Library, monkeypatch: pytest.MonkeyPatch) -> Library:
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)
    library.import_records(
        [
            {"_id": f"w{i}", "title": f"Work {i}", "text": f"topic {i % 7} item {i} theme {i % 5}"}
            for i in range(60)
        ]
    )
    return library


@pytest.mark.parametrize("filters", [SearchFilters(), SearchFilters(work_ids=("w3", "w4", "w9"))])
def test_a_float64_query_scores_as_its_float32_cast(
    filled: Library, filters: SearchFilters
) -> None:
    cache = VectorCache(lambda: connect(filled.settings.db_path, migrate=False), background=False)
    conn = connect(filled.settings.db_path, migrate=False)
    try:
        dim = len(filled.embedder.embed_query("topic"))
        query64 = np.random.default_rng(5).normal(size=dim)  # float64, full mantissa
        query32 = query64.astype(np.float32)
        assert not np.array_equal(query64, query32.astype(np.float64))
        cache.knn(conn, query32, filters, 5)  # a one-shot caller never loads a copy:
        cache.knn(conn, query32, filters, 5)  # the second call loads it
        as32 = cache.knn(conn, query32, filters, 5)
        as64 = cache.knn(conn, query64, filters, 5)
        assert as32 and as64 == as32  # the same chunks and the very same scores
    finally:
        conn.close()
        cache.close()


def test_chunk_ids_past_float64s_integers_come_back_exact(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunk ids are SQLite's int64 rowids: the copy keeps them as integers, so an id past
    2**53 (odd ones have no float64) is the id vec0 holds, not a neighbour."""
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)
    library.import_records([{"_id": "w0", "title": "Work 0", "text": "topic 0 item 0"}])
    high = (1 << 53) + 10
    with library.lock:  # the next chunks are numbered on from the highest id
        library.conn.execute("BEGIN IMMEDIATE")
        library.conn.execute(
            "INSERT INTO chunks(id, work_id, ordinal, text, page_start, page_end, char_start, "
            "char_end) VALUES (?, 'w0', 99, 'placeholder', 1, 1, 0, 11)",
            (high,),
        )
        library.conn.execute("COMMIT")
    library.import_records(
        [
            {"_id": f"w{i}", "title": f"Work {i}", "text": f"topic {i} item {i}"}
            for i in range(1, 40)
        ]
    )
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        library.conn.execute("DELETE FROM chunks WHERE id = ?", (high,))
        library.conn.execute("COMMIT")
        owner = dict(library.conn.execute("SELECT id, work_id FROM chunks").fetchall())
    assert sum(1 for i in owner if i > high and i % 2) >= 10  # odd ids past 2**53
    cache = VectorCache(lambda: connect(library.settings.db_path, migrate=False), background=False)
    conn = connect(library.settings.db_path, migrate=False)
    try:
        query = library.embedder.embed_query("topic 7 item 7")
        cache.knn(conn, query, SearchFilters(), 40)
        cache.knn(conn, query, SearchFilters(), 40)
        found = cache.knn(conn, query, SearchFilters(), 40)
        assert sorted(c.chunk_id for c in found) == sorted(owner)  # each id once, exact
        assert all(owner[c.chunk_id] == c.work_id for c in found)
    finally:
        conn.close()
        cache.close()
