"""A collection or tag filter that matches nothing gives no hits on every search path
(issue 40): fts, vector and hybrid, works and chunks, on SQLite's database path and past
the sizes where the in-memory copies and the faster rankers take over.

The service turns a label filter into a work-id restriction (``search/request.py``); one
that matches nothing is the *empty* restriction ``work_ids=()``, which any path reading
``if filters.work_ids:`` would take for "no filter" and answer with every hit. The sizes
are lowered here (monkeypatched module constants) so each path runs on 120 chunks:

- the vector copy (``vector_copy.MIN_VECTORS``): exact float rows, the compact copy
  (``EXACT_MAX_BYTES`` 0: binary codes and int8 rows) and the compact copy grouped into
  k-means lists (``quantized.PARTITION_MIN_ROWS``);
- FTS5 ranked in two halves (``engines/sqlite/search.FTS_SPLIT_ROWS``);
- the BM25 postings sidecar (``PostingsRanker.min_rows``), which answers unfiltered
  queries only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prioris.engines.sqlite import postings
from prioris.engines.sqlite import search as sqlite_search
from prioris.library import Library
from prioris.search import quantized, vector_copy
from prioris.search.protocols import SearchFilters
from prioris.storage import labels as label_store

MODES = ("fts", "vector", "hybrid")
PATHS = ("database", "exact copy", "compact copy", "compact copy with lists", "fts halves")
QUERY = "topic 3 theme 2 item"


def _label(library: Library, work_id: str, collections: list[str], tags: list[str]) -> None:
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        label_store.set_labels(library.conn, work_id, "zotero", collections=collections, tags=tags)
        library.conn.execute("COMMIT")


@pytest.fixture
def stocked(library: Library) -> Library:
    """120 works of one chunk each, the words of QUERY in all; w3 and w4 in Thesis."""
    library.import_records(
        [
            {
                "_id": f"w{i}",
                "title": f"Work {i}",
                "year": 1990 + i % 30,
                "text": f"topic {i % 7} words about item {i} and theme {i % 5}",
            }
            for i in range(120)
        ]
    )
    _label(library, "w3", ["Thesis"], ["reef"])
    _label(library, "w4", ["Thesis / Chapter 2"], ["reef", "to-read"])
    _label(library, "w5", ["Reading"], ["to-read"])
    return library


def _take_path(library: Library, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``path`` the one the library's searches take, and check it is loaded."""
    backend = library.searcher.backend
    if path == "fts halves":
        monkeypatch.setattr(sqlite_search, "FTS_SPLIT_ROWS", 1)
    if path in ("database", "fts halves"):
        return
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)
    if path != "exact copy":
        monkeypatch.setattr(vector_copy, "EXACT_MAX_BYTES", 0)
    if path == "compact copy with lists":
        monkeypatch.setattr(quantized, "PARTITION_MIN_ROWS", 50)
    cache = backend.vector_cache
    cache._background = False
    query = library.embedder.embed_query(QUERY)
    backend.knn(query, SearchFilters(), 5)  # a first query never loads
    backend.knn(query, SearchFilters(), 5)  # the second loads the copy
    snapshot = cache._snapshot
    assert snapshot is not None
    if path == "exact copy":
        assert snapshot.matrix is not None and snapshot.quantized is None
    else:
        assert snapshot.quantized is not None
        with_lists = snapshot.quantized.partition is not None
        assert with_lists == (path == "compact copy with lists")


def _ids(response: Any) -> set[str]:
    return {hit.id for hit in response.hits}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_label_filter_that_matches_nothing_gives_no_hits_on_every_path(
    stocked: Library, monkeypatch: pytest.MonkeyPatch, mode: str, path: str
) -> None:
    _take_path(stocked, path, monkeypatch)
    for chunks in (False, True):
        _no_hits_when_nothing_matches(stocked, mode, chunks)


def _no_hits_when_nothing_matches(lib: Library, mode: str, chunks: bool) -> None:
    search = lib.search
    # the path answers, and a filter that matches keeps exactly its works
    assert len(search(QUERY, mode=mode, chunks=chunks, k=50).hits) == 50
    assert _ids(search(QUERY, mode=mode, chunks=chunks, collections=["thesis"])) == {"w3", "w4"}
    assert _ids(search(QUERY, mode=mode, chunks=chunks, tags=["to-read"])) == {"w4", "w5"}
    # ... and one that matches nothing keeps nothing, never everything
    for empty in (
        {"collections": ["Nowhere"]},
        {"tags": ["nowhere"]},
        {"tags": ["reef", "nowhere"]},  # every tag must be carried
        {"collections": ["Reading"], "tags": ["reef"]},  # each matches, not together
        {"collections": ["Thesis"], "ids": ["w5"]},  # the labels and the ids disagree
        {"collections": ["Thesis"], "from_year": 2019},  # no year of those works
    ):
        got = search(QUERY, mode=mode, chunks=chunks, k=50, **empty)
        assert got.hits == [], (empty, sorted(_ids(got))[:5])


@pytest.mark.parametrize("mode", MODES)
def test_the_postings_sidecar_never_answers_a_filter_that_matches_nothing(
    stocked: Library, mode: str
) -> None:
    """The sidecar ranks unfiltered queries only; an empty label filter is a filter."""
    ranker = stocked.searcher.backend.postings
    ranker.min_rows = 1
    ranker._background = False
    conn = stocked.storage.connect(migrate=False)
    try:
        assert postings.build(conn, Path(ranker.path)) is not None
    finally:
        conn.close()
    before = ranker.answered
    assert len(stocked.search(QUERY, mode=mode, k=50).hits) == 50
    if mode != "vector":
        assert ranker.answered > before  # the sidecar is in use for the unfiltered query
    for empty in ({"collections": ["Nowhere"]}, {"tags": ["reef", "nowhere"]}):
        for chunks in (False, True):
            assert stocked.search(QUERY, mode=mode, chunks=chunks, k=50, **empty).hits == []
