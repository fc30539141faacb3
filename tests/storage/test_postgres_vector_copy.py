"""PostgreSQL's in-process vector copy (:mod:`prioris.engines.postgres.vector_cache`):
exact lists where HNSW is approximate, filters as masks, a write anywhere makes it stale,
and the compact form's head rescored from the table's own vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres.storage import PostgresStorage
from prioris.engines.postgres.vector_cache import PostgresVectors, decode
from prioris.library import Library
from prioris.search import vector_copy
from prioris.search.protocols import SearchFilters

WORDS = ["coral", "reef", "lichen", "moss", "tide", "kelp", "dune", "peat", "fern", "delta"]


def _records(count: int, start: int = 0) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + count):
        words = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(i % 5 + 2))
        out.append(
            {
                "_id": f"w{i}",
                "title": f"Study {i} of {WORDS[i % len(WORDS)]}",
                "text": f"{words} sample {i}",
                "year": 1990 + i % 30,
                "source": "arxiv" if i % 3 == 0 else "openalex",
            }
        )
    return out


def _open(pg_url: str, monkeypatch: pytest.MonkeyPatch, min_chunks: str = "10") -> Library:
    monkeypatch.setenv("PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS", min_chunks)
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)
    return Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())


def _loaded(library: Library) -> Any:
    """The backend with its copy loaded (the second vector query starts the load)."""
    backend = library.searcher.backend
    query = library.embedder.embed_query("coral reef")
    for _ in range(2):
        backend.knn(query, SearchFilters(), 5)
    assert backend.vector_cache.wait_until_loaded()
    return backend


def _exact(backend: Any, vector: np.ndarray, filters: SearchFilters, k: int) -> list[Any]:
    from prioris.engines.postgres.search import _where

    where, params = _where(filters, "v", "work_id")
    query = np.ascontiguousarray(vector, dtype=np.float32)
    return list(backend._run(lambda c: backend._exact(c, query, where, params, k)))


def _same_list(got: list[Any], want: list[Any]) -> None:
    """The same scores in the same places, and the same chunks above the last score (the
    hashing fake embedder gives exactly equal scores, in any order)."""
    assert np.allclose([c.score for c in got], [c.score for c in want], atol=1e-6)
    last = want[-1].score + 1e-5
    assert {c.chunk_id for c in got if c.score > last} == {
        c.chunk_id for c in want if c.score > last
    }
    owners = {c.chunk_id: c.work_id for c in want}
    assert all(owners.get(c.chunk_id, c.work_id) == c.work_id for c in got)


def test_vector_send_bytes_decode_to_the_stored_floats(pg_url: str) -> None:
    storage = PostgresStorage(pg_url)
    conn = storage.connect()
    try:
        rows = conn.execute(
            "SELECT vector_send('[1.5,-2.25,0.001]'::vector), vector_send('[0,3.75,-1e-7]'::vector)"
        ).fetchone()
        got = decode([bytes(rows[0]), bytes(rows[1])], 3)
        assert got.dtype == np.float32 and got.shape == (2, 3)
        assert np.array_equal(got, np.array([[1.5, -2.25, 0.001], [0, 3.75, -1e-7]], np.float32))
    finally:
        conn.close()
        storage.close()


def test_the_copy_answers_with_the_exact_list_and_filters(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = _open(pg_url, monkeypatch)
    try:
        library.import_records(_records(60))
        backend = _loaded(library)
        assert backend.vector_cache._snapshot is not None
        assert backend.vector_cache._snapshot.matrix is not None  # the float form
        filters = [
            SearchFilters(),
            SearchFilters(source="arxiv"),
            SearchFilters(from_year=2000, to_year=2010),
            SearchFilters(work_ids=frozenset({"w3", "w4", "w17", "w40"})),
        ]
        for text in ("coral reef", "moss and peat", "delta"):
            vector = library.embedder.embed_query(text)
            for f in filters:
                before = backend.copied
                got = backend.knn(vector, f, 7)
                assert backend.copied == before + 1
                want = _exact(backend, vector, f, 7)
                _same_list(got, want)
        # the search itself goes through it too
        copied = backend.copied
        assert library.search("coral reef", mode="vector").hits
        assert backend.copied > copied
    finally:
        library.close()


def test_the_compact_form_rescores_its_head_from_the_table(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_copy, "EXACT_MAX_BYTES", 0)
    library = _open(pg_url, monkeypatch)
    try:
        library.import_records(_records(80))
        backend = _loaded(library)
        snapshot = backend.vector_cache._snapshot
        assert snapshot is not None and snapshot.quantized is not None
        reads: list[list[int]] = []
        source = backend.vector_cache._source
        real = source.stored_vectors

        def counting(conn: Any, ids: list[int]) -> dict[int, np.ndarray]:
            reads.append(list(ids))
            return real(conn, ids)

        monkeypatch.setattr(source, "stored_vectors", counting)
        for text in ("coral reef", "fern dune", "kelp"):
            vector = library.embedder.embed_query(text)
            got = backend.knn(vector, SearchFilters(), 5)
            want = _exact(backend, vector, SearchFilters(), 5)
            _same_list(got, want)  # exact cosines, not int8 ones: the head read back in float
        assert len(reads) == 3 and all(len(ids) == vector_copy.RESCORE_MIN for ids in reads)
        assert source.stored_vectors(None, []) == {}
    finally:
        library.close()


def test_a_write_through_another_library_makes_the_copy_stale(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = _open(pg_url, monkeypatch)
    writer = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    try:
        writer.import_records(_records(40))
        backend = _loaded(reader)
        loaded = backend.vector_cache._snapshot
        assert loaded is not None and len(loaded.chunk_ids) == 40
        writer.import_records([{"_id": "new", "title": "Glacier", "text": "glacier ice moraine"}])
        vector = reader.embedder.embed_query("glacier ice moraine")
        copied = backend.copied
        backend.knn(vector, SearchFilters(), 3)
        assert backend.copied == copied  # stale: HNSW answered
        # (HNSW may well miss it: among forty chunks orthogonal to the query, pgvector's
        # graph search found none of the new one here)
        assert backend.vector_cache.wait_until_loaded()  # ... and a fresh copy was loaded
        assert len(backend.vector_cache._snapshot.chunk_ids) == 41
        got = backend.knn(vector, SearchFilters(), 3)
        assert backend.copied == copied + 1 and got[0].work_id == "new"
        writer.delete(["new"])
        got = backend.knn(vector, SearchFilters(), 3)
        assert backend.copied == copied + 1  # stale again: the deleted work is not named
        assert all(c.work_id != "new" for c in got)
    finally:
        writer.close()
        reader.close()


def test_small_libraries_and_zero_keep_no_copy(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = _open(pg_url, monkeypatch, min_chunks="50")
    try:
        library.import_records(_records(20))
        backend = _loaded(library)
        assert backend.vector_cache._snapshot is None  # 20 chunks, 50 needed: declined
        assert backend.vector_cache._declined_version is not None
        before = backend.copied
        assert backend.knn(library.embedder.embed_query("coral"), SearchFilters(), 3)
        assert backend.copied == before
    finally:
        library.close()
    library = _open(pg_url, monkeypatch, min_chunks="0")
    try:
        assert library.searcher.backend.vector_cache is None
        assert library.search("coral", mode="vector").hits
    finally:
        library.close()


def test_a_library_without_vectors_loads_nothing(pg_url: str) -> None:
    storage = PostgresStorage(pg_url)
    conn = storage.connect()
    try:
        assert PostgresVectors(1).load(conn) is None  # no vector table yet
    finally:
        conn.close()
        storage.close()


def test_the_fts_half_takes_works_from_a_current_copy(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranked from the postings table without filters, the chunks' works come from the
    copy while it is current, from the table otherwise; a filtered query reads them
    through its filter."""
    monkeypatch.setenv("PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS", "1")
    library = _open(pg_url, monkeypatch)
    try:
        library.import_records(_records(60))
        backend = _loaded(library)
        assert backend.build_postings()["built"]
        cache = backend.vector_cache
        asked: list[int] = []
        real = cache.owners

        def counting(conn: Any, ids: Any) -> dict[int, str]:
            found = real(conn, ids)
            asked.append(len(found))
            return found

        monkeypatch.setattr(cache, "owners", counting)
        plain = backend.fts('"coral" OR "moss"', SearchFilters(), 20, title_weight=3.0)
        assert plain and asked and asked[-1] >= len(plain)  # every ranked chunk from the copy
        by_table = backend._run(
            lambda c: {
                int(r[0]): r[1]
                for r in c.execute(
                    "SELECT id, work_id FROM chunks WHERE id = ANY(?)",
                    ([h.chunk_id for h in plain],),
                )
            }
        )
        assert {h.chunk_id: h.work_id for h in plain} == by_table
        calls = len(asked)
        filtered = backend.fts(
            '"coral" OR "moss"', SearchFilters(source="arxiv"), 20, title_weight=3.0
        )
        assert len(asked) == calls  # through the filter's SQL, not the copy
        assert filtered and {h.work_id for h in filtered} <= {f"w{i}" for i in range(0, 60, 3)}
        # a write elsewhere: the copy is stale, so the table names the works
        other = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
        try:
            other.import_records([{"_id": "x", "title": "Coral", "text": "coral moss"}])
        finally:
            other.close()
        again = backend.fts('"coral" OR "moss"', SearchFilters(), 20, title_weight=3.0)
        assert asked[-1] == 0 and "x" in {h.work_id for h in again}
    finally:
        library.close()
