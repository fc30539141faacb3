"""arXiv and Europe PMC as alert sources: recorded replies served over loopback (skipped
without ../shared), and small inline replies that always run: the requests sent (sort,
date filter, paging), ``since``, the bounds, preprints flagged, and failures naming the
source."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from prioris.alerts.provider_sources import ArxivNewSource, EuropePmcSource
from prioris.config import load_settings
from prioris.errors import InvalidRequestError, ProviderUnavailableError
from prioris.sources.arxiv import ArxivClient, parse_atom
from prioris.sources.europepmc import EuropePmcClient
from prioris.sources.http import ProviderHttp, make_client

from conftest import shared_path
from route_server import Answer, RouteServer


def http_for(
    provider: str,
    transport: httpx.BaseTransport | None = None,
    max_response_bytes: int = 1 << 22,
) -> ProviderHttp:
    return ProviderHttp(
        provider,
        make_client(load_settings(), transport),
        min_interval=0.0,
        backoff_budget=0.0,
        max_response_bytes=max_response_bytes,
    )


def query_of(path_or_url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(path_or_url).query).items()}


# -- arXiv -------------------------------------------------------------------------------


def atom_page(entries: list[tuple[str, str]], total: int) -> bytes:
    """An arXiv API page of (id, published) entries, in the API's Atom form."""
    body = "".join(
        f"<entry><id>http://arxiv.org/abs/{aid}</id><title>Paper {aid}</title>"
        f"<published>{when}</published><updated>{when}</updated>"
        f"<summary>About {aid}.</summary><author><name>A. Author</name></author>"
        f'<link href="https://arxiv.org/abs/{aid}" rel="alternate" type="text/html"/>'
        '<arxiv:primary_category term="cs.LG"/><category term="cs.LG"/></entry>'
        for aid, when in entries
    )
    return (
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<opensearch:totalResults>{total}</opensearch:totalResults>"
        f"<opensearch:startIndex>0</opensearch:startIndex>{body}</feed>"
    ).encode()


NEWEST_FIRST = [
    (f"2603.{10000 - n:05d}v1", f"2026-03-{31 - n // 10:02d}T12:00:00Z") for n in range(250)
]
"""250 submissions, ten a day from 2026-03-31 back, newest first as sortBy=submittedDate
with sortOrder=descending returns them."""


def arxiv_source(
    handler: Callable[[httpx.Request], httpx.Response], **kwargs: object
) -> ArxivNewSource:
    http = http_for("arxiv", httpx.MockTransport(handler))
    client = ArxivClient(http, "https://export.arxiv.test/api/query", "https://arxiv.test", "x")
    return ArxivNewSource(client, **kwargs)  # type: ignore[arg-type]


def listing(sent: list[dict[str, str]]) -> Callable[[httpx.Request], httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        sent.append(params)
        start, size = int(params["start"]), int(params["max_results"])
        return httpx.Response(200, content=atom_page(NEWEST_FIRST[start : start + size], 250))

    return answer


def test_arxiv_pages_newest_first_until_entries_are_older_than_since() -> None:
    sent: list[dict[str, str]] = []
    source = arxiv_source(listing(sent), categories=["cs.LG"], page_size=20)
    found = source.candidates("2026-03-29")
    assert len(found) == 30  # three days of ten
    assert {c.published[:10] for c in found} == {"2026-03-29", "2026-03-30", "2026-03-31"}
    assert [p["start"] for p in sent] == ["0", "20"]  # the second page reached older ones
    assert all(p["search_query"] == "cat:cs.LG" for p in sent)
    assert {(p["sortBy"], p["sortOrder"]) for p in sent} == {("submittedDate", "descending")}
    first = found[0]
    assert first.id == "arxiv:2603.10000v1" and first.source == "arxiv:cs.LG"
    assert first.identifiers == ("arxiv:2603.10000v1", "arxiv:2603.10000")
    assert first.extra["preprint"] == "true" and first.extra["primary_category"] == "cs.LG"


def test_arxiv_never_returns_more_than_its_bound() -> None:
    sent: list[dict[str, str]] = []
    source = arxiv_source(listing(sent), categories=["cs.LG", "stat.ML"], max_results=45)
    found = source.candidates(None)
    assert len(found) == 45 and sent[0]["search_query"] == "(cat:cs.LG OR cat:stat.ML)"
    assert sum(int(p["max_results"]) for p in sent) == 45


def test_arxiv_saved_search_query_and_bad_categories() -> None:
    sent: list[dict[str, str]] = []
    arxiv_source(listing(sent), query="graph neural", max_results=5).candidates(None)
    assert sent[0]["search_query"] == "all:graph AND all:neural"
    with pytest.raises(InvalidRequestError, match="not an arXiv category"):
        arxiv_source(listing(sent), categories=["cs LG"])
    with pytest.raises(InvalidRequestError, match="categories or a query"):
        arxiv_source(listing(sent))


def test_arxiv_failure_and_huge_answer_name_the_source() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, content=b"oops")

    with pytest.raises(ProviderUnavailableError) as caught:
        arxiv_source(down, categories=["cs.LG"]).candidates(None)
    assert caught.value.message.startswith("alert source 'arxiv:cs.LG' failed: arxiv:")
    assert caught.value.source == "arxiv:cs.LG"

    def huge(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=atom_page(NEWEST_FIRST, 250))

    http = http_for("arxiv", httpx.MockTransport(huge), max_response_bytes=4096)
    client = ArxivClient(http, "https://export.arxiv.test/api/query", "https://arxiv.test", "x")
    with pytest.raises(ProviderUnavailableError, match="refused"):
        ArxivNewSource(client, categories=["cs.LG"]).candidates(None)


