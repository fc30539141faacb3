"""The in-memory KNN copy: same hits as vec0, filters included, never used when stale."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from prioris.engines.sqlite import vector_cache
from prioris.engines.sqlite.connection import connect
from prioris.engines.sqlite.queries import vector_search
from prioris.engines.sqlite.vector_cache import VectorCache
from prioris.library import Library
from prioris.search import vector_copy, vector_snapshot
from prioris.search.protocols import SearchFilters


@pytest.fixture
def filled(library: Library, monkeypatch: pytest.MonkeyPatch) -> Library:
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)
    library.import_records(
        [
            {
                "_id": f"w{i}",
                "title": f"Work {i}",
                "year": 1990 + i % 30,
                "source": "arxiv" if i % 3 == 0 else "import",
                "text": f"topic {i % 7} words about item {i} and theme {i % 5}",
            }
            for i in range(120)
        ]
    )
    return library


def _cache(library: Library) -> VectorCache:
    return VectorCache(lambda: connect(library.settings.db_path, migrate=False), background=False)


@pytest.mark.parametrize(
    "filters",
    [
        SearchFilters(),
        SearchFilters(source="arxiv"),
        SearchFilters(from_year=2005),
        SearchFilters(to_year=1995, source="import"),
        SearchFilters(work_ids=("w3", "w4", "w50")),
        SearchFilters(work_ids=("w7",)),  # a single chunk passes: it is the one hit
        SearchFilters(source="nowhere"),
    ],
)
def test_cache_matches_vec0_exactly(filled: Library, filters: SearchFilters) -> None:
    cache = _cache(filled)
    conn = filled.searcher.backend.conn
    query = filled.embedder.embed_query("topic 3 theme 2 item")
    assert cache.knn(conn, query, filters, 15) is None  # a first query never starts a load
    assert cache._snapshot is None
    assert cache.knn(conn, query, filters, 15) is None  # the second loads, answers nothing
    from_memory = cache.knn(conn, query, filters, 15)
    from_vec0 = vector_search(conn, query, filters, 15)
    assert from_memory is not None
    assert len(from_memory) == len(from_vec0)
    assert [c.score for c in from_memory] == pytest.approx([c.score for c in from_vec0], abs=1e-5)
    if from_vec0:  # same hits, up to the order of exact ties (the fake embedder makes many)
        last = from_vec0[-1].score
        above = {(c.chunk_id, c.work_id) for c in from_vec0 if c.score > last + 1e-5}
        assert above == {(c.chunk_id, c.work_id) for c in from_memory if c.score > last + 1e-5}


def test_a_write_makes_the_copy_stale_until_reloaded(filled: Library) -> None:
    cache = _cache(filled)
    conn = filled.searcher.backend.conn
    query = filled.embedder.embed_query("brand new subject")
    cache.knn(conn, query, SearchFilters(), 5)
    cache.knn(conn, query, SearchFilters(), 5)
    assert cache.knn(conn, query, SearchFilters(), 5) is not None
    filled.import_records([{"_id": "fresh", "title": "Brand new subject", "text": "brand new"}])
    assert cache.knn(conn, query, SearchFilters(), 5) is None  # stale: caller asks vec0
    hits = cache.knn(conn, query, SearchFilters(), 5)
    assert hits is not None and hits[0].work_id == "fresh"
    filled.delete(["fresh"])
    assert cache.knn(conn, query, SearchFilters(), 5) is None


def test_small_libraries_keep_no_copy(library: Library) -> None:
    library.import_records([{"_id": "only", "title": "One", "text": "a single record"}])
    cache = _cache(library)
    conn = library.searcher.backend.conn
    query = library.embedder.embed_query("single")
    assert cache.knn(conn, query, SearchFilters(), 5) is None
    assert cache.knn(conn, query, SearchFilters(), 5) is None
    assert cache._snapshot is None


def test_search_results_do_not_change_when_the_copy_takes_over(filled: Library) -> None:
    before = filled.search("topic 4 theme 1", mode="vector", k=10)
    filled.search("topic 4 theme 1", mode="vector", k=10)
    assert filled.searcher.backend.vector_cache.wait_until_loaded(30)
    after = filled.search("topic 4 theme 1", mode="vector", k=10)
    assert filled.searcher.backend.vector_cache._snapshot is not None
    assert [h.score for h in after.hits] == pytest.approx([h.score for h in before.hits])


def _with_undated(filled: Library) -> tuple[VectorCache, Any, Any]:
    """Two works without a year added, and a cache loaded (the second query loads it)."""
    filled.import_records(
        [{"_id": f"undated{i}", "title": f"Undated {i}", "text": "topic 3 theme 2"} for i in (1, 2)]
    )
    cache = _cache(filled)
    conn = filled.searcher.backend.conn
    query = filled.embedder.embed_query("topic 3 theme 2")
    cache.knn(conn, query, SearchFilters(), 5)
    cache.knn(conn, query, SearchFilters(), 5)
    return cache, conn, query


def test_unknown_years_are_out_of_a_to_year_filter_in_memory_too(filled: Library) -> None:
    cache, conn, query = _with_undated(filled)
    unfiltered = cache.knn(conn, query, SearchFilters(), 200)
    assert unfiltered is not None and {"undated1", "undated2"} <= {c.work_id for c in unfiltered}
    for filters in (SearchFilters(to_year=2030), SearchFilters(to_year=2030, source="import")):
        from_memory = cache.knn(conn, query, filters, 200)
        from_vec0 = vector_search(conn, query, filters, 200)
        assert from_memory is not None
        assert {c.work_id for c in from_memory} == {c.work_id for c in from_vec0}
        assert not {c.work_id for c in from_memory} & {"undated1", "undated2"}
        assert len({c.work_id for c in from_memory}) == 120 - (40 if filters.source else 0)


@pytest.mark.parametrize(
    "filters",
    [SearchFilters(), SearchFilters(source="arxiv", from_year=2000), SearchFilters(to_year=1995)],
)
def test_compact_copy_near_exact_with_filters(
    filled: Library, filters: SearchFilters, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the float budget the copy is binary codes plus int8 rows: same filters, k hits,
    scores within quantisation error of vec0's."""
    monkeypatch.setattr(vector_copy, "EXACT_MAX_BYTES", 0)
    cache = _cache(filled)
    conn = filled.searcher.backend.conn
    query = filled.embedder.embed_query("topic 3 theme 2 item")
    cache.knn(conn, query, filters, 15)
    cache.knn(conn, query, filters, 15)
    assert cache._snapshot is not None and cache._snapshot.quantized is not None
    assert cache._snapshot.matrix is None
    from_memory = cache.knn(conn, query, filters, 15)
    from_vec0 = vector_search(conn, query, filters, 15)
    assert from_memory is not None and len(from_memory) == len(from_vec0) == 15
    assert [c.score for c in from_memory] == pytest.approx([c.score for c in from_vec0], abs=0.02)
    allowed = {c.chunk_id for c in vector_search(conn, query, filters, 4096)}
    assert {c.chunk_id for c in from_memory} <= allowed


