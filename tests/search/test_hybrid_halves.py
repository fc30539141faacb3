"""Hybrid's two halves in threads or in turn give the same hits; vector mode stays in the
caller's thread (issue 26: the hand-off only added a wake-up)."""

from __future__ import annotations

import threading
from typing import Any

import pytest


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


RECORDS = [
    {
        "_id": f"w{i}",
        "title": f"Peatland study {i}",
        "year": 2000 + i,
        "source": "import" if i % 2 else "arxiv",
        "text": (
            f"Peat bogs store carbon in layer {i % 5} of sphagnum moss. "
            f"Drainage releases {i} tonnes of carbon dioxide while rewetting slows it. "
            + ("Methane emissions rise after rewetting. " * (i % 3))
        ),
    }
    for i in range(24)
]


@pytest.fixture
def filled(library):  # type: ignore[no-untyped-def]
    assert len(library.import_records(RECORDS).ingested) == len(RECORDS)
    return library


def _answer(library: Any, query: str, **kwargs: Any) -> list[dict[str, Any]]:
    return [hit.to_dict() for hit in library.search(query, mode="hybrid", **kwargs).hits]


@pytest.mark.parametrize("chunks", [False, True])
@pytest.mark.parametrize("filters", [{}, {"source": "arxiv", "from_year": 2004}])
def test_threaded_and_sequential_halves_give_the_same_hits(filled, chunks, filters) -> None:  # type: ignore[no-untyped-def]
    searcher = filled.searcher
    for query, k in (("carbon drainage rewetting", 5), ("methane emissions", 10), ("moss", 3)):
        searcher.parallel_halves = True
        threaded = _answer(filled, query, k=k, chunks=chunks, **filters)
        searcher.parallel_halves = False
        sequential = _answer(filled, query, k=k, chunks=chunks, **filters)
        assert threaded, query
        assert sequential == threaded, query


def test_where_each_half_runs(filled, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Hybrid's KNN runs in the worker thread beside FTS (or in turn when told); vector
    mode's, and a hybrid query with no FTS words, in the caller's thread."""
    backend = filled.searcher.backend
    threads: list[str] = []
    knn = backend.knn

    def recording(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return knn(*args, **kwargs)

    monkeypatch.setattr(backend, "knn", recording)
    caller = threading.current_thread().name

    def ran_in(query: str, mode: str) -> set[str]:
        threads.clear()
        filled.search(query, mode=mode, k=3)
        assert threads
        return set(threads)

    filled.searcher.parallel_halves = True
    assert ran_in("carbon", "vector") == {caller}
    assert {name.startswith("prioris-knn") for name in ran_in("carbon", "hybrid")} == {True}
    assert ran_in("!!!", "hybrid") == {caller}  # no word for FTS: no half to overlap
    filled.searcher.parallel_halves = False
    assert ran_in("carbon", "hybrid") == {caller}
