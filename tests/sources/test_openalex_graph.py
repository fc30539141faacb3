"""OpenAlexGraph against a loopback OpenAlex serving the recorded citation-graph answers:
the requests the server receives are counted (batches of 50, cursor pages, the cache, the
budget), and OpenAlex's odd answers (dangling ids, a cursor cycle, a missing page, a 429,
a 400) are met as the module promises."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from prioris.config import load_settings
from prioris.discovery import fetch_route
from prioris.discovery.graph import GraphRecords
from prioris.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
)
from prioris.sources.http import ProviderHttp, make_client
from prioris.sources.openalex_graph import MAX_OR_VALUES, OpenAlexGraph
from prioris.sources.openalex_graph_cache import MemoryBudget, MemoryCache, NoCache
from prioris.sources.openalex_graph_records import WORK_FIELDS, graph_record, record_work

from openalex_server import SEEDS, OpenAlexServer

KEY = "test-key-0123456789"
RECORD_KEYS = {
    "id",
    "title",
    "authors",
    "year",
    "doi",
    "arxiv",
    "pmid",
    "pmcid",
    "venue",
    "type",
    "cited_by_count",
    "referenced_works",
    "related_works",
    "is_oa",
    "pdf_url",
    "abstract",
}


class FakeClock:
    """The HTTP layer's clock: no real sleeping, every sleep recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def server() -> Iterator[OpenAlexServer]:
    with OpenAlexServer() as running:
        yield running


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def graph_of(
    server: OpenAlexServer,
    clock: FakeClock,
    *,
    cache: Any = None,
    budget: Any = None,
    per_page: int = 100,
    max_response_bytes: int = 32 << 20,
) -> OpenAlexGraph:
    settings = load_settings({})
    http = ProviderHttp(
        "openalex",
        make_client(settings),
        min_interval=0.0,
        backoff_budget=60.0,
        clock=clock,
        max_response_bytes=max_response_bytes,
        retry_server_errors=True,  # as the library builds it (RemoteSources.openalex_graph)
    )
    return OpenAlexGraph(
        http,
        server.base,
        KEY,
        cache=cache if cache is not None else MemoryCache(),
        budget=budget if budget is not None else MemoryBudget(1000),
        per_page=per_page,
    )


def seed_references(server: OpenAlexServer) -> list[str]:
    refs: list[str] = []
    for seed in SEEDS:
        refs += [r.rsplit("/", 1)[-1] for r in server.works[seed]["referenced_works"]]
    return list(dict.fromkeys(refs))


# -- the fake is OpenAlex's recorded behaviour ------------------------------------------


def test_the_loopback_server_answers_as_the_recordings(server: OpenAlexServer) -> None:
    """The filters computed over the recorded works give what OpenAlex gave."""
    folder = server.folder
    recorded = json.loads(
        (folder / "openalexpro_cites_W3046863325-W3045921891_cursor-start.json").read_text()
    )
    want = sorted(r["id"].rsplit("/", 1)[-1] for r in recorded["results"])
    assert sorted(server.citing(set(SEEDS))) == want and len(want) == 5
    cited = json.loads(
        (folder / "openalexpro_cited_by_W3046863325-W3045921891_cursor-start.json").read_text()
    )
    returned = {r["id"].rsplit("/", 1)[-1] for r in cited["results"]}
    refs = seed_references(server)
    assert len(refs) == 42 and len(returned) == 38 and returned < set(refs)  # 4 dangle


def test_every_selected_field_is_one_openalex_accepts(server: OpenAlexServer) -> None:
    """``select=`` fields checked against the list OpenAlex's own 400 answer gives."""
    assert set(WORK_FIELDS) <= server.select_fields


