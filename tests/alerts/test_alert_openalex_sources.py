"""OpenAlex as alert sources: the works citing a collection since a day, through the
citation graph's cache and daily budget (against the loopback OpenAlex serving the
recorded graph, skipped without ../shared; and inline replies that always run), and a
keyword search since a day taking its requests from the budget."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from prioris.alerts.openalex_sources import OpenAlexCitingSource, OpenAlexSearchSource
from prioris.config import load_settings
from prioris.errors import InvalidRequestError, PriorisError
from prioris.sources.http import ProviderHttp, make_client
from prioris.sources.openalex import OpenAlexClient
from prioris.sources.openalex_graph import OpenAlexGraph
from prioris.sources.openalex_graph_cache import MemoryBudget, MemoryCache

from openalex_server import SEEDS, OpenAlexServer

KEY = "test-key-0123456789"


def http(transport: httpx.BaseTransport | None = None) -> ProviderHttp:
    return ProviderHttp(
        "openalex", make_client(load_settings(), transport), min_interval=0.0, backoff_budget=0.0
    )


@pytest.fixture
def server() -> Iterator[OpenAlexServer]:
    with OpenAlexServer() as srv:
        yield srv


def graph_on(
    server: OpenAlexServer, budget: int = 100, cache: MemoryCache | None = None
) -> OpenAlexGraph:
    return OpenAlexGraph(
        http(), server.base, KEY, cache=cache or MemoryCache(), budget=MemoryBudget(budget)
    )


def test_citing_works_since_a_day_over_the_recorded_graph(server: OpenAlexServer) -> None:
    citing = server.citing(set(SEEDS))
    newer = [w for w in citing if (server.works[w].get("publication_date") or "") >= "2023-01-01"]
    assert 0 < len(newer) < len(citing)  # the date filter has something to drop
    graph = graph_on(server)
    source = OpenAlexCitingSource(graph, [f"openalex:{s}" for s in SEEDS])
    found = source.candidates("2023-01-01")
    assert sorted(c.id for c in found) == sorted(f"openalex:{w}" for w in newer)
    assert server.filters() == ["cites:W3045921891|W3046863325,from_publication_date:2023-01-01"]
    assert graph.requests == 1 and source.notes == []
    one = found[0]
    obj = server.works[one.id.removeprefix("openalex:")]
    assert one.title == obj["title"] and one.published == obj["publication_date"]
    assert (
        one.identifiers[0] == one.id
        and f"doi:{obj['doi'].removeprefix('https://doi.org/').lower()}" in one.identifiers
    )
    assert one.extra["cites_seeds"] == "true"


def test_a_second_run_the_same_day_is_answered_by_the_cache(server: OpenAlexServer) -> None:
    cache = MemoryCache()
    first = OpenAlexCitingSource(graph_on(server, cache=cache), list(SEEDS)).candidates(
        "2023-01-01"
    )
    asked = len(server.paths)
    graph = graph_on(server, cache=cache)
    again = OpenAlexCitingSource(graph, list(SEEDS)).candidates("2023-01-01")
    assert [c.id for c in again] == [c.id for c in first]
    assert len(server.paths) == asked and graph.requests == 0 and graph.cache_hits >= 1


def test_doi_seeds_are_resolved_first_and_the_bound_holds(server: OpenAlexServer) -> None:
    dois = [f"doi:{server.works[s]['doi'].removeprefix('https://doi.org/')}" for s in SEEDS]
    graph = graph_on(server)
    found = OpenAlexCitingSource(graph, dois, max_results=2).candidates(None)
    assert len(found) == 2
    filters = server.filters()
    assert filters[0].startswith("doi:") and filters[1] == "cites:W3045921891|W3046863325"
    assert graph.requests == 2


def test_a_spent_budget_gives_a_partial_run_and_says_so(server: OpenAlexServer) -> None:
    source = OpenAlexCitingSource(graph_on(server, budget=0), list(SEEDS))
    assert source.candidates("2023-01-01") == []
    assert server.paths == [] and "daily request budget is spent" in source.notes[0]


def test_seeds_without_openalex_ids_or_dois_ask_nothing(server: OpenAlexServer) -> None:
    source = OpenAlexCitingSource(graph_on(server), ["arxiv:2401.01234", "not an id"])
    assert source.candidates(None) == [] and server.paths == []
    assert "nothing to ask" in source.notes[0]


def inline_graph(
    handler: Callable[[httpx.Request], httpx.Response], budget: int = 100
) -> OpenAlexGraph:
    return OpenAlexGraph(
        http(httpx.MockTransport(handler)),
        "https://openalex.test",
        KEY,
        cache=MemoryCache(),
        budget=MemoryBudget(budget),
    )


def work(n: int, day: str, cites: str = "W1") -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/W9{n:05d}",
        "doi": f"https://doi.org/10.5555/n{n}",
        "title": f"Citing work {n}",
        "publication_date": day,
        "publication_year": int(day[:4]),
        "ids": {
            "openalex": f"https://openalex.org/W9{n:05d}",
            "pmid": f"https://pubmed.ncbi.nlm.nih.gov/{n}",
        },
        "type": "article",
        "referenced_works": [f"https://openalex.org/{cites}"],
        "abstract_inverted_index": {"New": [0], "result": [1]},
    }


def test_seeds_are_batched_fifty_a_request_with_the_date_filter() -> None:
    sent: list[dict[str, str]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(dict(request.url.params))
        n = len(sent)
        results = [work(n, "2026-03-02"), work(100 + n, "2026-02-01")]  # one too old
        return httpx.Response(
            200, json={"meta": {"count": 2, "next_cursor": None}, "results": results}
        )

    seeds = [f"W{1000 + n}" for n in range(120)]
    source = OpenAlexCitingSource(inline_graph(answer), seeds)
    found = source.candidates("2026-03-01T08:00:00Z")
    assert len(sent) == 3  # 50 + 50 + 20 seeds
    assert [len(p["filter"].split(",")[0].removeprefix("cites:").split("|")) for p in sent] == [
        50,
        50,
        20,
    ]
    assert all(p["filter"].endswith(",from_publication_date:2026-03-01") for p in sent)
    assert all(p["api_key"] == KEY for p in sent)
    assert [c.id for c in found] == ["openalex:W900001", "openalex:W900002", "openalex:W900003"]
    assert found[0].identifiers == (
        "openalex:W900001",
        "doi:10.5555/n1",
        "europepmc:MED:1",
        "pmid:1",
    )
    assert found[0].text == "New result"


def test_an_openalex_refusal_names_the_source() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": "Invalid query parameters error."})

    with pytest.raises(InvalidRequestError) as caught:
        OpenAlexCitingSource(inline_graph(refuse), ["W1"]).candidates(None)
    assert caught.value.message.startswith("alert source 'openalex-cites' failed:")
    assert caught.value.source == "openalex-cites"
    with pytest.raises(InvalidRequestError, match="since must be"):
        OpenAlexCitingSource(inline_graph(refuse), ["W1"]).candidates("yesterday")


def search_client(handler: Callable[[httpx.Request], httpx.Response]) -> OpenAlexClient:
    return OpenAlexClient(http(httpx.MockTransport(handler)), "https://openalex.test", KEY)


def test_a_keyword_search_since_a_day_inside_the_budget() -> None:
    sent: list[dict[str, str]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(dict(request.url.params))
        page = int(sent[-1]["page"])
        results = [work(page * 10 + k, "2026-03-03") for k in range(3)]
        meta = {"count": 9, "page": page, "per_page": 3}
        return httpx.Response(200, json={"meta": meta, "results": results})

    budget = MemoryBudget(2)
    source = OpenAlexSearchSource(
        search_client(answer), "sleep spindles", budget=budget, page_size=3, max_results=9
    )
    found = source.candidates("2026-03-01")
    assert len(sent) == 2 and len(found) == 6  # the budget allowed two pages of three
    assert sent[0]["search"] == "sleep spindles"
    assert sent[0]["filter"] == "from_publication_date:2026-03-01" and sent[0]["api_key"] == KEY
    assert "daily request budget is spent" in source.notes[0] and budget.left() == 0
    bounded = OpenAlexSearchSource(
        search_client(answer), "sleep spindles", page_size=3, max_results=4
    )
    assert len(bounded.candidates(None)) == 4 and bounded.notes == []
    assert "filter" not in sent[-1] and int(sent[-1]["page"]) == 2  # two pages, then enough


def test_a_keyword_search_failure_names_the_source() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    with pytest.raises(PriorisError) as caught:
        OpenAlexSearchSource(search_client(down), "x", name='openalex:"x"').candidates(None)
    assert caught.value.code == "provider_unavailable"
    assert caught.value.message.startswith("alert source 'openalex:\"x\"' failed:")


def test_an_alert_run_asks_openalex_for_the_collection_s_citing_works(
    server: OpenAlexServer, data_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end through the Library: a collection of the recorded seeds, an alert with
    ``openalex-cites``, a run against the loopback OpenAlex: the stored results are the
    works citing the seeds since the day asked, ranked, each with its ``why``; the request
    carries the key and the date filter; a second run the same day asks nothing again."""
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", server.base)
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", KEY)
    monkeypatch.setenv("PRIORIS_MCP_ENRICH", "off")
    records = [
        {
            "_id": seed,
            "title": server.works[seed]["title"],
            "year": server.works[seed].get("publication_year"),
            "text": f"{server.works[seed]['title']}. Seed work of the recorded graph.",
            "collections": ["Graph seeds"],
        }
        for seed in SEEDS
    ]
    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        assert not library.import_records(records).failed
        library.alerts_add("citing", collection="Graph seeds", sources="openalex-cites")
        (report,) = library.alerts_run("citing", since="2023-01-01")
        assert report["ok"] and report["error"] is None, report
        citing = server.citing(set(SEEDS))
        newer = {
            f"openalex:{w}"
            for w in citing
            if (server.works[w].get("publication_date") or "") >= "2023-01-01"
        }
        results = library.alerts_show("citing")["results"]
        assert newer and {r["id"] for r in results} == newer
        assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
        assert all(r["source"] == "openalex-cites" and r["why"]["nearest"] for r in results)
        assert {n["id"] for r in results for n in r["why"]["nearest"]} <= set(SEEDS)
        cites = "cites:W3045921891|W3046863325,from_publication_date:2023-01-01"
        assert server.filters() == [cites]
        assert all(q.get("api_key") == [KEY] for q in server.queries())
        asked = len(server.paths)
        (again,) = library.alerts_run("citing", since="2023-01-01")
        assert again["ok"] and len(server.paths) == asked  # the day's answers are cached
