"""Edges of PostgreSQL's BM25 postings (:mod:`prioris.engines.postgres.postings`) the
seeded mutation sample of 60 found untested (issue 25)."""

from __future__ import annotations

import logging

import psycopg
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres import postings_snapshot
from prioris.library import Library
from prioris.search.protocols import SearchFilters


def test_the_first_build_waits_for_a_process_s_second_query(pg_url: str) -> None:
    """A one-off search (a CLI call) never pays for a build: a process's first query of a
    library without postings leaves it to SQL, the second starts the build."""
    library = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    backend = library.searcher.backend
    postings = backend.postings
    postings.min_rows, postings._background = 1, False  # a build runs in the query's thread
    try:
        library.import_records(
            [{"_id": f"w{i}", "title": "Reef", "text": "coral"} for i in range(5)]
        )
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert postings.last_build is None
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert postings.last_build is not None
    finally:
        library.close()


def _library(pg_url: str, count: int) -> Library:
    library = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    postings = library.searcher.backend.postings
    postings.min_rows, postings._background = 1, False
    library.import_records(
        [{"_id": f"w{i}", "title": f"Reef {i}", "text": f"coral {i}"} for i in range(count)]
    )
    postings.build_now()
    return library


def test_a_rebuild_starts_only_past_the_changes_allowed(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exactly as many changed chunks as allowed are scored beside the build; one more
    starts a rebuild."""
    monkeypatch.setattr(postings_snapshot, "CHANGES_MIN", 3)
    monkeypatch.setattr(postings_snapshot, "CHANGES_MAX", 3)
    library = _library(pg_url, 5)
    backend = library.searcher.backend
    postings = backend.postings
    try:
        first = postings.last_build
        assert first is not None
        library.import_records(
            [{"_id": f"n{i}", "title": f"Kelp {i}", "text": f"coral kelp {i}"} for i in range(3)]
        )
        postings._next_build = 0.0
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert postings.last_build is first  # 3 changes: still scored beside the build
        library.import_records([{"_id": "n3", "title": "Kelp 3", "text": "coral kelp 3"}])
        postings._next_build = 0.0
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert postings.last_build is not first  # 4: rebuilt
    finally:
        library.close()


def test_lengths_of_a_broken_width_are_refused_with_their_reason(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    library = _library(pg_url, 5)
    backend = library.searcher.backend
    try:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE bm25_meta SET value = value || '\\x00'::bytea WHERE key = 'lengths'"
            )
        backend.postings._base = None  # as a new process would, having nothing cached
        backend.postings._next_build = float("inf")  # no rebuild repairs it meanwhile
        with caplog.at_level(logging.WARNING):
            assert backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert "BM25 postings damaged (bm25_meta lengths damaged)" in caplog.text
    finally:
        library.close()


def test_the_row_cache_drops_its_oldest_rows_and_keeps_its_count_of_bytes(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = _library(pg_url, 5)
    backend = library.searcher.backend
    postings = backend.postings
    try:
        backend.fts('"1"', SearchFilters(), 10, title_weight=3.0)  # a word of one chunk
        one = postings._rows_bytes
        assert one > 0
        monkeypatch.setattr(postings_snapshot, "ROW_CACHE_BYTES", one + 1)  # room for one word
        for word in ("2", "3", "2"):  # each of one chunk: the same size
            assert backend.fts(f'"{word}"', SearchFilters(), 10, title_weight=3.0)
            cached = [a for arrays in postings._rows.values() for a in arrays]
            assert postings._rows_bytes == sum(a.nbytes for a in cached) <= one + 1
            assert list(postings._rows) == [word]
    finally:
        library.close()
