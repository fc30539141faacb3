"""PriorisMCP 0.1.1's surface: its 18 tools with their argument names and defaults, its 3
resources, and no argument silently ignored.

Encoded from PriorisMCP's documentation (docs/03-tools.md, docs/04-resources.md,
docs/requirement-specification/06-interface-specification.md at 0.1.1), not from
Prioris's own tests.
"""

from __future__ import annotations

from typing import Any

from contract.conftest import Mcp

# tool -> (argument names a PriorisMCP client sends, their documented defaults)
TOOLS: dict[str, tuple[set[str], dict[str, Any]]] = {
    "research_arxiv_search": (
        {"query", "max_results", "start", "sort_by", "sort_order"},
        {"max_results": 10, "start": 0, "sort_by": "relevance", "sort_order": "descending"},
    ),
    "research_arxiv_list_top_n": ({"include_categories", "n", "exclude_categories"}, {}),
    "research_arxiv_fetch_metadata": ({"arxiv_ids"}, {}),
    "research_arxiv_fetch_full_text": ({"arxiv_id", "format"}, {}),
    "research_arxiv_parse_full_text": (
        {"arxiv_id", "format", "offset", "limit", "page"},
        {"offset": 0},
    ),
    "research_europepmc_search": ({"query", "page_size", "cursor_mark"}, {"page_size": 25}),
    "research_europepmc_fetch_metadata": ({"identifiers"}, {}),
    "research_europepmc_fetch_full_text": ({"identifier"}, {}),
    "research_europepmc_parse_full_text": ({"identifier", "offset", "limit"}, {"offset": 0}),
    "research_resolve_identifier": ({"identifier", "format"}, {}),
    "research_localfile_fetch_full_text": ({"content_base64", "filename"}, {}),
    "research_localfile_parse_full_text": ({"id", "offset", "limit", "page"}, {"offset": 0}),
    "research_localfile_begin_upload": ({"filename"}, {}),
    "research_localfile_upload_chunk": ({"session_id", "index", "chunk_base64"}, {}),
    "research_localfile_finalize_upload": ({"session_id"}, {}),
    "research_list_fetched": ({"provider", "format"}, {}),
    "research_delete_fetched": ({"entries"}, {}),
    "research_search_fetched": ({"query", "provider", "identifier", "format"}, {}),
}


def test_every_tool_takes_priorismcp_arguments_with_its_defaults(mcp: Mcp) -> None:
    tools = mcp.tools()
    assert set(TOOLS) <= set(tools)
    for name, (arguments, defaults) in TOOLS.items():
        properties = tools[name].input_schema["properties"]
        assert arguments <= set(properties), (name, arguments - set(properties))
        for argument, default in defaults.items():
            assert properties[argument].get("default") == default, (name, argument)


def test_parse_limit_defaults_to_20000_and_accepts_null(mcp: Mcp) -> None:
    tools = mcp.tools()
    for name in (
        "research_arxiv_parse_full_text",
        "research_europepmc_parse_full_text",
        "research_localfile_parse_full_text",
    ):
        limit = tools[name].input_schema["properties"]["limit"]
        assert {"type": "null"} in limit.get("anyOf", []), name  # null is accepted
        assert "20000" in limit.get("description", ""), name


def test_the_three_resources_are_offered(mcp: Mcp) -> None:
    templates = mcp._run(mcp.client.list_resource_templates).resource_templates
    resources = mcp._run(mcp.client.list_resources).resources
    uris = {t.uri_template for t in templates}
    assert "research://{provider}/{identifier}/{format}/fulltext" in uris
    assert "research://{provider}/{identifier}/{format}/markdown{?offset,limit,page}" in uris
    assert "research://arxiv/categories" in {str(r.uri) for r in resources}


def test_an_unknown_argument_is_invalid_request_naming_it_on_every_tool(mcp: Mcp) -> None:
    for name in TOOLS:
        text = mcp.fails(name, {"misspelt_argument": 1}, "invalid_request")
        assert "misspelt_argument" in text, name


def test_errors_are_tool_errors_whose_text_names_the_category(mcp: Mcp) -> None:
    result = mcp.raw("research_arxiv_fetch_metadata", {"arxiv_ids": "not a list"})
    assert result.is_error
    assert "invalid_request" in result.content[0].text


def test_provider_failures_are_their_categories(mcp: Mcp) -> None:
    mcp.fails("research_arxiv_search", {"query": "all:providerdown"}, "provider_unavailable")
    mcp.fails("research_europepmc_search", {"query": "ratelimited"}, "rate_limited")
