"""The Europe PMC tools and arXiv's list_top_n through the real MCP client.

Provider answers are written here (JATS, search JSON, an Atom feed) and served by an
httpx.MockTransport at the edge, so these run without ../shared; the server, Library,
storage and search are real. Each tool's content is asserted, and the request it made.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from mcp import Client

from interfaces.mcp_helpers import data, error, make_library, with_client

JATS = (
    b'<?xml version="1.0" encoding="UTF-8"?><article><front><article-meta>'
    b"<title-group><article-title>Mangrove soils and carbon</article-title></title-group>"
    b"<abstract><p>Mangroves bury carbon.</p></abstract></article-meta></front><body>"
    b"<sec><title>Methods</title><p>Sediment cores were dated with lead isotopes.</p></sec>"
    + b"".join(
        b"<sec><title>Site %d</title><p>" % i
        + b"Core samples from the estuary. " * 40
        + b"</p></sec>"
        for i in range(1, 4)
    )
    + b"</body></article>"
)

RECORDS = {
    "PMC7000001": {
        "id": "31000001",
        "source": "MED",
        "pmid": "31000001",
        "pmcid": "PMC7000001",
        "doi": "10.1234/mangrove",
        "title": "Mangrove soils and carbon",
        "authorString": "Alvarez M, Chen L.",
        "pubYear": "2019",
        "journalInfo": {"journal": {"title": "Estuaries"}},
        "abstractText": "Mangroves bury carbon.",
        "inEPMC": "Y",
        "citedByCount": 12,
    },
    "MED:31000002": {
        "id": "31000002",
        "source": "MED",
        "pmid": "31000002",
        "title": "Seagrass decline",
        "authorString": "Okafor N.",
        "pubYear": "2020",
        "inEPMC": "N",
    },
}


def _atom(ids: list[str]) -> str:
    entries = "".join(
        f"<entry><id>http://arxiv.org/abs/{i}</id><title>Paper {i}</title>"
        f"<published>2024-05-0{n + 1}T00:00:00Z</published><summary>About {i}.</summary>"
        "<author><name>A. Writer</name></author>"
        '<category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>'
        '<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL"/>'
        "</entry>"
        for n, i in enumerate(ids)
    )
    return (
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"<opensearch:totalResults>{len(ids)}</opensearch:totalResults>{entries}</feed>"
    )


class Providers:
    """Europe PMC and arXiv at the HTTP edge; records every request."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        url = request.url
        if url.host == "www.ebi.ac.uk" and url.path.endswith("/search"):
            query = url.params["query"]
            hits = [
                r
                for key, r in RECORDS.items()
                if f"PMCID:{key}" in query or f"EXT_ID:{r['id']}" in query
            ]
            return httpx.Response(
                200,
                json={
                    "hitCount": len(hits),
                    "request": {"cursorMark": "*"},
                    "resultList": {"result": hits},
                },
            )
        if url.host == "www.ebi.ac.uk" and url.path.endswith("/PMC7000001/fullTextXML"):
            return httpx.Response(200, content=JATS, headers={"Content-Type": "application/xml"})
        if url.host == "export.arxiv.org":
            return httpx.Response(200, text=_atom(["2405.00003v1", "2405.00002v2", "2405.00001v1"]))
        raise AssertionError(f"unexpected request {url}")


@pytest.fixture
def providers() -> Any:
    handler = Providers()
    library = make_library(httpx.MockTransport(handler))
    handler.library = library
    yield handler
    library.close()


def test_europepmc_fetch_metadata_in_order_with_missing(providers: Providers) -> None:
    async def body(client: Client) -> Any:
        out = data(
            await client.call_tool(
                "research_europepmc_fetch_metadata",
                {"ids": ["MED:31000002", "PMC7000001", "PMC9999999"]},
            )
        )
        out["stored_works"] = providers.library.status()["works"]
        return out

    out = with_client(providers.library, body)
    assert [w["id"] for w in out["results"]] == ["europepmc:MED:31000002", "europepmc:PMC7000001"]
    first, second = out["results"]
    assert first["title"] == "Seagrass decline" and first["year"] == 2020
    assert [a["full_name"] for a in second["authors"]] == ["Alvarez M", "Chen L"]
    assert second["venue"] == "Estuaries" and second["identifier"] == "MED:31000001"
    assert (second["pmcid"], second["full_text_available"]) == ("PMC7000001", True)
    assert first["full_text_available"] is False
    assert "doi:10.1234/mangrove" in second["aliases"] and second["cited_by_count"] == 12
    assert out["missing"] == out["not_found"] == ["PMC9999999"]  # as given
    assert out["stored_works"] == 0  # metadata only: nothing stored
    (search,) = providers.requests
    assert "PMCID:PMC7000001" in search.url.params["query"]
    assert search.url.params["resultType"] == "core"