@pytest.fixture
def recorded_arxiv() -> Iterator[RouteServer]:
    folder = shared_path("fixtures", "api", "arxiv")
    pages = {
        "0": (folder / "q_testing_s0_m10_bc5a6c384fe9.atom.xml").read_bytes(),
        "10": (folder / "q_testing_s10_m10_34e56e15aaac.atom.xml").read_bytes(),
    }

    def api(path: str) -> Answer:
        body = pages.get(query_of(path).get("start", ""))
        if body is None:
            return 404, {}, b""
        return 200, {"Content-Type": "application/atom+xml"}, body

    with RouteServer({"/api/query": api}) as server:
        yield server


def recorded_client(server: RouteServer) -> ArxivClient:
    return ArxivClient(http_for("arxiv"), f"{server.base}/api/query", server.base, "x")


def test_arxiv_recorded_pages_over_loopback(recorded_arxiv: RouteServer) -> None:
    client = recorded_client(recorded_arxiv)
    found = ArxivNewSource(client, query="testing", page_size=10, max_results=15).candidates(None)
    assert len(found) == 15  # the second recorded page holds ten: five taken
    assert [query_of(p)["start"] for p in recorded_arxiv.paths] == ["0", "10"]
    assert query_of(recorded_arxiv.paths[0])["search_query"] == "all:testing"
    assert found[0].id == "arxiv:2202.12139v1"
    assert found[0].title.startswith("Testing Deep Learning Models")
    assert all(c.identifiers and c.text for c in found)


def test_arxiv_recorded_since_stops_at_the_first_older_page(
    recorded_arxiv: RouteServer,
) -> None:
    page = parse_atom(
        (
            shared_path("fixtures", "api", "arxiv") / "q_testing_s0_m10_bc5a6c384fe9.atom.xml"
        ).read_bytes()
    )
    newer = [w.id for w in page.works if (w.published or "") >= "2024-01-01"]
    source = ArxivNewSource(recorded_client(recorded_arxiv), query="testing", page_size=10)
    found = source.candidates("2024-01-01")
    assert [c.id for c in found] == newer and len(newer) == 3
    assert len(recorded_arxiv.paths) == 1  # that page already held older submissions


# -- Europe PMC --------------------------------------------------------------------------


def epmc_result(ext_id: str, day: str, *, preprint: bool = False) -> dict[str, object]:
    record: dict[str, object] = {
        "id": ext_id,
        "source": "PPR" if preprint else "MED",
        "title": f"Study {ext_id}",
        "abstractText": f"<p>Findings of {ext_id}.</p>",
        "firstPublicationDate": day,
        "pubYear": day[:4],
        "doi": f"10.1234/{ext_id.lower()}",
        "pubTypeList": {"pubType": ["Preprint"] if preprint else ["Journal Article"]},
    }
    if not preprint:
        record["pmid"] = ext_id
    return record


def epmc_source(
    handler: Callable[[httpx.Request], httpx.Response], query: str = "malaria", **kwargs: object
) -> EuropePmcSource:
    client = EuropePmcClient(
        http_for("europepmc", httpx.MockTransport(handler)), "https://epmc.test/rest"
    )
    return EuropePmcSource(client, query, **kwargs)  # type: ignore[arg-type]