def test_it_is_a_graph_records_and_needs_a_key(server: OpenAlexServer, clock: FakeClock) -> None:
    graph: GraphRecords = graph_of(server, clock)
    assert graph.requests == 0 and graph.budget_left == 1000 and not graph.budget_reached
    http = ProviderHttp(
        "openalex", make_client(load_settings({})), min_interval=0, backoff_budget=0
    )
    for key in (None, ""):
        with pytest.raises(ConfigurationError, match="API key"):
            OpenAlexGraph(http, server.base, key, cache=NoCache(), budget=MemoryBudget(1))
    assert server.paths == []


# -- DOIs, works, citing works: batches, pages, the cache --------------------------------


def test_dois_resolve_fifty_a_request_and_then_from_the_cache(
    server: OpenAlexServer, clock: FakeClock
) -> None:
    known = {
        str(obj["doi"]).removeprefix("https://doi.org/").lower(): wid
        for wid, obj in server.works.items()
        if obj.get("doi")
    }
    unknown = [f"10.9999/not-in-openalex.{i}" for i in range(60 - len(known))]
    asked = [f"https://doi.org/{d.upper()}" for d in known] + unknown
    assert len(asked) == 60
    graph = graph_of(server, clock)
    found = graph.resolve_dois(asked)
    assert found == known  # lower-case, no prefix; unknown DOIs absent
    assert graph.requests == len(server.paths) == math.ceil(60 / MAX_OR_VALUES) == 2
    for query in server.queries():
        values = query["filter"][0].removeprefix("doi:").split("|")
        assert len(values) <= MAX_OR_VALUES and query["api_key"] == [KEY]
        assert query["select"][0].split(",") == list(WORK_FIELDS)
    # again: every DOI, known or not, answered by the cache; the works came along too
    again = graph_of(server, clock, cache=graph.cache)
    assert again.resolve_dois(asked) == known and again.requests == 0
    assert set(again.works(list(known.values()))) == set(known.values())
    assert again.requests == 0 and len(server.paths) == 2 and again.cache_hits > 0


def test_a_doi_with_a_comma_is_looked_up_alone(server: OpenAlexServer, clock: FakeClock) -> None:
    odd = "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o,x"
    graph = graph_of(server, clock)
    assert graph.resolve_dois([odd]) == {}
    (path,) = server.paths
    assert path.startswith("/works/doi:10.1002/") and "filter=" not in path
    assert graph_of(server, clock, cache=graph.cache).resolve_dois([odd]) == {}
    assert len(server.paths) == 1  # its absence is remembered


def test_works_by_id_walk_the_cursor_pages_and_tolerate_dangling_ids(
    server: OpenAlexServer, clock: FakeClock
) -> None:
    refs = seed_references(server)
    graph = graph_of(server, clock, per_page=10)
    records = graph.works(refs)
    assert len(records) == 38 and set(records) < set(refs)  # the 4 stale ids are absent
    # one batch (42 ids < 50), pages of 10: 38 works in 4 pages; the cursor after the
    # last page is not followed since meta.count says all are in hand
    assert graph.requests == len(server.paths) == 4
    cursors = [q["cursor"][0] for q in server.queries()]
    assert cursors[0] == "*" and len(set(cursors)) == 4
    for record in records.values():
        assert set(record) >= RECORD_KEYS
        assert all(not r.startswith("http") for r in record["referenced_works"])
    # a second call, dangling ids included, asks nothing
    assert graph.works(refs) == records and graph.requests == 4


def test_records_are_normalised(server: OpenAlexServer, clock: FakeClock) -> None:
    graph = graph_of(server, clock)
    records = graph.works(["https://openalex.org/W2162348455", "W4234567890", *SEEDS])
    assert len(server.paths) == 1 and len(server.filters()[0].split("|")) == 4
    myers = records["W2162348455"]
    assert myers["title"] == "Biodiversity hotspots for conservation priorities"
    assert myers["year"] == 2000 and myers["doi"] == "10.1038/35002501"
    assert len(myers["referenced_works"]) == 230 and len(myers["related_works"]) == 10
    assert myers["authors"][0].startswith("Norman") and myers["venue"] == "Nature"
    assert records["W4234567890"]["title"] is None  # OpenAlex's null title stays missing
    assert records["W4234567890"]["referenced_works"] == []
    seed = records["W3045921891"]
    assert seed["arxiv"] == "2007.14454" and len(seed["referenced_works"]) == 37
    assert fetch_route(record_work(seed)) == {"provider": "arxiv", "identifier": "arxiv:2007.14454"}
    assert graph_record({"title": "no id"}) is None


