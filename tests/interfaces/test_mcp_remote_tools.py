"""MCP tools over remote providers, with recorded real responses at the HTTP edge.

arXiv and Europe PMC answers come from ../shared/fixtures/api (via ``shared_path``); PDFs,
OAI-PMH sets and OpenAlex pages the tests need are written here. The Library, storage,
ingest and search are real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from interfaces.mcp_helpers import (
    TOPICS,
    as_json,
    data,
    error,
    make_library,
    pdf_bytes,
    with_client,
)

from conftest import shared_path

LIST_SETS = b"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListSets>
<set><setSpec>cs</setSpec><setName>Computer Science</setName></set>
<set><setSpec>cs:cs:AI</setSpec><setName>Artificial Intelligence</setName></set>
</ListSets></OAI-PMH>"""

OPENALEX_HIT = {
    "id": "https://openalex.org/W2741809807",
    "doi": "https://doi.org/10.7717/peerj.4375",
    "title": "The state of OA",
    "display_name": "The state of OA",
    "publication_year": 2018,
    "type": "article",
    "cited_by_count": 900,
    "authorships": [{"author": {"display_name": "Heather Piwowar"}}],
    "open_access": {"is_oa": True, "oa_status": "gold"},
    "ids": {"openalex": "https://openalex.org/W2741809807"},
    "relevance_score": 0.9,
}


FIXTURES = (
    ("arxiv", "id_1605.08386_s0_m100_199195aa31ad.atom.xml"),
    ("arxiv", "id_0000.0000_s0_m100_8b51d9633a68.atom.xml"),
    ("arxiv", "q_testing_s0_m10_bc5a6c384fe9.atom.xml"),
    ("europepmc", "pyeuropepmc_search_cancer_core.json"),
)


class Api:
    """A MockTransport handler serving fixtures; records every request.

    The recorded files are read here, in the test's own thread: a missing ../shared then
    skips the test cleanly instead of failing inside the server's task group.
    """

    def __init__(self, pdf: bytes) -> None:
        self.pdf = pdf
        self.requests: list[httpx.Request] = []
        self.files = {
            name: shared_path("fixtures", "api", folder, name).read_bytes()
            for folder, name in FIXTURES
        }

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        url = request.url
        params = dict(url.params)
        if url.host == "export.arxiv.org":
            if "id_list" in params:
                if params["id_list"].startswith("1605.08386"):
                    return self._file("arxiv", "id_1605.08386_s0_m100_199195aa31ad.atom.xml")
                return self._file("arxiv", "id_0000.0000_s0_m100_8b51d9633a68.atom.xml")
            return self._file("arxiv", "q_testing_s0_m10_bc5a6c384fe9.atom.xml")
        if url.host == "arxiv.org" and url.path.startswith("/pdf/"):
            return httpx.Response(
                200, content=self.pdf, headers={"Content-Type": "application/pdf"}
            )
        if url.host == "arxiv.org" and url.path.startswith("/html/"):
            return httpx.Response(404, text="no html")
        if url.host == "oaipmh.arxiv.org":
            return httpx.Response(200, content=LIST_SETS)
        if url.host == "www.ebi.ac.uk":
            return self._file("europepmc", "pyeuropepmc_search_cancer_core.json")
        if url.host == "doi.org":
            return httpx.Response(302, headers={"Location": "https://publisher.example/x"})
        if url.host == "api.openalex.org":
            if url.path == "/work-types":
                return httpx.Response(
                    200,
                    json={
                        "meta": {"count": 1},
                        "results": [
                            {
                                "id": "https://openalex.org/work-types/article",
                                "display_name": "article",
                            }
                        ],
                    },
                )
            return httpx.Response(
                200,
                json={"meta": {"count": 1, "page": 1, "per_page": 25}, "results": [OPENALEX_HIT]},
            )
        raise AssertionError(f"unexpected request {url}")

    def _file(self, folder: str, name: str) -> httpx.Response:
        return httpx.Response(200, content=self.files[name])


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "test-key")
    handler = Api(pdf_bytes(tmp_path, *TOPICS[0]))
    library = make_library(httpx.MockTransport(handler))
    handler.library = library
    yield handler
    library.close()


def test_arxiv_search_metadata_and_categories(api: Api) -> None:
    async def body(client: Client) -> dict[str, Any]:
        return {
            "search": data(
                await client.call_tool(
                    "research_arxiv_search", {"query": "testing", "max_results": 10}
                )
            ),
            "meta": data(
                await client.call_tool("research_arxiv_fetch_metadata", {"ids": ["1605.08386"]})
            ),
            "cats": as_json(await client.read_resource("research://arxiv/categories")),
            "bad": await client.call_tool(
                "research_arxiv_search", {"query": "x", "max_results": 5000}
            ),
        }

    out = with_client(api.library, body)
    assert out["search"]["total"] > 10 and len(out["search"]["results"]) == 10
    assert out["search"]["next"] == 10
    assert out["search"]["results"][0]["id"].startswith("arxiv:")
    assert out["meta"]["results"][0]["id"] == "arxiv:1605.08386v1" and out["meta"]["missing"] == []
    assert out["cats"] == {"categories": [{"code": "cs.AI", "name": "Artificial Intelligence"}]}
    assert error(out["bad"]).startswith("invalid_request:")


