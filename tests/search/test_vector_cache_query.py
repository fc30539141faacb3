"""The in-memory vector copy scores any query vector as float32, as vec0 does.

A query may arrive as float64 (a vector moved by pseudo-relevance feedback, a caller's
own NumPy array): the copy casts it, so its scores, and so its order among near ties,
are those of the float32 query, whatever type the query came in.
"""

from __future__ import annotations

import numpy as np
import pytest

from prioris.engines.sqlite import vector_cache
from prioris.engines.sqlite.connection import connect
from prioris.engines.sqlite.vector_cache import VectorCache
from prioris.library import Library
from prioris.search.protocols import SearchFilters


@pytest.fixture
def filled(library: Library, monkeypatch: pytest.MonkeyPatch) -> Library:
    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 10)
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
