"""Search modes, query safety, filters inside KNN, work vs passage results, snippets."""

from __future__ import annotations

import pytest

from prioris.errors import InvalidRequestError
from prioris.search.fusion import ranked, rrf, weighted_sum
from prioris.search.query import plain_to_fts5
from prioris.search.snippets import make_snippet


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


RECORDS = [
    {
        "_id": "cats",
        "title": "Cats and their habits",
        "year": 2018,
        "source": "import",
        "text": "Domestic cats sleep most of the day and hunt small rodents at night.",
    },
    {
        "_id": "dogs",
        "title": "Dogs as companions",
        "year": 2020,
        "source": "import",
        "text": "Dogs were domesticated from wolves and bond closely with people.",
    },
    {
        "_id": "qcd",
        "title": "Lattice quantum chromodynamics",
        "year": 2021,
        "source": "arxiv",
        "text": "Lattice QCD computes hadron masses from first principles on supercomputers.",
    },
    {
        "_id": "reef",
        "title": "Coral reefs under heat stress",
        "year": 2016,
        "source": "europepmc",
        "text": "Marine heatwaves bleach corals; reefs lose cover when water stays hot.",
    },
]


@pytest.fixture
def filled(library):  # type: ignore[no-untyped-def]
    summary = library.import_records(RECORDS)
    assert len(summary.ingested) == len(RECORDS)
    return library


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_each_mode_finds_the_obvious_work(filled, mode: str) -> None:  # type: ignore[no-untyped-def]
    hits = filled.search("cats hunt rodents", mode=mode, k=3).hits
    assert hits[0].id == "cats"
    hit = hits[0]
    assert hit.title == "Cats and their habits"
    assert hit.page_start == 1 and hit.offset == 0 and hit.chunk_id
    assert set(hit.ranks) == ({"fts", "vector"} if mode == "hybrid" else {mode})


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"unbalanced', set()),
        ("(cats", {"cats"}),
        ("cats AND", {"cats"}),
        ("NEAR(cats dogs", {"cats", "dogs"}),
        ("cat*", {"cats"}),
        ("-dogs", {"dogs"}),
        ("a:b", set()),
        ("^", set()),
        ('""', set()),
        ("cats OR OR dogs", {"cats", "dogs"}),
        ("NOT", set()),
        ("'; DROP TABLE works; --", set()),
    ],
)
def test_plain_text_never_raises_in_fts(filled, query: str, expected: set[str]) -> None:  # type: ignore[no-untyped-def]
    """Operators and punctuation in plain text are words, not FTS5 syntax."""
    response = filled.search(query, mode="fts", k=5)
    assert (response.query, response.mode) == (query, "fts")
    assert {h.id for h in response.hits} == expected
    assert filled.status()["works"] == len(RECORDS)


def test_fts5_syntax_passes_expressions_and_rejects_malformed(filled) -> None:  # type: ignore[no-untyped-def]
    hits = filled.search("cats NOT dogs", mode="fts", syntax="fts5").hits
    assert [h.id for h in hits] == ["cats"]
    with pytest.raises(InvalidRequestError) as err:
        filled.search('"unbalanced AND (', mode="fts", syntax="fts5")
    assert err.value.code == "invalid_request"