def test_europepmc_fetch_full_text_then_parse_it(providers: Providers) -> None:
    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["before"] = await client.call_tool(
            "research_europepmc_parse_full_text", {"id": "PMC7000001"}
        )
        out["fetched"] = data(
            await client.call_tool("research_europepmc_fetch_full_text", {"id": "PMC7000001"})
        )
        asked = len(providers.requests)
        out["again"] = data(
            await client.call_tool(
                "research_europepmc_fetch_full_text", {"id": "europepmc:PMC7000001"}
            )
        )
        out["no_new_request"] = len(providers.requests) == asked
        out["first"] = data(
            await client.call_tool(
                "research_europepmc_parse_full_text", {"id": "PMC7000001", "limit": 200}
            )
        )
        out["next"] = data(
            await client.call_tool(
                "research_europepmc_parse_full_text",
                {"id": "doi:10.1234/mangrove", "offset": out["first"]["next_offset"]},
            )
        )
        out["metadata_only"] = await client.call_tool(
            "research_europepmc_fetch_full_text", {"id": "MED:31000002"}
        )
        out["wrong_provider"] = await client.call_tool(
            "research_europepmc_fetch_full_text", {"id": "arXiv:2405.00001"}
        )
        out["found"] = data(
            await client.call_tool(
                "research_search_fetched", {"query": "lead isotopes", "mode": "fts"}
            )
        )
        return out

    out = with_client(providers.library, body)
    assert error(out["before"]).startswith("not_found:")
    assert "research_europepmc_fetch_full_text" in error(out["before"])
    (fetched,) = out["fetched"]["results"]
    assert fetched["id"] == "europepmc:PMC7000001" and fetched["status"] == "ingested"
    assert fetched["chunks"] >= 2 and out["fetched"]["failed"] == []
    assert out["again"]["results"][0]["status"] == "skipped" and out["no_new_request"]
    first, following = out["first"], out["next"]
    assert first["id"] == "europepmc:PMC7000001" and first["title"] == "Mangrove soils and carbon"
    assert first["markdown"].startswith("# Abstract\n\nMangroves bury carbon.")
    assert len(first["markdown"]) == 200 and first["has_more"] and first["next_offset"] == 200
    assert first["total_length"] > 200 + len(following["markdown"]) - 1
    assert following["offset"] == 200
    whole = first["markdown"] + following["markdown"]
    assert "# Methods\n\nSediment cores were dated with lead isotopes." in whole
    # Europe PMC does not host this one's text: the tool says so (PriorisMCP's behaviour)
    assert error(out["metadata_only"]).startswith("format_unavailable:")
    assert "europepmc:MED:31000002" in error(out["metadata_only"])
    assert "research_arxiv_fetch_full_text" in error(out["wrong_provider"])
    assert [h["id"] for h in out["found"]["hits"]] == ["europepmc:PMC7000001"]
    xml_requests = [r for r in providers.requests if r.url.path.endswith("/fullTextXML")]
    assert len(xml_requests) == 1  # the record without full text in Europe PMC asks none


def test_arxiv_list_top_n_newest_first_with_exclusions(providers: Providers) -> None:
    async def body(client: Client) -> dict[str, Any]:
        return {
            "top": data(
                await client.call_tool(
                    "research_arxiv_list_top_n",
                    {"categories": ["cs.CL", "cs.AI"], "n": 2, "exclude": ["cs.CV", "2405.00002"]},
                )
            ),
            "bad": await client.call_tool(
                "research_arxiv_list_top_n", {"categories": ["not a category"]}
            ),
            "stored_works": providers.library.status()["works"],
        }

    out = with_client(providers.library, body)
    assert [w["id"] for w in out["top"]["results"]] == ["arxiv:2405.00003v1", "arxiv:2405.00001v1"]
    assert out["top"]["results"][0]["title"] == "Paper 2405.00003v1"
    (request,) = providers.requests  # the invalid category is refused before any request
    params = request.url.params
    assert params["search_query"] == "(cat:cs.CL OR cat:cs.AI) ANDNOT cat:cs.CV"
    assert (params["sortBy"], params["sortOrder"]) == ("submittedDate", "descending")
    assert params["max_results"] == "3"  # n plus the one excluded id
    assert error(out["bad"]).startswith("invalid_request:")
    assert out["stored_works"] == 0
