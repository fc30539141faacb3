"""Edges of PostgreSQL's search backend (:mod:`prioris.engines.postgres.search`) the
seeded mutation sample of 60 found untested (issue 25): which expressions the postings
table may rank, the authors of a hit, and the cached statistics of a large library whose
chunks are short."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres import search as pg_search
from prioris.engines.postgres.search import plain_words
from prioris.library import Library
from prioris.search.protocols import SearchFilters


def test_plain_words_are_single_quoted_words_or_a_list_of_them() -> None:
    """One quoted word is plain as well as ``"a" OR "b"``; anything else (a quote missing
    at either end, a quote inside, an empty or non-word phrase) goes to SQL."""
    assert plain_words('"coral"') == ["coral"]
    assert plain_words('"a"') == ["a"]
    assert plain_words('"coral" OR "reef"') == ["coral", "reef"]
    for expression in ('coral"', '"coral', "coral", '""', '"', '"co"ral"', '"coral reef"'):
        assert plain_words(expression) is None, expression


def _open(pg_url: str) -> Library:
    return Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())


def test_a_hit_carries_its_work_s_authors(pg_url: str) -> None:
    library = _open(pg_url)
    try:
        library.import_records(
            [
                {"_id": "a", "title": "Reef", "text": "coral", "authors": ["Ana Lima", "Bo Chen"]},
                {"_id": "b", "title": "Moss", "text": "lichen"},
            ]
        )
        works = library.searcher.backend.works(["a", "b"])
        assert works["a"].authors == ["Ana Lima", "Bo Chen"]
        assert works["b"].authors == []
        assert library.search("coral", mode="fts").hits[0].authors == ["Ana Lima", "Bo Chen"]
    finally:
        library.close()


def test_a_large_library_of_short_chunks_keeps_its_count_for_a_while(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Large" is a number of chunks, not of words per chunk: a library past ``LARGE``
    chunks whose chunks are a few words long still recounts only every
    ``STATS_SECONDS`` while it changes."""
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(pg_search, "time", SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(pg_search, "LARGE", 10)
    library = _open(pg_url)

    def records(start: int, stop: int) -> list[dict[str, Any]]:
        return [{"_id": f"w{i}", "title": f"Reef {i}", "text": "coral"} for i in range(start, stop)]

    try:
        backend = library.searcher.backend
        library.import_records(records(0, 12))
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        first = backend._stats
        assert first[0] == 12 and first[1] < 10  # 12 chunks (large), each a few words
        library.import_records(records(12, 20))
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert backend._stats == first  # changed, but counted just now
        clock.now += pg_search.STATS_SECONDS + 1
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert backend._stats[0] == 20
    finally:
        library.close()


def test_the_hnsw_and_the_exact_scan_give_the_same_cosines(pg_url: str) -> None:
    """Unfiltered KNN goes through the HNSW index, a work filter through an exact scan:
    both turn pgvector's cosine distance into the same similarity (at most 1)."""
    library = _open(pg_url)
    try:
        texts = ["coral reef bleach", "kelp forest urchin", "glacier moss tundra"]
        library.import_records(
            [{"_id": f"w{i}", "title": f"Survey {i}", "text": t} for i, t in enumerate(texts)]
        )
        backend = library.searcher.backend
        vector = library.embedder.embed_query("coral reef")
        approximate = backend.knn(vector, SearchFilters(), 3)
        exact = backend.knn(vector, SearchFilters(work_ids=("w0", "w1", "w2")), 3)
        assert len(approximate) == 3
        rounded = [[(c.chunk_id, round(c.score, 5)) for c in hits] for hits in (approximate, exact)]
        assert rounded[0] == rounded[1]
        assert all(c.score <= 1.0 + 1e-6 for c in approximate)
    finally:
        library.close()


def test_a_passage_carries_its_chunk_s_place(pg_url: str) -> None:
    library = _open(pg_url)
    try:
        library.import_records([{"_id": "a", "title": "Reef", "text": "coral " * 400}])
        rows = library.conn.execute(
            "SELECT id, page_start, page_end, char_start, section FROM chunks ORDER BY id"
        ).fetchall()
        assert len(rows) > 1 and rows[-1][3] > 0  # a later chunk starts past 0
        passages = library.searcher.backend.passages([r[0] for r in rows])
        for chunk_id, page_start, page_end, char_start, section in rows:
            passage = passages[chunk_id]
            assert (passage.page_start, passage.page_end) == (page_start, page_end)
            assert (passage.char_start, passage.section) == (char_start, section)
    finally:
        library.close()