def test_citing_works_are_paged_limited_and_cached(
    server: OpenAlexServer, clock: FakeClock
) -> None:
    expected = server.citing(set(SEEDS))
    graph = graph_of(server, clock, per_page=2)
    citing = graph.citing(list(SEEDS), limit=100)
    assert [r["id"] for r in citing] == expected and len(expected) == 5
    assert all(set(SEEDS) & set(r["referenced_works"]) for r in citing)
    assert graph.requests == 3  # 2 + 2 + 1, the last page short of meta.count: done
    assert server.filters()[0] == "cites:" + "|".join(sorted(SEEDS))
    again = graph_of(server, clock, cache=graph.cache, per_page=2)
    assert [r["id"] for r in again.citing(list(reversed(SEEDS)), limit=100)] == expected
    assert again.requests == 0 and len(server.paths) == 3
    limited = graph_of(server, clock, per_page=2)
    assert len(limited.citing(list(SEEDS), limit=3)) == 3 and limited.requests == 2
    assert limited.citing(list(SEEDS), limit=0) == [] and limited.requests == 2


def test_without_a_cache_every_call_asks_again(server: OpenAlexServer, clock: FakeClock) -> None:
    graph = graph_of(server, clock, cache=NoCache())
    graph.citing(list(SEEDS), limit=10)
    graph.citing(list(SEEDS), limit=10)
    assert graph.requests == len(server.paths) == 2


def test_many_ids_go_fifty_a_request(server: OpenAlexServer, clock: FakeClock) -> None:
    ids = [f"W{n}" for n in range(1, 121)]
    graph = graph_of(server, clock)
    assert graph.works(ids) == {} and graph.citing(ids, limit=10) == []
    sizes = [len(f.split(":", 1)[1].split("|")) for f in server.filters()]
    assert sizes == [50, 50, 20, 50, 50, 20] and graph.requests == 6


# -- the budget ----------------------------------------------------------------------------


def test_a_spent_budget_gives_partial_results_and_no_further_request(
    server: OpenAlexServer, clock: FakeClock
) -> None:
    budget = MemoryBudget(2)
    graph = graph_of(server, clock, budget=budget, per_page=10)
    records = graph.works(seed_references(server))
    assert len(records) == 20 and graph.budget_reached and graph.budget_left == 0
    assert graph.requests == len(server.paths) == 2
    assert graph.citing(list(SEEDS), limit=10) == [] and graph.resolve_dois(["10.1/x"]) == {}
    assert len(server.paths) == 2
    # the pages it got are cached: a new day's budget starts where this one stopped
    later = graph_of(server, clock, cache=graph.cache, budget=MemoryBudget(10), per_page=10)
    assert len(later.works(seed_references(server))) == 38 and later.requests == 2


def test_a_budget_of_zero_makes_no_request(server: OpenAlexServer, clock: FakeClock) -> None:
    graph = graph_of(server, clock, budget=MemoryBudget(0))
    assert graph.citing(list(SEEDS), limit=5) == [] and graph.budget_reached
    assert server.paths == [] and graph.requests == 0


# -- OpenAlex's odd answers ----------------------------------------------------------------


def test_a_429_with_retry_after_is_waited_out(server: OpenAlexServer, clock: FakeClock) -> None:
    server.faults.append((429, {"Retry-After": "3"}, b'{"error":"Too many requests"}'))
    graph = graph_of(server, clock)
    assert len(graph.citing(list(SEEDS), limit=10)) == 5
    assert clock.sleeps == [3.0] and len(server.paths) == 2
    assert graph.requests == 1  # one request, retried once by the HTTP layer