def test_filtered_vector_search_still_returns_k_hits(library) -> None:  # type: ignore[no-untyped-def]
    records = [
        {
            "_id": f"old{i}",
            "title": f"Protein folding study {i}",
            "year": 1990,
            "text": "protein folding energy landscape " * 5,
        }
        for i in range(30)
    ] + [
        {
            "_id": f"new{i}",
            "title": f"Unrelated topic {i}",
            "year": 2022,
            "text": f"galaxy rotation curves dark matter halo {i}",
        }
        for i in range(5)
    ]
    library.import_records(records)
    hits = library.search("protein folding", mode="vector", k=5, from_year=2020).hits
    assert len(hits) == 5
    assert all(h.year == 2022 for h in hits)
    hits = library.search("protein folding", mode="hybrid", k=5, to_year=2000).hits
    assert len(hits) == 5 and all(h.year == 1990 for h in hits)


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_source_and_id_filters(filled, mode: str) -> None:  # type: ignore[no-untyped-def]
    hits = filled.search("hadron corals cats", mode=mode, k=10, source="arxiv").hits
    assert [h.id for h in hits] == ["qcd"]
    # every work matches these words; the filter keeps exactly the two asked for
    query = "cats wolves hadron corals"
    assert {h.id for h in filled.search(query, mode=mode, k=10).hits} == {
        "cats",
        "dogs",
        "qcd",
        "reef",
    }
    hits = filled.search(query, mode=mode, k=10, ids=["dogs", "reef"]).hits
    assert sorted(h.id for h in hits) == ["dogs", "reef"]
    hits = filled.search(query, mode=mode, k=10, ids=["qcd"]).hits
    assert [h.id for h in hits] == ["qcd"]


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_year_filters_leave_out_works_of_unknown_year(filled, mode: str) -> None:  # type: ignore[no-untyped-def]
    filled.import_records(
        [{"_id": "undated", "title": "Cats of unknown date", "text": "cats hunt rodents"}]
    )
    everything = {h.id for h in filled.search("cats rodents", mode=mode, k=10).hits}
    assert "undated" in everything
    up_to = {h.id for h in filled.search("cats rodents", mode=mode, k=10, to_year=2020).hits}
    assert "undated" not in up_to and "cats" in up_to
    since = {h.id for h in filled.search("cats rodents", mode=mode, k=10, from_year=2017).hits}
    assert "undated" not in since and "cats" in since
    between = filled.search("cats rodents", mode=mode, k=10, from_year=2017, to_year=2019)
    assert "undated" not in {h.id for h in between.hits}
    # the response says what the filter set aside; with no year filter it says nothing
    assert between.left_out_no_year == 1 and between.to_dict()["left_out_no_year"] == 1
    everything_response = filled.search("cats rodents", mode=mode, k=10)
    assert everything_response.left_out_no_year is None
    assert "left_out_no_year" not in everything_response.to_dict()


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_include_undated_keeps_works_without_a_year(filled, mode: str) -> None:  # type: ignore[no-untyped-def]
    filled.import_records(
        [{"_id": "undated", "title": "Cats of unknown date", "text": "cats hunt rodents"}]
    )
    for bounds in ({"to_year": 2020}, {"from_year": 2017}, {"from_year": 2017, "to_year": 2019}):
        kept = filled.search("cats rodents", mode=mode, k=10, include_undated=True, **bounds)
        ids = {h.id for h in kept.hits}
        assert {"undated", "cats"} <= ids, bounds
        assert "dogs" not in ids or bounds.get("to_year", 2020) >= 2020
        assert kept.left_out_no_year is None
    late = filled.search("cats rodents", mode=mode, k=10, from_year=2030, include_undated=True)
    assert {h.id for h in late.hits} == {"undated"}  # no dated work is that late


def test_fts_counts_only_the_undated_works_that_match(filled) -> None:  # type: ignore[no-untyped-def]
    filled.import_records(
        [
            {"_id": "u1", "title": "Bigtable", "text": "a distributed storage system"},
            {"_id": "u2", "title": "Undated other", "text": "nothing about that"},
        ]
    )
    response = filled.search("bigtable", mode="fts", from_year=2000)
    assert response.hits == [] and response.left_out_no_year == 1
    assert filled.search("bigtable", mode="vector", from_year=2000).left_out_no_year == 2
    assert [
        h.id for h in filled.search("bigtable", mode="fts", to_year=2030, include_undated=True).hits
    ] == ["u1"]


def test_an_unknown_source_is_refused_with_the_known_ones(filled) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRequestError) as caught:
        filled.search("cats", source="arxvi")
    message = caught.value.message
    assert "unknown source 'arxvi'" in message
    assert "arxiv" in message and "europepmc" in message and "import" in message
    filled.import_records(
        [{"_id": "x", "title": "Quokka", "text": "quokkas", "source": "lab-notes"}]
    )
    assert [h.id for h in filled.search("quokka", mode="fts", source="lab-notes").hits] == ["x"]
    assert filled.search("cats", mode="fts", source="openalex").hits == []  # known, empty


def test_work_results_collapse_chunks_and_chunks_mode_returns_passages(library) -> None:  # type: ignore[no-untyped-def]
    long_text = " ".join(
        f"Paragraph {i} about enzyme kinetics and catalysis." * 8 for i in range(12)
    )
    library.import_records(
        [
            {
                "_id": "enzymes",
                "title": "Enzyme kinetics",
                "text": long_text.replace(". P", ".\n\nP"),
            },
            {"_id": "other", "title": "Other", "text": "Nothing about the topic here."},
        ]
    )
    works = library.search("enzyme kinetics", mode="fts", k=10).hits
    assert [h.id for h in works].count("enzymes") == 1
    passages = library.search("enzyme kinetics", mode="fts", k=10, chunks=True).hits
    assert len(passages) > 1 and {h.id for h in passages} == {"enzymes"}
    assert len({h.chunk_id for h in passages}) == len(passages)


