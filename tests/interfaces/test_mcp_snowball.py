"""MCP ``research_discovery_snowball`` and ``research_dismiss_candidate`` over a library
with reference rows; online through a fake OpenAlex graph."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

import snowball_helpers as h
from interfaces.mcp_helpers import data, error, make_library, with_client


def test_snowball_tool_offline_and_dismiss() -> None:
    library = h.build(make_library())

    async def body(client: Client) -> dict[str, Any]:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"research_discovery_snowball", "research_dismiss_candidate"} <= names
        return {
            "all": await client.call_tool("research_discovery_snowball", {"all": True}),
            "dismiss": await client.call_tool(
                "research_dismiss_candidate", {"key": "doi:10.1038/nature21707"}
            ),
            "after": await client.call_tool(
                "research_discovery_snowball", {"ids": ["s1"], "direction": "backward"}
            ),
            "none": await client.call_tool("research_discovery_snowball", {}),
            "bad_key": await client.call_tool("research_dismiss_candidate", {"key": "xyz:1"}),
        }

    try:
        got = with_client(library, body)
    finally:
        library.close()
    answer = data(got["all"])
    assert answer["offline"] is True and answer["requests"] == 0
    assert answer["candidates"][0]["key"] == "doi:10.1038/nature21707"
    assert answer["candidates"][0]["why"]["backward"] == 2
    assert data(got["dismiss"])["dismissed"] == "doi:10.1038/nature21707"
    assert "doi:10.1038/nature21707" not in [c["key"] for c in data(got["after"])["candidates"]]
    assert error(got["none"]).startswith("invalid_request")
    assert error(got["bad_key"]).startswith("invalid_request")


def test_snowball_tool_online(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "key")
    library = h.build(make_library())
    graph = h.FakeGraph(h.graph_records(), budget=10)
    library.openalex_access.openalex_graph = lambda: graph  # type: ignore[method-assign]

    async def body(client: Client) -> Any:
        return await client.call_tool("research_discovery_snowball", {"ids": ["s1"]})

    try:
        answer = data(with_client(library, body))
    finally:
        library.close()
    assert answer["offline"] is False and answer["requests"] == 3 and answer["budget_left"] == 7
    assert "openalex:W20" in [c["key"] for c in answer["candidates"]]