def test_europepmc_sends_the_date_filter_and_flags_preprints() -> None:
    sent: list[dict[str, str]] = []
    results = [
        epmc_result("PPR900001", "2026-03-02", preprint=True),
        epmc_result("41000001", "2026-03-01"),
        epmc_result("41000002", "2026-02-27"),  # older: the server's filter, held here too
    ]

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(dict(request.url.params))
        page = results if sent[-1]["cursorMark"] == "*" else []
        return httpx.Response(
            200,
            json={"hitCount": 3, "nextCursorMark": "next", "resultList": {"result": page}},
        )

    found = epmc_source(answer, page_size=2).candidates("2026-03-01")
    assert sent[0]["query"] == "(malaria) AND (FIRST_PDATE:[2026-03-01 TO 3000-12-31])"
    assert sent[0]["resultType"] == "core" and sent[0]["pageSize"] == "2"
    assert [c.id for c in found] == ["europepmc:PPR:PPR900001", "europepmc:MED:41000001"]
    assert found[0].extra["preprint"] == "true" and found[0].extra["europepmc_source"] == "PPR"
    assert found[1].extra["preprint"] == "false"
    assert found[1].identifiers == (
        "europepmc:MED:41000001",
        "pmid:41000001",
        "doi:10.1234/41000001",
    )
    assert found[1].text == "Findings of 41000001." and found[1].published == "2026-03-01"
    assert [p["cursorMark"] for p in sent] == ["*", "next"]  # paged to the empty end


def test_europepmc_preprints_only_and_the_bound() -> None:
    sent: list[dict[str, str]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(dict(request.url.params))
        many = [
            epmc_result(f"4100{n:04d}", "2026-03-01") for n in range(int(sent[-1]["pageSize"]) + 5)
        ]
        return httpx.Response(
            200,
            json={
                "hitCount": 999,
                "nextCursorMark": f"c{len(sent)}",
                "resultList": {"result": many},
            },
        )

    found = epmc_source(answer, max_results=7, preprints_only=True).candidates(None)
    assert len(found) == 7  # the server sent more than asked: still seven
    assert sent[0]["query"] == "(malaria) AND (SRC:PPR)" and len(sent) == 1


def test_europepmc_failure_names_the_source() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"<html>not json</html>")

    with pytest.raises(ProviderUnavailableError) as caught:
        epmc_source(down, name='europepmc:"malaria"').candidates(None)
    assert caught.value.message.startswith("alert source 'europepmc:\"malaria\"' failed:")
    with pytest.raises(InvalidRequestError, match="needs a query"):
        epmc_source(down, query=" ")


def test_europepmc_recorded_search_over_loopback() -> None:
    folder = shared_path("fixtures", "api", "europepmc")
    core = folder / "pyeuropepmc_search_cancer_core.json"
    last = (folder / "pyeuropepmc_search_no_results.json").read_bytes()

    def search(path: str) -> Answer:
        body = core.read_bytes() if query_of(path)["cursorMark"] == "*" else last
        return 200, {"Content-Type": "application/json"}, body

    recorded = json.loads(core.read_text("utf-8"))["resultList"]["result"]
    expected = [r["id"] for r in recorded if r["firstPublicationDate"] >= "2025-07-01"]
    with RouteServer({"/rest/search": search}) as server:
        client = EuropePmcClient(http_for("europepmc"), f"{server.base}/rest")
        found = EuropePmcSource(client, "cancer", page_size=25).candidates("2025-07-01")
        sent = [query_of(p) for p in server.paths]
    pmids = [next(i for i in c.identifiers if i.startswith("pmid:"))[5:] for c in found]
    assert pmids == expected and len(expected) > 10
    assert sent[0]["query"] == "(cancer) AND (FIRST_PDATE:[2025-07-01 TO 3000-12-31])"
    assert len(sent) == 2 and sent[1]["cursorMark"] == recorded_cursor(core)
    first = found[0]
    assert first.id == "europepmc:MED:39709209"
    assert first.identifiers[:2] == ("europepmc:MED:39709209", "pmid:39709209")
    assert "doi:10.1016/s0140-6736(24)02600-x" in first.identifiers
    assert first.extra["preprint"] == "false"


def recorded_cursor(path: object) -> str:
    return json.loads(path.read_text("utf-8"))["nextCursorMark"]  # type: ignore[attr-defined]