def test_copy_sizes() -> None:
    assert vector_cache.copy_bytes(500, 384) == 0  # small: vec0
    assert vector_cache.copy_bytes(100_000, 384) == 100_000 * 384 * 4  # exact floats
    assert vector_cache.copy_bytes(190_000, 384) == 190_000 * (384 + 48)  # compact
    # ... and from 200,000 rows its codes again, grouped into lists, with their order
    assert vector_cache.copy_bytes(1_000_000, 384) == 1_000_000 * (384 + 48 + 48 + 8)
    assert vector_cache.copy_bytes(10_000_000, 384) == 0  # too large for memory: vec0


def _compact(filled: Library, monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[Any, Any, Any]:
    """A loaded compact (binary + int8) copy, the reader connection and a query vector."""
    monkeypatch.setattr(vector_copy, "EXACT_MAX_BYTES", 0)
    cache = _cache(filled)
    conn = filled.searcher.backend.conn
    query = filled.embedder.embed_query(text)
    cache.knn(conn, query, SearchFilters(), 5)
    cache.knn(conn, query, SearchFilters(), 5)
    assert cache._snapshot is not None and cache._snapshot.quantized is not None
    return cache, conn, query


def test_compact_copy_rescores_its_best_rows_with_the_stored_floats(
    filled: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """int8 scores err by ~1e-3, the gap between near neighbours: the best rows of the
    compact copy come back with vec0's exact cosine and in vec0's order."""
    cache, conn, query = _compact(filled, monkeypatch, "topic 5 theme 1 item")
    from_memory = cache.knn(conn, query, SearchFilters(), 10)
    from_vec0 = vector_search(conn, query, SearchFilters(), 10)
    assert from_memory is not None
    # the fake embedder gives some chunks the same vector: ties may come in either order
    assert [c.score for c in from_memory] == pytest.approx([c.score for c in from_vec0], abs=1e-5)
    exact = {c.chunk_id: c.score for c in vector_search(conn, query, SearchFilters(), 200)}
    assert all(exact[c.chunk_id] == pytest.approx(c.score, abs=1e-5) for c in from_memory)


def test_a_row_gone_from_vec0_is_dropped_by_the_exact_rescoring(
    filled: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, conn, query = _compact(filled, monkeypatch, "topic 5")
    snapshot = cache._snapshot
    picked, scores = snapshot.nearest(query, SearchFilters(), 5)
    gone = int(snapshot.chunk_ids[picked[0]])
    monkeypatch.setattr(vector_cache, "VEC_TABLE", "chunks_vec_gone")
    conn.execute(
        f"CREATE TEMP VIEW chunks_vec_gone AS SELECT * FROM chunks_vec WHERE chunk_id != {gone}"
    )
    kept, exact = vector_copy.rescore_exact(
        lambda ids: vector_cache.stored_vectors(conn, ids), snapshot, query, picked, scores, 5
    )
    assert gone not in {int(snapshot.chunk_ids[i]) for i in kept}
    assert len(kept) == len(picked) - 1 and list(exact) == sorted(exact, reverse=True)


def test_the_float_copy_scans_on_one_blas_thread(
    filled: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenBLAS's idle threads spin on the cores the query embedding needs next."""
    from threadpoolctl import threadpool_info

    def blas_threads() -> list[int]:
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    seen: list[list[int]] = []
    real = vector_cache.one_blas_thread

    class Recording:
        def __enter__(self) -> None:
            self.inner = real()
            self.inner.__enter__()
            seen.append(blas_threads())

        def __exit__(self, *exc: object) -> None:
            self.inner.__exit__(*exc)

    before = blas_threads()
    monkeypatch.setattr(vector_snapshot, "one_blas_thread", Recording)
    cache = _cache(filled)
    conn = connect(filled.settings.db_path, migrate=False)
    vector = filled.embedder.embed_query("topic 3 words")
    assert cache.knn(conn, vector, SearchFilters(), 5) is None  # first call: loads
    cache.knn(conn, vector, SearchFilters(), 5)
    rows = cache.knn(conn, vector, SearchFilters(), 5)
    conn.close()
    assert rows and seen and all(threads and set(threads) == {1} for threads in seen)
    assert blas_threads() == before  # restored after the scan


def test_closing_waits_for_a_running_load_and_starts_no_other(filled: Library) -> None:
    """A library in a temporary folder could not be deleted: a load still running in the
    background after close opened the file again (``-wal``/``-shm`` reappeared)."""
    import threading

    started, release = threading.Event(), threading.Event()
    real_connect = connect

    def slow_connect() -> Any:
        started.set()
        release.wait(5)
        return real_connect(filled.settings.db_path, migrate=False)

    cache = VectorCache(slow_connect, background=True)
    conn = real_connect(filled.settings.db_path, migrate=False)
    try:
        vector = filled.embedder.embed_query("topic 3")
        for _ in range(2):  # the second query starts the background load
            assert cache.knn(conn, vector, SearchFilters(), 5) is None
        assert started.wait(5)
        closer = threading.Thread(target=cache.close)
        closer.start()
        closer.join(0.2)
        assert closer.is_alive()  # close waits for the load ...
        release.set()
        closer.join(5)
        assert not closer.is_alive()  # ... which then finished
        started.clear()
        assert cache.knn(conn, vector, SearchFilters(), 5) is None
        assert not started.wait(0.3)  # and a closed cache loads nothing more
    finally:
        release.set()
        conn.close()


def test_undated_works_kept_or_counted_the_same_in_memory_and_in_vec0(filled: Library) -> None:
    cache, conn, query = _with_undated(filled)
    for filters in (
        SearchFilters(to_year=1995, include_undated=True),
        SearchFilters(from_year=2015, include_undated=True),
        SearchFilters(from_year=2000, to_year=2001, include_undated=True, source="import"),
        SearchFilters(undated_only=True),
    ):
        from_memory = cache.knn(conn, query, filters, 200)
        from_vec0 = vector_search(conn, query, filters, 200)
        assert from_memory is not None
        assert {c.work_id for c in from_memory} == {c.work_id for c in from_vec0}, filters
        assert {"undated1", "undated2"} <= {c.work_id for c in from_memory}
        scores = [c.score for c in from_vec0]
        assert scores == sorted(scores, reverse=True)  # two KNNs merged in order
    only = vector_search(conn, query, SearchFilters(undated_only=True), 200)
    assert {c.work_id for c in only} == {"undated1", "undated2"}


def _loaded(library: Library) -> VectorCache:
    cache = _cache(library)
    conn = library.searcher.backend.conn
    query = library.embedder.embed_query("anything")
    cache.knn(conn, query, SearchFilters(), 1)
    cache.knn(conn, query, SearchFilters(), 1)  # the second query loads the copy
    assert cache._snapshot is not None
    return cache


def _table_owners(library: Library) -> dict[int, str]:
    conn = library.searcher.backend.conn
    return {int(r[0]): r[1] for r in conn.execute("SELECT id, work_id FROM chunks")}


def test_the_copy_names_each_chunks_work_as_the_table_does(filled: Library) -> None:
    cache = _loaded(filled)
    conn = filled.searcher.backend.conn
    table = _table_owners(filled)
    ids = [*sorted(table, reverse=True)[:50], 0, -3, max(table) + 10**6]  # + never stored
    owners = cache.owners(conn, ids)
    assert owners == {c: table[c] for c in ids if c in table}
    assert cache.owners(conn, []) == {}


def test_a_copy_in_another_order_than_the_ids_still_finds_each_chunk(filled: Library) -> None:
    import dataclasses

    cache = _loaded(filled)
    snap = cache._snapshot
    assert snap is not None
    turned = np.arange(len(snap.chunk_ids))[::-1]  # rows as vec0 might hand them out
    shuffled = vector_cache.Snapshot(
        **{
            **{f.name: getattr(snap, f.name) for f in dataclasses.fields(snap)},
            "chunk_ids": snap.chunk_ids[turned],
            "work_codes": snap.work_codes[turned],
            "sorted_ids": snap.chunk_ids,
            "sorted_rows": turned,
        }
    )
    table = _table_owners(filled)
    assert shuffled.owners(list(table)) == table


def test_load_sorts_ids_it_reads_out_of_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """vec0 hands rows out in its own order: a copy read out of order keeps a sorted view."""
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 1)

    class Conn:
        def __init__(self) -> None:
            self.rows = [(9, b"\0" * 8, "w9", "s", 2001), (4, b"\0" * 8, "w4", "s", 2002)]

        def execute(self, sql: str, params: Any = None) -> Any:
            class Cursor:
                def __init__(self, rows: list[Any]) -> None:
                    self._rows = rows

                def fetchone(self) -> Any:
                    return self._rows[0]

                def fetchall(self) -> list[Any]:
                    return self._rows

                def fetchmany(self, n: int) -> list[Any]:
                    out, self._rows = self._rows[:n], self._rows[n:]
                    return out

            if "count(*)" in sql:
                return Cursor([(2,)])
            if "embedding_dim" in sql:
                return Cursor([("2",)])
            if params and "vectors_version" in params:
                return Cursor([("5",)])
            if sql.startswith("SELECT chunk_id"):
                return Cursor(list(self.rows))
            return Cursor([])

    snap = vector_cache.load_snapshot(Conn())
    assert snap is not None
    assert snap.owners([4, 9, 5]) == {4: "w4", 9: "w9"}
    assert list(snap.sorted_ids) == [4, 9] and list(snap.sorted_rows) == [1, 0]


def test_a_stale_copy_names_no_work(filled: Library) -> None:
    cache = _loaded(filled)
    conn = filled.searcher.backend.conn
    some = list(_table_owners(filled))[:5]
    filled.import_records([{"_id": "later", "title": "Later", "text": "a later work"}])
    assert cache.owners(conn, some) == {}  # stale: the caller reads the table


def test_fts_hits_are_the_same_with_the_copy_naming_their_works(
    filled: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prioris.engines.sqlite import search as sqlite_search

    read: list[int] = []  # chunk ids whose works were read from the table
    batches = sqlite_search._batches
    monkeypatch.setattr(
        sqlite_search, "_batches", lambda items: read.extend(items) or batches(items)
    )
    backend = filled.searcher.backend
    expression = '"topic" OR "item" OR "theme"'
    from_table = backend._with_works([(c, 1.0) for c in sorted(_table_owners(filled))])
    assert backend.vector_cache.owners(backend.conn, [1, 2, 3]) == {}
    backend.vector_cache._background = False
    query = filled.embedder.embed_query("topic 1")
    for _ in range(2):
        backend.vector_cache.knn(backend.conn, query, SearchFilters(), 1)
    assert backend.vector_cache.owners(backend.conn, [from_table[0].chunk_id])
    read.clear()
    from_copy = backend._with_works([(c, 1.0) for c in sorted(_table_owners(filled))])
    assert from_copy == from_table and read == []  # every work named by the copy
    from_both = backend._with_works([(c, 1.0) for c in [*sorted(_table_owners(filled)), 10**9]])
    assert from_both == from_table and read == [10**9]  # the one it lacks: the table
    assert backend.fts(expression, SearchFilters(), 10, title_weight=0.0)


def test_a_large_compact_copy_is_loaded_with_its_lists_and_scans_them(
    filled: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past PARTITION_MIN_ROWS the load groups the rows into k-means lists and an
    unfiltered query reads them (here every list is probed, so the list is vec0's)."""
    from prioris.search import quantized

    monkeypatch.setattr(quantized, "PARTITION_MIN_ROWS", 50)  # 120 chunks: lists
    monkeypatch.setattr(quantized, "MIN_CANDIDATES", 20)  # a pass that prunes
    monkeypatch.setattr(quantized, "CANDIDATES_PER_HIT", 1)
    monkeypatch.setattr(quantized, "MIN_PROBES", 100)  # every list
    probed: list[int] = []
    real = quantized.Partition.positions

    def counting(self: Any, centred: np.ndarray, probes: int) -> np.ndarray:
        found = real(self, centred, probes)
        probed.append(len(found))
        return found

    monkeypatch.setattr(quantized.Partition, "positions", counting)
    cache, conn, query = _compact(filled, monkeypatch, "topic 2 theme 4 item")
    partition = cache._snapshot.quantized.partition
    assert partition is not None and len(partition.centres) == int(np.sqrt(120))
    from_memory = cache.knn(conn, query, SearchFilters(), 10)
    assert probed == [120]  # the lists were read, every row of them
    from_vec0 = vector_search(conn, query, SearchFilters(), 10)
    assert [c.score for c in from_memory] == pytest.approx([c.score for c in from_vec0], abs=1e-5)
    cache.knn(conn, query, SearchFilters(source="arxiv"), 10)
    assert probed == [120]  # a filtered query scans every row instead
