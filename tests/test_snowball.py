"""Snowballing through the Library on SQLite and PostgreSQL: the local graph offline, a
fake OpenAlex graph online (requests and budget passed through), dismissal, seeds by ids,
--all and a collection, and the citation graph export."""

from __future__ import annotations

from typing import Any

import pytest

import snowball_helpers as h
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.storage import labels as label_store


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


@pytest.fixture
def built(library):  # type: ignore[no-untyped-def]
    return h.build(library)


def keys(answer: dict[str, Any]) -> list[str]:
    return [c["key"] for c in answer["candidates"]]


def test_local_snowball_offline(built: Any) -> None:
    answer = built.snowball(all=True, offline=True)
    assert answer["offline"] is True and answer["requests"] == 0
    assert answer["budget_left"] is None
    assert sorted(answer["seeds"]) == ["lib3", "s1", "s2"]
    assert any("offline" in m for m in answer["messages"])
    # Hughes (cited by both seeds, DOI case differs) first; lib3 (linked) and its fuzzy
    # copy (unlinked, a letter short) are library works; the "ibid." line is nothing
    assert keys(answer) == [
        "doi:10.1038/nature21707",
        "arxiv:2101.00001",
        "title:coral symbiont shuffling after bleaching|2008",
    ]
    top = answer["candidates"][0]
    assert top["why"]["backward"] == 2 and top["why"]["cited_by_seeds"] == ["s1", "s2"]
    assert top["why"]["found_by"] == ["local"]
    assert top["fetch_route"] == {"manual_upload": True}
    assert answer["candidates"][1]["fetch_route"] == {
        "provider": "arxiv",
        "identifier": "arxiv:2101.00001",
    }
    assert set(top) >= {"title", "authors", "year", "ids", "score", "why", "fetch_route"}
    assert top["why"]["similarity"] is not None  # seeds have work vectors: cosine is read
    # forward needs OpenAlex: offline it is empty, not an error
    forward = built.snowball(all=True, offline=True, direction="forward")
    assert forward["candidates"] == [] and forward["total"] == 0


def test_seeds_by_id_and_by_collection(built: Any) -> None:
    only_s2 = built.snowball(["s2"], offline=True)
    assert only_s2["seeds"] == ["s2"]
    assert keys(only_s2) == [
        "doi:10.1038/nature21707",
        "title:coral symbiont shuffling after bleaching|2008",
    ]
    with built.lock:
        built.conn.execute("BEGIN IMMEDIATE")
        label_store.set_labels(built.conn, "s1", "zotero", collections=["Reefs"], tags=[])
        built.conn.execute("COMMIT")
    by_collection = built.snowball(collection="reefs", offline=True)
    assert by_collection["seeds"] == ["s1"]
    with pytest.raises(NotFoundError):
        built.snowball(collection="Nowhere", offline=True)
    with pytest.raises(InvalidRequestError):
        built.snowball(offline=True)  # no seeds given
    with pytest.raises(InvalidRequestError):
        built.snowball(["s1"], all=True, offline=True)  # two ways at once
    with pytest.raises(NotFoundError):
        built.snowball(["no-such-work"], offline=True)
    with pytest.raises(InvalidRequestError):
        built.snowball(all=True, direction="sideways", offline=True)
    with pytest.raises(InvalidRequestError):
        built.snowball(all=True, limit=0, offline=True)


def test_all_without_references_says_so(library: Any) -> None:
    library.import_records([dict(w) for w in h.WORKS])
    answer = library.snowball(all=True, offline=True)
    assert answer["candidates"] == []
    assert any("no reference lists" in m for m in answer["messages"])
    empty = library.snowball(["s1"], offline=True, direction="backward")
    assert empty["total"] == 0


def test_dismissed_never_come_back(built: Any) -> None:
    built.dismiss_candidate("doi:10.1038/nature21707", "Global warming")
    built.dismiss_candidate("doi:10.1038/nature21707")  # twice: still once
    answer = built.snowball(all=True, offline=True)
    assert "doi:10.1038/nature21707" not in keys(answer)
    # dismissed by its title key, it stays away when OpenAlex later gives it a DOI too
    built.dismiss_candidate("arxiv:2101.00001")
    assert keys(built.snowball(all=True, offline=True)) == [
        "title:coral symbiont shuffling after bleaching|2008"
    ]
    assert built.undismiss_candidate("arxiv:2101.00001")["found"] is True
    assert "arxiv:2101.00001" in keys(built.snowball(all=True, offline=True))
    with pytest.raises(InvalidRequestError):
        built.dismiss_candidate("file:nonsense")


