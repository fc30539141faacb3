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