def test_arxiv_fetch_full_text_stores_then_parses(api: Api) -> None:
    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["fetched"] = data(
            await client.call_tool("research_arxiv_fetch_full_text", {"id": "arXiv:1605.08386"})
        )
        work_id = out["fetched"]["results"][0]["id"]
        out["read"] = data(
            await client.call_tool(
                "research_arxiv_parse_full_text", {"id": "1605.08386", "page": 1}
            )
        )
        requests_before = len(api.requests)
        out["again"] = data(
            await client.call_tool("research_arxiv_fetch_full_text", {"id": work_id})
        )
        out["no_new_requests"] = len(api.requests) == requests_before
        out["resolved"] = data(
            await client.call_tool(
                "research_resolve_identifier", {"id": "https://arxiv.org/abs/1605.08386v1"}
            )
        )
        out["html"] = await client.call_tool(
            "research_arxiv_fetch_full_text", {"id": "1605.08386v1", "format": "html"}
        )
        out["wrong"] = await client.call_tool(
            "research_arxiv_fetch_full_text", {"id": "PMC3339582"}
        )
        out["found"] = data(
            await client.call_tool(
                "research_search_fetched", {"query": "protein folding", "mode": "fts"}
            )
        )
        return out

    out = with_client(api.library, body)
    fetched = out["fetched"]["results"][0]
    assert fetched["id"] == "arxiv:1605.08386v1" and fetched["status"] == "ingested"
    assert fetched["pages"] == 2 and out["fetched"]["failed"] == []
    assert out["read"]["id"] == fetched["id"] and "attention" in out["read"]["markdown"]
    assert out["again"]["results"][0]["status"] == "skipped" and out["no_new_requests"]
    assert out["resolved"] == {
        "result": {
            "provider": "arxiv",
            "identifier": "1605.08386v1",
            "resolved_url": "https://arxiv.org/pdf/1605.08386v1",
            "format": "pdf",
            "full_text_available": None,
        },
        "input": "https://arxiv.org/abs/1605.08386v1",
        "id": "arxiv:1605.08386v1",
        "provider": "arxiv",
        "in_library": True,
        "work_id": fetched["id"],
        "provider_error": None,
    }
    # the html format is not stored yet, so arXiv is asked and has none
    assert error(out["html"]).startswith("format_unavailable:")
    assert "research_europepmc_fetch_full_text" in error(out["wrong"])
    assert out["found"]["hits"][0]["id"] == fetched["id"]


def test_europepmc_openalex_discovery_and_doi(api: Api) -> None:
    async def body(client: Client) -> dict[str, Any]:
        return {
            "epmc": data(await client.call_tool("research_europepmc_search", {"query": "cancer"})),
            "openalex": data(
                await client.call_tool(
                    "research_openalex_search", {"query": "open access", "sort": "citations"}
                )
            ),
            "discovery": data(
                await client.call_tool(
                    "research_discovery",
                    {
                        "text": "how much of the literature is open access",
                        "from_year": 2015,
                        "open_access_only": True,
                        "per_page": 10,
                    },
                )
            ),
            "types": as_json(await client.read_resource("research://openalex/work-types")),
            "doi": await client.call_tool(
                "research_resolve_identifier", {"id": "https://doi.org/10.1000/xyz"}
            ),
            "too_long": await client.call_tool("research_discovery", {"text": "x" * 2001}),
        }

    out = with_client(api.library, body)
    assert out["epmc"]["total"] > 1000 and len(out["epmc"]["results"]) == 25
    assert out["epmc"]["next"]
    assert out["openalex"]["results"][0]["id"] == "openalex:W2741809807"
    hit = out["discovery"]["results"][0]
    # a DOI only, no arXiv id, PMCID or open-access PDF link: the user uploads the PDF
    assert hit["in_library"] is False and hit["fetch_route"] == {"manual_upload": True}
    semantic = [r for r in api.requests if "search.semantic" in dict(r.url.params)]
    assert dict(semantic[0].url.params)["per_page"] == "10"
    assert out["types"][0]["display_name"] == "article"
    assert error(out["doi"]).startswith("unsupported_provider:")
    assert error(out["too_long"]).startswith("invalid_request: text:")
