"""The MCP tools for collections and tags made in Prioris: ``research_collections``,
``research_edit_collection`` and ``research_tag_works``, with their output schemas, on
SQLite and PostgreSQL (in process); the real server over stdio; a reader account refused."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from interfaces.mcp_helpers import b64, data, error, make_library, with_client
from interfaces.test_mcp_stdio import _env
from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
from prioris.interfaces.mcp_server import build_server
from prioris.storage import labels as label_store
from prioris.storage.accounts import Account
from prioris.storage.transaction import immediate

from pdf_factory import make_text_pdf

EDIT, TAG, LIST = "research_edit_collection", "research_tag_works", "research_collections"


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    if request.param == "postgresql":
        monkeypatch.setenv("PRIORIS_MCP_DB", request.getfixturevalue("pg_url"))
    lib = make_library()
    lib.import_records(
        [{"_id": w, "title": f"Fern paper {w}", "text": f"ferns unfurl fronds {w}"} for w in "abc"]
    )
    with lib.lock, immediate(lib.conn):
        label_store.set_labels(lib.conn, "a", "zotero", collections=["Botany"], tags=["green"])
    yield lib
    lib.close()


def test_collections_and_tags_through_mcp(library: Any) -> None:
    async def body(client: Client) -> dict[str, Any]:
        async def call(tool: str, **arguments: Any) -> Any:
            return await client.call_tool(tool, arguments)

        out: dict[str, Any] = {"tools": {t.name: t for t in (await client.list_tools()).tools}}
        out["create"] = data(await call(EDIT, action="create", name="Ferns", parent="botany"))
        out["add"] = data(await call(EDIT, action="add", name="ferns", ids=["b", "c"]))
        out["unknown_id"] = await call(EDIT, action="add", name="Ferns", ids=["zz"])
        out["tag"] = data(
            await call(TAG, action="add", tag="Spores", search="fronds", k=2, mode="fts")
        )
        out["untag"] = data(await call(TAG, action="remove", tag="GREEN", ids=["a"]))
        out["listed"] = data(await call(LIST))
        out["search"] = data(
            await call(
                "research_search_fetched", query="ferns", mode="fts", collection="Botany / Ferns"
            )
        )
        out["rename"] = data(
            await call(EDIT, action="rename", name="Ferns", new_name="Pteridophytes")
        )
        out["no_new_name"] = await call(EDIT, action="rename", name="Botany")
        out["managed"] = await call(EDIT, action="delete", name="Botany")
        out["remove"] = data(await call(EDIT, action="remove", name="Pteridophytes", ids=["b"]))
        out["delete"] = data(await call(EDIT, action="delete", name="Pteridophytes"))
        out["bad_action"] = await call(TAG, action="rename", tag="x", ids=["a"])
        out["misplaced"] = await call(TAG, action="add", tag="x", ids=["a"], name="y")
        out["b"] = library.labels("b")  # before the server closes the library
        return out

    out = with_client(library, body)
    for name in (EDIT, TAG, LIST):
        assert out["tools"][name].output_schema is not None, name
    assert out["tools"][LIST].annotations.read_only_hint is True
    assert out["tools"][EDIT].annotations.destructive_hint is True
    assert out["create"]["collection"] == "Botany / Ferns" and out["create"]["action"] == "create"
    assert out["add"]["added"] == ["b", "c"]
    assert error(out["unknown_id"]).startswith("not_found: no work 'zz'")
    assert sorted(out["tag"]["added"]) == ["a", "b"]
    # Zotero's tag stays on the work, said as kept
    assert out["untag"]["removed"] == [] and out["untag"]["kept"] == [
        {"id": "a", "origins": ["zotero"]}
    ]
    listed = {c["path"]: c for c in out["listed"]["collections"]}
    assert listed["Botany"]["origins"] == ["user", "zotero"] and listed["Botany"]["works"] == 3
    assert listed["Botany / Ferns"] == {
        "path": "Botany / Ferns",
        "works": 2,
        "origins": ["user"],
        "made_here": True,
    }
    assert {"tag": "Spores", "works": 2} in out["listed"]["tags"]
    assert {h["id"] for h in out["search"]["hits"]} == {"b", "c"}
    assert out["rename"]["renamed_to"] == "Botany / Pteridophytes"
    assert error(out["no_new_name"]).startswith("invalid_request: rename needs new_name")
    assert "holds works from zotero" in error(out["managed"])
    assert out["remove"]["removed"] == ["b"]
    assert out["delete"]["works"] == 1
    assert error(out["bad_action"]).startswith("invalid_request:")
    assert "unknown argument 'name'" in error(out["misplaced"])
    assert out["b"] == {"collections": [], "tags": ["Spores"]}


def test_a_reader_account_may_list_but_not_change(library: Any) -> None:
    server = build_server(lambda: library)
    server.prioris_accounts = True
    reader = Account("rita", "reader", "2026-01-01T00:00:00+00:00")
    context = SimpleNamespace(
        request_context=SimpleNamespace(request=SimpleNamespace(scope={ACCOUNT_SCOPE_KEY: reader}))
    )

    async def calls() -> list[Any]:
        return [
            await server.call_tool(EDIT, {"action": "create", "name": "X"}, context),
            await server.call_tool(TAG, {"action": "add", "tag": "x", "ids": ["a"]}, context),
        ]

    refused = anyio.run(calls)
    for result in refused:
        assert error(result).startswith("forbidden: account 'rita' (reader)")
        assert "needs the writer role" in error(result)
    assert [c["path"] for c in library.list_collections()] == ["Botany"]
    assert library.labels("a")["tags"] == ["green"]


@pytest.mark.slow
def test_collections_over_stdio(tmp_path: Path, data_dir: Path) -> None:
    """The real server process (real model): a PDF stored, a collection made, the work put
    in it and tagged by a search, the filter finding it."""
    pdf = make_text_pdf(
        tmp_path / "ferns.pdf", "Fern spores", ["Ferns spread by spores released from sori."]
    )
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "prioris", "serve"],
        env=_env(data_dir),
        cwd=str(tmp_path),
    )

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with anyio.fail_after(120):
            async with Client(params, read_timeout_seconds=60) as client:
                stored = data(
                    await client.call_tool(
                        "research_localfile_fetch_full_text",
                        {"content_base64": b64(pdf.read_bytes()), "filename": "ferns.pdf"},
                    )
                )
                out["id"] = stored["id"]
                out["create"] = data(
                    await client.call_tool(EDIT, {"action": "create", "name": "Reading"})
                )
                out["add"] = data(
                    await client.call_tool(
                        EDIT, {"action": "add", "name": "reading", "ids": [stored["id"]]}
                    )
                )
                out["tag"] = data(
                    await client.call_tool(
                        TAG, {"action": "add", "tag": "spores", "search": "fern spores"}
                    )
                )
                out["listed"] = data(await client.call_tool(LIST, {}))
                out["found"] = data(
                    await client.call_tool(
                        "research_search_fetched",
                        {
                            "query": "spores",
                            "mode": "hybrid",
                            "collection": "Reading",
                            "tag": "SPORES",
                        },
                    )
                )
        return out

    out = anyio.run(main)
    assert out["add"]["added"] == [out["id"]] and out["tag"]["added"] == [out["id"]]
    assert out["listed"]["collections"] == [
        {"path": "Reading", "works": 1, "origins": ["user"], "made_here": True}
    ]
    assert out["listed"]["tags"] == [{"tag": "spores", "works": 1}]
    assert [h["id"] for h in out["found"]["hits"]] == [out["id"]]
