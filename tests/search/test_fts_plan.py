"""Ranking over the chunks with rare words: the same list as the full OR query, or none."""

from __future__ import annotations

import random

import pytest

from prioris.engines.sqlite import search as sqlite_backend
from prioris.engines.sqlite.queries import fts_search
from prioris.library import Library
from prioris.search import fts_plan
from prioris.search.protocols import SearchFilters
from prioris.search.query import plain_to_fts5


def test_plain_expressions_only() -> None:
    assert fts_plan.words_of('"cells" OR "tau"') == ['"cells"', '"tau"']
    assert fts_plan.words_of('"cells"') is None  # one word: nothing to split
    assert fts_plan.words_of("cells AND tau") is None  # FTS5 syntax is left alone


def test_the_most_frequent_words_are_common_and_bound_their_score() -> None:
    counts = {'"the"': 900, '"cells"': 50, '"tau"': 5}
    plan = fts_plan.plan(counts, 1000)
    assert plan is not None
    assert plan.rare_only == '("cells" OR "tau") NOT ("the")'
    assert plan.rare_and_common == '("cells" OR "tau") AND ("the")'
    assert plan.bound == pytest.approx(2.2 * 1e-6)  # idf of a word in 90% is floored
    assert fts_plan.plan({'"a"': 5, '"b"': 6}, 1000) is None  # equally rare: no split
    tight = fts_plan.plan(counts, 1000, below=2.2 * 0.9)
    assert tight is not None and tight.bound < 2.2 * 0.9


@pytest.fixture
def library_of_words(library: Library) -> Library:
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa"]
    weights = [60, 30, 15, 6, 3, 2, 1]  # from in most chunks to in a few
    library.import_records(
        [
            {
                "_id": f"w{i}",
                "title": f"Work {i}",
                "text": " ".join(rng.choices(words, weights, k=30)),
            }
            for i in range(300)
        ]
    )
    return library


@pytest.mark.parametrize(
    ("query", "limit"),
    [
        ("alpha kappa", 5),
        ("alpha beta sigma kappa", 10),
        ("alpha beta gamma delta omega", 40),
        ("alpha kappa", 250),  # more than the chunks holding kappa: full query needed
    ],
)
def test_pruned_ranking_equals_the_full_query(
    library_of_words: Library, query: str, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_backend, "FTS_SPLIT_ROWS", 0)
    backend = library_of_words.searcher.backend
    expression = plain_to_fts5(query)
    assert expression is not None
    got = backend.fts(expression, SearchFilters(), limit, title_weight=1.0)
    full = fts_search(backend.conn, expression, SearchFilters(), limit, title_weight=1.0)
    assert [c.score for c in got] == pytest.approx([c.score for c in full], rel=1e-9)
    cut = full[-1].score + 1e-9  # phrases summed in another order: last-bit differences
    assert {c.chunk_id for c in got if c.score > cut} == {c.chunk_id for c in full if c.score > cut}


def test_rare_word_plans_answer_most_queries(
    library_of_words: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_backend, "FTS_SPLIT_ROWS", 0)
    backend = library_of_words.searcher.backend
    for query in ("alpha kappa", "alpha beta sigma", "beta gamma kappa", "alpha omega"):
        backend.fts(plain_to_fts5(query) or "", SearchFilters(), 10, title_weight=1.0)
    assert backend.pruned_queries >= 3


def test_a_list_that_misses_the_bound_falls_back_to_the_full_query(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short chunks dense in a common word outscore very long chunks holding the rare word
    once: the split's list misses the bound, and the full query must run."""
    monkeypatch.setattr(sqlite_backend, "FTS_SPLIT_ROWS", 0)
    filler = " ".join(f"filler{i}" for i in range(60))
    records = [
        {"_id": f"r{i}", "title": "", "text": f"kappa {filler * 10} r{i}"} for i in range(10)
    ]
    records += [{"_id": f"c{i}", "title": "", "text": f"alpha alpha alpha c{i}"} for i in range(60)]
    records += [{"_id": f"f{i}", "title": "", "text": f"{filler} f{i}"} for i in range(130)]
    library.import_records(records)
    backend = library.searcher.backend
    expression = '"alpha" OR "kappa"'
    got = backend.fts(expression, SearchFilters(), 5, title_weight=1.0)
    full = fts_search(backend.conn, expression, SearchFilters(), 5, title_weight=1.0)
    assert {c.work_id for c in full} <= {f"c{i}" for i in range(60)}
    assert [c.score for c in got] == pytest.approx([c.score for c in full], rel=1e-9)
    assert backend.pruned_queries == 0


def test_idf_of_a_count_taken_after_the_row_count() -> None:
    """PostgreSQL's backend counts rows, then words: a writer in between made a word's count
    exceed the rows and the search died with 'math domain error'."""
    assert fts_plan.idf(12, 10) == fts_plan.idf(10, 10) == 1e-6
    assert fts_plan.idf(1, 10) > fts_plan.idf(3, 10) > 1e-6