def test_a_dismissed_candidate_stays_away_under_another_identifier(built: Any) -> None:
    """Dismissed by the arXiv id the local reference gave it, the same paper met later
    through OpenAlex with a DOI too (its key now the DOI) is still the dismissed one."""
    records = h.graph_records()
    records["W1"]["referenced_works"].append("W30")
    records["W30"] = h.record(
        "W30", "Coral reef heatwave models", arxiv="2101.00001", doi="10.5555/heatwave", year=2021
    )
    before = keys(built.snowball(["s1"], graph=h.FakeGraph(records, budget=50)))
    assert "doi:10.5555/heatwave" in before and "arxiv:2101.00001" not in before  # one work
    built.dismiss_candidate("arxiv:2101.00001", "Coral reef heatwave models")
    after = keys(built.snowball(["s1"], graph=h.FakeGraph(records, budget=50)))
    assert "doi:10.5555/heatwave" not in after and "arxiv:2101.00001" not in after
    assert set(after) == set(before) - {"doi:10.5555/heatwave"}  # nothing else left out
    # and the other way round: dismissed by the DOI, the merged sighting stays away
    built.undismiss_candidate("arxiv:2101.00001")
    built.dismiss_candidate("doi:10.5555/heatwave")
    assert "doi:10.5555/heatwave" not in keys(
        built.snowball(["s1"], graph=h.FakeGraph(records, budget=50))
    )


def test_online_snowball_merges_openalex_and_counts_requests(built: Any) -> None:
    graph = h.FakeGraph(h.graph_records(), budget=50)
    answer = built.snowball(["s1"], graph=graph)
    assert answer["offline"] is False and answer["budget_reached"] is False
    assert answer["requests"] == 3 and answer["budget_left"] == 47
    by_key = {c["key"]: c for c in answer["candidates"]}
    # W12 is lib3 by title (+ year): left out; W10 is the local Hughes reference by DOI
    assert set(by_key) == {
        "doi:10.1038/nature21707",
        "arxiv:2101.00001",
        "arxiv:1801.00002",
        "openalex:W20",
    }
    hughes = by_key["doi:10.1038/nature21707"]
    assert hughes["why"]["found_by"] == ["local", "openalex"]
    assert hughes["ids"] == {"doi": "10.1038/nature21707", "openalex": "W10"}
    assert hughes["cited_by_count"] == 3000
    w20 = by_key["openalex:W20"]
    assert w20["why"]["forward"] == 1 and w20["why"]["cites_seeds"] == ["s1"]
    assert w20["fetch_route"] == {"pdf_url": "https://example.org/w20.pdf", "version": None}
    # backward only: no citing call, no W20
    again = built.snowball(["s1"], graph=graph, direction="backward")
    assert "openalex:W20" not in keys(again)
    assert again["requests"] == 0  # everything asked was asked before (the cache)


def test_seed_without_openalex_id_is_resolved_by_doi(built: Any) -> None:
    records = h.graph_records()
    records["W2"] = h.record("W2", h.WORKS[1]["title"], referenced_works=["W11"])
    graph = h.FakeGraph(records, dois={"10.1000/s2": "https://openalex.org/W2"})
    with built.lock:
        built.conn.execute("BEGIN IMMEDIATE")
        built.conn.execute("INSERT INTO aliases(alias, work_id) VALUES ('doi:10.1000/s2', 's2')")
        built.conn.execute("COMMIT")
    answer = built.snowball(["s2"], graph=graph, direction="backward")
    assert ("resolve_dois", ("10.1000/s2",)) in graph.calls
    assert "arxiv:1801.00002" in keys(answer)


def test_budget_reached_gives_a_partial_answer(built: Any) -> None:
    graph = h.FakeGraph(h.graph_records(), budget=1)
    answer = built.snowball(["s1"], graph=graph)
    assert answer["budget_reached"] is True and answer["requests"] == 1
    assert answer["budget_left"] == 0
    assert any("budget" in m and "partial" in m for m in answer["messages"])
    # the local graph still answers
    assert "doi:10.1038/nature21707" in keys(answer)


def test_openalex_failure_keeps_the_local_answer(built: Any) -> None:
    from prioris.errors import ProviderUnavailableError

    class Broken(h.FakeGraph):
        def works(self, ids: Any) -> Any:
            raise ProviderUnavailableError("OpenAlex answered 503")

    answer = built.snowball(["s1"], graph=Broken({}))
    assert any("OpenAlex failed" in m for m in answer["messages"])
    assert "doi:10.1038/nature21707" in keys(answer)


def test_without_a_key_the_library_stays_offline(built: Any) -> None:
    answer = built.snowball(["s1"])
    assert answer["offline"] is True
    assert any("API key" in m for m in answer["messages"])


def test_citation_graph(built: Any) -> None:
    graph = built.citation_graph()
    assert {n["id"] for n in graph["nodes"]} == {"s1", "s2", "lib3"}
    s1 = next(n for n in graph["nodes"] if n["id"] == "s1")
    assert s1["title"] == h.WORKS[0]["title"] and s1["year"] == 2020 and s1["kind"] == "work"
    assert graph["edges"] == [{"source": "s1", "target": "lib3", "kind": "cites"}]
    with_candidates = built.citation_graph(True, offline=True)
    ids = {n["id"] for n in with_candidates["nodes"]}
    assert "doi:10.1038/nature21707" in ids
    edges = {(e["source"], e["target"]) for e in with_candidates["edges"]}
    assert ("s1", "doi:10.1038/nature21707") in edges and ("s2", "doi:10.1038/nature21707") in edges
    assert with_candidates["snowball"]["offline"] is True


def test_citation_graph_of_an_empty_library(library: Any) -> None:
    assert library.citation_graph(True, offline=True) == {"nodes": [], "edges": []}
    answer = library.snowball(all=True, offline=True)
    assert answer["seeds"] == [] and answer["candidates"] == []
    assert any("no works" in m for m in answer["messages"])