def test_hit_offsets_point_into_the_markdown(filled) -> None:  # type: ignore[no-untyped-def]
    hit = filled.search("wolves", mode="fts", k=1).hits[0]
    assert (hit.page_start, hit.page_end, hit.offset) == (1, 1, 0)
    view = filled.show(hit.id, offset=hit.offset, limit=200)
    assert "wolves" in view["markdown"]


def test_invalid_requests(filled) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRequestError):
        filled.search("cats", mode="semantic")
    with pytest.raises(InvalidRequestError):
        filled.search("   ")
    with pytest.raises(InvalidRequestError):
        filled.search("cats", k=0)
    with pytest.raises(InvalidRequestError):
        filled.search("cats", from_year=2020, to_year=2010)


def test_k_none_returns_every_fts_match(filled) -> None:  # type: ignore[no-untyped-def]
    filled.import_records(
        [{"_id": f"mouse-{n}", "title": "Mice", "text": f"Mouse study {n}."} for n in range(15)]
    )
    service = filled.searcher
    every = service.search("mouse", mode="fts", k=None, chunks=True).hits
    assert len(every) == 15
    assert len(service.search("mouse", mode="fts", k=10, chunks=True).hits) == 10
    assert len(service.search("mouse", mode="fts", k=None).hits) == 15  # one per work
    with pytest.raises(InvalidRequestError, match="needs a number of hits"):
        service.search("mouse", mode="hybrid", k=None)


def test_snippet_marks_matched_words() -> None:
    text = "Intro. " * 50 + "Embeddings of proteins predict folding. " + "Outro. " * 50
    snippet = make_snippet(text, ["embedding", "folding"])
    assert "**Embeddings**" in snippet and "**folding**" in snippet
    assert snippet.startswith("… ")


def test_plain_query_translation_quotes_every_term() -> None:
    assert plain_to_fts5('cats "AND" (dogs)') == '"cats" OR "dogs"'
    assert plain_to_fts5("the") == '"the"'
    assert plain_to_fts5("!!!") is None


def test_plain_words_split_at_underscores_as_both_indexes_do() -> None:
    """FTS5's unicode61 and PostgreSQL's parser both split "CRF01_1b2k": the query says
    its two words, not a phrase the PostgreSQL postings could not rank."""
    assert plain_to_fts5("CRF01_1b2k protein") == '"crf01" OR "1b2k" OR "protein"'
    assert plain_to_fts5("snake_case__name") == '"snake" OR "case" OR "name"'
    assert plain_to_fts5("___") is None


def test_rrf_and_weighted_fusion() -> None:
    scores = rrf({"fts": ["a", "b"], "vector": ["b", "c"]}, k=60)
    assert [item for item, _ in ranked(scores)] == ["b", "a", "c"]
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    mixed = weighted_sum(
        {"fts": [("a", 10.0), ("b", 5.0)], "vector": [("b", 0.9), ("c", 0.1)]},
        weights={"fts": 0.3, "vector": 0.7},
    )
    assert mixed == pytest.approx({"a": 0.3, "b": 0.7, "c": 0.0})


@pytest.mark.parametrize("mode", ["fts", "vector"])
def test_work_results_look_past_one_work_with_many_chunks(library, mode: str) -> None:  # type: ignore[no-untyped-def]
    """k works are returned even when the best 4k chunks all belong to one work."""
    paragraphs = "\n\n".join(f"Glacier melt rates {i}. " * 40 for i in range(40))
    library.import_records(
        [{"_id": "big", "title": "Glacier melt", "text": paragraphs}]
        + [{"_id": f"small{i}", "title": f"Note {i}", "text": f"glacier {i}"} for i in range(3)]
    )
    assert library.status()["chunks"] > 12
    hits = library.search("glacier melt rates", mode=mode, k=3).hits
    assert hits[0].id == "big" and len({h.id for h in hits}) == 3


def test_rrf_defaults_and_weights() -> None:
    plain = rrf({"fts": ["a", "b"], "vector": ["b"]})  # k defaults to 60, weights to 1
    assert plain == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61})
    weighted = rrf({"fts": ["a"], "vector": ["b"]}, k=10, weights={"fts": 2.0, "vector": 0.5})
    assert weighted == pytest.approx({"a": 2 / 11, "b": 0.5 / 11})
    partial = rrf({"fts": ["a"], "vector": ["b"]}, k=10, weights={"fts": 3.0})
    assert partial == pytest.approx({"a": 3 / 11, "b": 1 / 11})  # a list not named weighs 1