def test_a_passing_503_is_waited_out_and_a_500_is_not(
    server: OpenAlexServer, clock: FakeClock
) -> None:
    server.faults.append((503, {"Retry-After": "2"}, b"Service Unavailable"))
    assert len(graph_of(server, clock).works(list(SEEDS))) == 2
    assert clock.sleeps == [2.0] and len(server.paths) == 2
    server.faults.append((500, {}, b"Internal Server Error"))
    with pytest.raises(ProviderUnavailableError, match="HTTP 500"):
        graph_of(server, clock).citing(list(SEEDS), limit=5)
    assert len(server.paths) == 3 and clock.sleeps == [2.0]
    server.faults.extend([(503, {"Retry-After": "30"}, b"down")] * 5)
    with pytest.raises(ProviderUnavailableError, match=r"HTTP 503.*after 2 retries"):
        graph_of(server, clock).citing(list(SEEDS), limit=5)  # 30 + 30 s fit the 60 s budget
    assert len(server.paths) == 6 and clock.sleeps == [2.0, 30.0, 30.0]


def test_a_cursor_that_comes_back_ends_the_walk(server: OpenAlexServer, clock: FakeClock) -> None:
    server.cycle = True
    graph = graph_of(server, clock, per_page=10)
    records = graph.works(seed_references(server))
    assert len(records) == 20 and len(server.paths) == 3  # *, page 2, back to page 1: stop
    assert any("cycle" in w for w in graph.warnings)
    # an interrupted walk proves nothing about the ids it did not reach: not kept as absent
    server.cycle = False
    assert len(graph.works(seed_references(server))) == 38


def test_a_missing_page_ends_the_walk_with_what_it_has(
    server: OpenAlexServer, clock: FakeClock
) -> None:
    server.missing_from = 2
    graph = graph_of(server, clock, per_page=2)
    citing = graph.citing(list(SEEDS), limit=100)
    assert len(citing) == 2 and len(server.paths) == 2
    assert any("missing" in w for w in graph.warnings)
    server.missing_from = 0  # the first page missing: nothing at all, an error
    with pytest.raises(NotFoundError):
        graph_of(server, clock).citing(["W1"], limit=5)


def test_a_400_is_a_clear_error_without_the_key(server: OpenAlexServer, clock: FakeClock) -> None:
    body = (server.folder / "openalexpro_error400_filter_DOESNTEXIST.json").read_bytes()
    server.faults.append((400, {}, body))
    with pytest.raises(InvalidRequestError) as err:
        graph_of(server, clock).citing(list(SEEDS), limit=5)
    message = err.value.message
    assert err.value.code == "invalid_request" and "HTTP 400" in message
    assert "is not a valid field" in message and KEY not in message


def test_an_answer_over_the_size_limit_is_refused(server: OpenAlexServer, clock: FakeClock) -> None:
    graph = graph_of(server, clock, max_response_bytes=2048)
    with pytest.raises(ProviderUnavailableError, match="limit"):
        graph.works(list(SEEDS))
    assert graph.cache.bodies == {}  # nothing kept


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.works(["nope"]), "not an OpenAlex work id"),
        (lambda g: g.citing(["W1", "10.1/x"], limit=5), "not an OpenAlex work id"),
        (lambda g: g.citing(["W1"], limit=-1), "limit"),
        (lambda g: g.citing(["W1"], limit=True), "limit"),
        (lambda g: g.resolve_dois(["W123"]), "not a DOI"),
    ],
)
def test_bad_input_is_refused_before_any_request(
    server: OpenAlexServer, clock: FakeClock, call: Any, message: str
) -> None:
    with pytest.raises(InvalidRequestError, match=message):
        call(graph_of(server, clock))
    assert server.paths == []
