"""Prioris's own argument names beside PriorisMCP's, and what only Prioris adds.

The PriorisMCP contract itself is tests/contract/; this checks that both spellings of an
argument work and are documented in the schema, that mixing them is refused, and the
Prioris-only behaviours next to the reference ones (search modes, OR categories, whole-work
deletion, storing metadata when Europe PMC has no full text).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from interfaces.mcp_helpers import TOPICS, b64, data, error, make_library, pdf_bytes, with_client

from conftest import FAKE_PROVIDER_ENV

ATOM = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"><opensearch:totalResults>1'
    "</opensearch:totalResults><entry><id>http://arxiv.org/abs/2401.01234v3</id>"
    "<title>Protein folding with attention</title><published>2024-01-02T00:00:00Z</published>"
    "<summary>Folding.</summary><author><name>Ada Lovelace</name></author></entry></feed>"
)
UPLOAD = "research_localfile_fetch_full_text"
SEARCH = "research_search_fetched"
DELETE = "research_delete_fetched"
EPMC_PARSE = "research_europepmc_parse_full_text"
RESOLVE = "research_resolve_identifier"
ID = "2401.01234"
NOT_HOSTED = {
    "hitCount": 1,
    "resultList": {
        "result": [
            {
                "id": "555",
                "source": "MED",
                "pmid": "555",
                "title": "Platypus electroreception",
                "abstractText": "Platypuses sense electric fields.",
                "inEPMC": "N",
            }
        ]
    },
}


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    for name, value in FAKE_PROVIDER_ENV.items():
        monkeypatch.setenv(name, value)
    pdf = pdf_bytes(tmp_path, *TOPICS[0])
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.host == "api.arxiv.test":
            return httpx.Response(200, text=ATOM)
        if request.url.host == "arxiv.test":
            return httpx.Response(200, content=pdf, headers={"Content-Type": "application/pdf"})
        if request.url.host == "epmc.test":
            return httpx.Response(200, json=NOT_HOSTED)
        return httpx.Response(404)

    library = make_library(httpx.MockTransport(handler))
    library.seen = seen  # type: ignore[attr-defined]
    yield library
    library.close()


def test_schemas_document_both_names(api: Any) -> None:
    async def body(client: Client) -> Any:
        return {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}

    schemas = with_client(api, body)
    for tool, alias, reference in (
        ("research_arxiv_fetch_full_text", "id", "arxiv_id"),
        ("research_arxiv_fetch_metadata", "ids", "arxiv_ids"),
        ("research_europepmc_fetch_metadata", "ids", "identifiers"),
        ("research_europepmc_search", "cursor", "cursor_mark"),
        ("research_resolve_identifier", "id", "identifier"),
    ):
        assert reference in schemas[tool], tool
        assert f"alias of {reference}" in schemas[tool][alias]["description"], tool
    assert "ANY" in schemas["research_arxiv_list_top_n"]["categories"]["description"]


def test_both_names_work_and_mixing_them_is_refused(api: Any) -> None:
    async def body(client: Client) -> dict[str, Any]:
        tool = "research_arxiv_fetch_metadata"
        return {
            "reference": await client.call_tool(tool, {"arxiv_ids": ["2401.01234"]}),
            "alias": await client.call_tool(tool, {"ids": ["2401.01234"]}),
            "both": await client.call_tool(tool, {"ids": ["2401.01234"], "arxiv_ids": ["x"]}),
            "neither": await client.call_tool(tool, {}),
            "same": await client.call_tool(
                tool, {"ids": ["2401.01234"], "arxiv_ids": ["2401.01234"]}
            ),
        }

    out = with_client(api, body)
    assert data(out["reference"])["results"] == data(out["alias"])["results"]
    assert data(out["alias"])["missing"] == data(out["alias"])["not_found"] == []
    assert error(out["both"]).startswith("invalid_request: give arxiv_ids or its alias ids")
    assert error(out["neither"]).startswith("invalid_request: arxiv_ids is required")
    assert data(out["same"])["results"]


def test_unknown_arguments_are_named(api: Any) -> None:
    async def body(client: Client) -> Any:
        return await client.call_tool(
            "research_search_fetched", {"query": "x", "mdoe": "fts", "limt": 3}
        )

    text = error(with_client(api, body))
    assert text.startswith("invalid_request: unknown arguments 'limt', 'mdoe'")
    assert "accepted:" in text and "mode" in text


def test_list_top_n_categories_any_versus_include_all(api: Any) -> None:
    async def body(client: Client) -> dict[str, Any]:
        tool = "research_arxiv_list_top_n"
        return {
            "any": await client.call_tool(tool, {"categories": ["cs.CL", "cs.AI"], "n": 2}),
            "all": await client.call_tool(tool, {"include_categories": ["cs.CL", "cs.AI"]}),
            "both": await client.call_tool(
                tool, {"categories": ["cs.CL"], "include_categories": ["cs.AI"]}
            ),
            "over": await client.call_tool(tool, {"include_categories": ["cs.CL"], "n": 2001}),
        }

    out = with_client(api, body)
    queries = [r.url.params["search_query"] for r in api.seen]
    assert queries == ["(cat:cs.CL OR cat:cs.AI)", "(cat:cs.CL AND cat:cs.AI)"]
    assert data(out["any"])["total_results"] == 1
    assert error(out["both"]).startswith("invalid_request:")
    assert "2000" in error(out["over"]) and error(out["over"]).startswith("invalid_request:")


def test_search_with_a_mode_is_prioris_search(api: Any, tmp_path: Path) -> None:
    async def body(client: Client) -> dict[str, Any]:
        for title, pages in TOPICS:
            content = b64(pdf_bytes(tmp_path, title, pages))
            await client.call_tool(UPLOAD, {"content_base64": content})
        return {
            "reference": data(
                await client.call_tool("research_search_fetched", {"query": "coral*"})
            ),
            "plain": data(
                await client.call_tool(
                    "research_search_fetched", {"query": "coral* (", "mode": "fts"}
                )
            ),
            "hybrid": data(
                await client.call_tool(
                    "research_search_fetched", {"query": "reef warming", "mode": "hybrid"}
                )
            ),
        }

    out = with_client(api, body)
    reference = out["reference"]
    assert reference["mode"] == "fts" and reference["matches"]
    assert len(reference["hits"]) == len(reference["matches"])  # passages, every one
    assert reference["matches"][0]["provider"] == "localfile"
    assert out["plain"]["hits"]  # plain syntax: the parenthesis is just a character
    hybrid = out["hybrid"]
    assert hybrid["mode"] == "hybrid" and hybrid["hits"][0]["title"] == "Coral reef bleaching"
    assert [m["identifier"] for m in hybrid["matches"]] == [h["id"] for h in hybrid["hits"]]


def test_delete_by_ids_lists_the_entries_it_removed(api: Any, tmp_path: Path) -> None:
    async def body(client: Client) -> dict[str, Any]:
        content = b64(pdf_bytes(tmp_path, *TOPICS[1]))
        stored = data(await client.call_tool(UPLOAD, {"content_base64": content}))
        return {
            "id": stored["id"],
            "deleted": data(
                await client.call_tool("research_delete_fetched", {"ids": [stored["id"]]})
            ),
            "neither": await client.call_tool("research_delete_fetched", {}),
        }

    out = with_client(api, body)
    assert out["deleted"]["deleted_ids"] == [out["id"]]
    assert out["deleted"]["deleted"] == [
        {"provider": "localfile", "identifier": out["id"], "format": "pdf", "artefact": "all"}
    ]
    assert error(out["neither"]).startswith("invalid_request:")


def test_europepmc_metadata_fallback_stores_the_abstract(api: Any) -> None:
    async def body(client: Client) -> dict[str, Any]:
        tool = "research_europepmc_fetch_full_text"
        return {
            "reference": await client.call_tool(tool, {"identifier": "MED:555"}),
            "fallback": data(
                await client.call_tool(tool, {"identifier": "MED:555", "metadata_fallback": True})
            ),
            "listed": data(await client.call_tool("research_list_fetched", {"format": "metadata"})),
            "read": data(
                await client.call_tool(
                    "research_europepmc_parse_full_text", {"identifier": "MED:555"}
                )
            ),
            "resolved": data(
                await client.call_tool(
                    "research_resolve_identifier", {"id": "file:0123456789abcdef"}
                )
            ),
        }

    out = with_client(api, body)
    assert error(out["reference"]).startswith("format_unavailable:")
    fallback = out["fallback"]
    assert fallback["format"] == "metadata" and fallback["size_bytes"] == 0
    assert fallback["resource_uri"] == "research://europepmc/MED:555/metadata/markdown"
    assert [(e["identifier"], e["artefact"]) for e in out["listed"]["entries"]] == [
        ("MED:555", "markdown")
    ]
    assert out["listed"]["total"] == 1 and out["listed"]["results"][0]["id"] == "europepmc:MED:555"
    assert "electric fields" in out["read"]["markdown"] and out["read"]["format"] == "metadata"
    assert out["resolved"]["result"] is None and out["resolved"]["provider"] == "file"


def test_markdown_resource_is_json(api: Any, tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        content = b64(pdf_bytes(tmp_path, *TOPICS[0]))
        stored = data(await client.call_tool(UPLOAD, {"content_base64": content}))
        key = stored["id"].split(":", 1)[1]
        return stored["id"], await client.read_resource(f"research://file/{key}/pdf/markdown")

    work_id, resource = with_client(api, body)
    content = resource.contents[0]
    assert content.mime_type == "application/json"
    page = json.loads(content.text)
    assert page["id"] == work_id and page["resource_uri"].startswith("research://localfile/file:")


# every alias argument of docs/mcp.md (tool, alias, reference name, the value both take)
ALIASES = [
    ("research_arxiv_fetch_metadata", "ids", "arxiv_ids", [ID]),
    ("research_arxiv_fetch_full_text", "id", "arxiv_id", ID),
    ("research_arxiv_parse_full_text", "id", "arxiv_id", ID),
    ("research_europepmc_search", "cursor", "cursor_mark", "AoE/555"),
    ("research_europepmc_fetch_metadata", "ids", "identifiers", ["MED:555"]),
    ("research_europepmc_fetch_full_text", "id", "identifier", "MED:555"),
    ("research_europepmc_parse_full_text", "id", "identifier", "MED:555"),
    ("research_resolve_identifier", "id", "identifier", f"arXiv:{ID}"),
]
EXTRA: dict[str, dict[str, Any]] = {  # what else each call needs
    "research_europepmc_search": {"query": "platypus"},
    "research_europepmc_fetch_full_text": {"metadata_fallback": True},
}
# differs between a first call and a second of the same (served from what the first stored)
VARYING = {"served_from_storage", "results"}


def _upstream(request: httpx.Request) -> tuple[str, str, list[tuple[str, str]]]:
    return request.url.host, request.url.path, sorted(request.url.params.multi_items())


def test_every_alias_argument_means_its_reference_name(api: Any) -> None:
    """Each alias is called under its own name: the same answer as the reference name gives
    and the same request upstream; both names with different values are refused."""
    schemas: dict[str, Any] = {}

    async def body(client: Client) -> dict[str, Any]:
        schemas.update(
            {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}
        )
        out: dict[str, Any] = {}
        for tool, alias, reference, value in ALIASES:
            extra = EXTRA.get(tool, {})
            calls = []
            for name in (reference, alias):
                before = len(api.seen)
                result = await client.call_tool(tool, {**extra, name: value})
                calls.append((result, [_upstream(r) for r in api.seen[before:]]))
            other = "MED:556" if "europepmc" in tool else "2401.09999"
            mixed = [other] if isinstance(value, list) else other
            both = await client.call_tool(tool, {**extra, reference: value, alias: mixed})
            out[tool] = (calls, both)
        return out

    out = with_client(api, body)
    for tool, alias, reference, _ in ALIASES:
        assert alias in schemas[tool] and reference in schemas[tool], tool
        (by_reference, sent_reference), (by_alias, sent_alias) = out[tool][0]
        first, second = data(by_reference), data(by_alias)
        assert {k: v for k, v in first.items() if k not in VARYING} == {
            k: v for k, v in second.items() if k not in VARYING
        }, tool
        if not first.get("served_from_storage") and not second.get("served_from_storage"):
            assert sent_alias == sent_reference, tool  # the same question asked upstream
        assert error(out[tool][1]).startswith(
            f"invalid_request: give {reference} or its alias {alias}, not both"
        ), tool
    cursors = [
        dict(params).get("cursorMark")
        for calls in out["research_europepmc_search"][0]
        for _, _, params in calls[1]
    ]
    assert cursors == ["AoE/555", "AoE/555"]  # the alias reached Europe PMC as the cursor
    parsed = data(out["research_europepmc_parse_full_text"][0][1][0])
    assert "electric fields" in parsed["markdown"]  # the alias read the stored work
    fetched = data(out["research_arxiv_fetch_full_text"][0][1][0])
    assert fetched["served_from_storage"] and fetched["id"].startswith(f"arxiv:{ID}")
