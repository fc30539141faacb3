"""The MCP search and list tools take ``collection`` and ``tag`` (a string or a list), on
SQLite and on PostgreSQL; PriorisMCP's calls without them are unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from interfaces.mcp_helpers import data, error, make_library, with_client
from prioris.storage import labels as label_store


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    if request.param == "postgresql":
        monkeypatch.setenv("PRIORIS_MCP_DB", request.getfixturevalue("pg_url"))
    lib = make_library()
    lib.import_records(
        [
            {"_id": w, "title": f"Moss paper {w}", "text": f"Mosses grow on rocks {w}."}
            for w in "abc"
        ]
    )
    with lib.lock:
        lib.conn.execute("BEGIN IMMEDIATE")
        for work_id, collections, tags in (
            ("a", ["Botany / Mosses"], ["field", "2024"]),
            ("b", ["Botany"], ["Field"]),
            ("c", ["Geology"], []),
        ):
            label_store.set_labels(lib.conn, work_id, "zotero", collections=collections, tags=tags)
        lib.conn.execute("COMMIT")
    yield lib
    lib.close()


def test_search_and_list_take_collection_and_tag(library: Any) -> None:
    async def body(client: Client) -> dict[str, Any]:
        async def call(tool: str, **arguments: Any) -> Any:
            return await client.call_tool(tool, arguments)

        search = {"query": "mosses", "mode": "fts"}
        return {
            "schema": {t.name: t.input_schema for t in (await client.list_tools()).tools},
            "one": data(await call("research_search_fetched", **search, collection="botany")),
            "any": data(
                await call("research_search_fetched", **search, collection=["Mosses", "Geology"])
            ),
            "all": data(await call("research_search_fetched", **search, tag=["FIELD", "2024"])),
            "reference": data(await call("research_search_fetched", query="mosses", tag="field")),
            "none": data(await call("research_search_fetched", **search, tag="nowhere")),
            "listed": data(await call("research_list_fetched", tag="field")),
            "paged": data(await call("research_list_fetched", collection="Botany", limit=1)),
            "too_many": await call(
                "research_search_fetched", **search, tag=[f"t{i}" for i in range(51)]
            ),
        }

    out = with_client(library, body)
    for tool in ("research_search_fetched", "research_list_fetched"):
        properties = out["schema"][tool]["properties"]
        assert "collection" in properties and "tag" in properties, tool
    assert {h["id"] for h in out["one"]["hits"]} == {"a", "b"}
    assert {h["id"] for h in out["any"]["hits"]} == {"a", "c"}
    assert [h["id"] for h in out["all"]["hits"]] == ["a"]
    assert {m["identifier"] for m in out["reference"]["matches"]} == {"a", "b"}  # PriorisMCP form
    assert out["none"]["hits"] == []
    assert {r["id"] for r in out["listed"]["results"]} == {"a", "b"}
    assert {e["identifier"] for e in out["listed"]["entries"]} == {"a", "b"}
    row = next(r for r in out["listed"]["results"] if r["id"] == "a")
    assert row["collections"] == ["Botany / Mosses"] and row["tags"] == ["2024", "field"]
    assert out["paged"]["total"] == 2 and len(out["paged"]["results"]) == 1
    assert error(out["too_many"]).startswith("invalid_request: at most 50 tags")
