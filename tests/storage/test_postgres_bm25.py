"""PostgreSQL's BM25 against SQLite's FTS5 ``bm25()`` on the same records, as the library
grows: the PostgreSQL backend computes FTS5's formula in SQL from remembered statistics
(chunk count, average length, per-lexeme chunk counts), so statistics that failed to
follow new chunks would score with the old idf and average length. Ranking a set alone
cannot tell (stale statistics rank a small set the same): the scores are compared with
SQLite's, which FTS5 always computes from its current statistics."""

from __future__ import annotations

from typing import Any

import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
from prioris.search.protocols import SearchFilters

# no English stop words, one stem each: both engines count the same tokens
_WORDS = (
    "coral reef bleach transect colony sponge alga lagoon atoll kelp urchin turtle "
    "mangrove seagrass plankton krill walrus penguin glacier tundra lichen moss fern spruce"
).split()
QUERIES = ["coral", "bleach OR lagoon", "sponge OR alga OR reef", "kelp walrus", "turtle krill"]
TITLE_WEIGHT = 3.0


def _records(start: int, stop: int) -> list[dict[str, Any]]:
    """Works of uneven length and word counts over a vocabulary each word of which only
    some hold, so idf, tf and the length all move the scores."""
    records = []
    for i in range(start, stop):
        words = [_WORDS[(i * 5 + j * 7) % len(_WORDS)] for j in range(2 + i % 4)]
        words += [words[0]] * (i % 3)  # repeated: tf above 1
        title = f"{_WORDS[(i * 11) % len(_WORDS)]} survey"
        records.append({"_id": f"w{i}", "title": title, "text": " ".join(words)})
    return records


def _scores(library: Library, query: str) -> dict[str, float]:
    """Work id -> its best chunk's BM25 score, higher is better on both engines."""
    found = library.searcher.backend.fts(query, SearchFilters(), 100, title_weight=TITLE_WEIGHT)
    return {c.work_id: c.score for c in found}


def _ranking(scores: dict[str, float]) -> list[str]:
    """Best first; ties (equal within rounding) in id order, as neither engine promises one."""
    return sorted(scores, key=lambda w: (-round(scores[w], 9), w))


def test_postgres_bm25_follows_sqlite_as_the_library_grows(data_dir: Any, pg_url: str) -> None:
    base = load_settings()  # the test's own data folder (an explicit env dict would not be)
    sqlite = Library.open(base, embedder=FakeEmbedder())
    postgres = Library.open(base.with_library(pg_url), embedder=FakeEmbedder())
    try:
        rounds = []
        for start, stop in ((0, 12), (12, 60)):
            for library in (sqlite, postgres):
                library.import_records(_records(start, stop))
            rounds.append({q: (_scores(sqlite, q), _scores(postgres, q)) for q in QUERIES})
        for found in rounds:
            for query, (lite, pg) in found.items():
                assert lite and set(pg) == set(lite), query
                for work_id, score in lite.items():
                    assert pg[work_id] == pytest.approx(score, rel=1e-6), (query, work_id)
                assert _ranking(pg) == _ranking(lite), query
        first, second = rounds
        for query, (_, pg_before) in first.items():  # new chunks moved idf and length
            _, pg_after = second[query]
            assert any(pg_after[w] != pytest.approx(pg_before[w], rel=1e-6) for w in pg_before)
    finally:
        sqlite.close()
        postgres.close()


def test_a_large_changing_library_recounts_at_most_every_few_seconds(
    data_dir: Any, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``LARGE`` chunks a count costs a scan: statistics of a changing index are
    refreshed at most every ``STATS_SECONDS``, and the lexeme counts remembered are
    bounded (``COUNT_CACHE``), then recounted."""
    from types import SimpleNamespace

    from prioris.engines.postgres import search as pg_search

    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(pg_search, "time", SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(pg_search, "LARGE", 1)  # every library with a chunk is large
    monkeypatch.setattr(pg_search, "COUNT_CACHE", 2)
    library = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    try:
        backend = library.searcher.backend
        library.import_records(_records(0, 12))
        _scores(library, "coral")
        first = backend._stats
        assert first[0] == library.status()["chunks"] == 12
        library.import_records(_records(12, 20))
        clock.now += pg_search.STATS_SECONDS  # changed, but counted just STATS_SECONDS ago
        _scores(library, "coral")
        assert backend._stats == first
        clock.now += 1  # now past STATS_SECONDS: counted again, the lexeme counts too
        _scores(library, "coral OR reef OR bleach")
        assert backend._stats[0] == 20 and backend._stats[1] != first[1]
        assert set(backend._counts) == {"coral", "reef", "bleach"}
        _scores(library, "kelp")  # more than COUNT_CACHE remembered: forgotten first
        assert set(backend._counts) == {"kelp"}
    finally:
        library.close()


def test_a_small_library_recounts_after_every_change(
    data_dir: Any, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from prioris.engines.postgres import search as pg_search

    monkeypatch.setattr(pg_search, "time", SimpleNamespace(monotonic=lambda: 100.0))
    library = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    try:
        backend = library.searcher.backend
        library.import_records(_records(0, 12))
        _scores(library, "coral")
        assert backend._stats[0] == 12
        library.import_records(_records(12, 20))
        _scores(library, "coral")  # the same instant: still counted, the index changed
        assert backend._stats[0] == 20
    finally:
        library.close()