def test_weighted_sum_edge_cases() -> None:
    # an empty list adds nothing and does not stop the lists after it
    scores = weighted_sum({"fts": [], "vector": [("a", 0.2), ("b", 0.6)]}, weights={"vector": 0.5})
    assert scores == pytest.approx({"a": 0.0, "b": 0.5})
    # equal scores normalise to 1; a list not named in the weights weighs 1
    flat = weighted_sum({"fts": [("a", 3.0), ("b", 3.0)], "other": [("a", 1.0)]}, weights={})
    assert flat == pytest.approx({"a": 2.0, "b": 1.0})


def test_ranked_breaks_ties_by_item() -> None:
    assert ranked({"b": 1.0, "c": 2.0, "a": 1.0}) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]
    assert [item for item, _ in ranked({"z": 0.5, "y": 0.5, "x": 0.5})] == ["x", "y", "z"]


def test_request_validation_messages(filled) -> None:  # type: ignore[no-untyped-def]
    cases = [
        ({"mode": "semantic"}, "mode 'semantic' is not one of fts, vector, hybrid"),
        ({"syntax": "regex"}, "syntax 'regex' is not one of plain, fts5"),
        ({"k": 0}, "k must be between 1 and 1000, got 0"),
        ({"k": 1001}, "k must be between 1 and 1000, got 1001"),
        ({"syntax": "fts5", "mode": "hybrid"}, "syntax 'fts5' is only for mode 'fts'"),
        ({"syntax": "fts5", "mode": "vector"}, "syntax 'fts5' is only for mode 'fts'"),
        ({"from_year": 2021, "to_year": 2020}, "the start year 2021 is after the end year 2020"),
    ]
    for options, message in cases:
        with pytest.raises(InvalidRequestError) as info:
            filled.search("cats", **options)
        assert info.value.message == message, options
    with pytest.raises(InvalidRequestError, match=r"^the query is empty$"):
        filled.search(" \t")
    assert len(filled.search("cats dogs hadron reef", mode="fts", k=1000).hits) == 4
    assert [h.id for h in filled.search("cats", k=1, from_year=2018, to_year=2018).hits] == ["cats"]


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_k_limits_the_hits_and_scores_descend(filled, mode: str) -> None:  # type: ignore[no-untyped-def]
    query = "cats wolves hadron corals"
    everything = filled.search(query, mode=mode, k=10).hits
    assert len(everything) == 4
    scores = [h.score for h in everything]
    assert scores == sorted(scores, reverse=True)
    top2 = filled.search(query, mode=mode, k=2).hits
    assert [h.id for h in top2] == [h.id for h in everything[:2]]
    response = filled.search(query, mode=mode, k=2)
    assert response.to_dict()["mode"] == mode and response.took_ms >= 0
    assert [h["id"] for h in response.to_dict()["hits"]] == [h.id for h in top2]


class _FailingConn:
    """A connection whose every query fails with ``message`` (a fault at the SQLite edge)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def execute(self, *args: object) -> object:
        from prioris.engines.sqlite.connection import sqlite3

        raise sqlite3.OperationalError(self.message)


@pytest.mark.parametrize(
    "message",
    ["database is locked", "database table is busy", "disk I/O error", "out of memory"],
)
def test_storage_faults_in_fts_are_not_blamed_on_the_query(message: str) -> None:
    from prioris.engines.sqlite.connection import sqlite3
    from prioris.engines.sqlite.queries import fts_search
    from prioris.search.protocols import SearchFilters

    with pytest.raises(sqlite3.OperationalError, match=message):
        fts_search(_FailingConn(message), '"cats"', SearchFilters(), 5)
    with pytest.raises(InvalidRequestError, match="malformed FTS5 query"):
        fts_search(_FailingConn("fts5: syntax error near x"), '"cats"', SearchFilters(), 5)


def test_vector_search_k_and_query_dtype(filled) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    from prioris.search.protocols import SearchFilters

    backend = filled.searcher.backend  # each backend's KNN, cache or not

    def vector_search(_: object, query: np.ndarray, filters: SearchFilters, k: int) -> list:  # type: ignore[type-arg]
        return backend.knn(query, filters, k)

    conn = None
    query = filled.embedder.embed_query("cats hunt rodents")
    assert [c.work_id for c in vector_search(conn, query, SearchFilters(), 1)] == ["cats"]
    assert len(vector_search(conn, query, SearchFilters(), 0)) == 1  # at least one
    as_float64 = vector_search(conn, query.astype(np.float64), SearchFilters(), 4)
    assert [c.score for c in as_float64] == pytest.approx(
        [c.score for c in vector_search(conn, query, SearchFilters(), 4)]
    )
