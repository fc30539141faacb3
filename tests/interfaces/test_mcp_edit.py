"""``research_edit_work`` through the SDK's in-process client, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from interfaces.mcp_helpers import data, error, make_library, with_client

from pdf_factory import make_text_pdf


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    if request.param == "postgresql":
        monkeypatch.setenv("PRIORIS_MCP_DB", request.getfixturevalue("pg_url"))
    lib = make_library()
    yield lib
    lib.close()


def test_edit_undo_and_read_with_origins(library: Any, tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "m.pdf", "Moraine sediments", ["Glacial till. " * 30])
    work_id = library.ingest_file(pdf).id

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["tool"] = next(
            t for t in (await client.list_tools()).tools if t.name == "research_edit_work"
        )
        out["edited"] = data(
            await client.call_tool(
                "research_edit_work",
                {
                    "id": work_id,
                    "fields": {"title": "Moraine Sediments Revisited", "year": 2003},
                },
            )
        )
        out["read"] = data(await client.call_tool("research_edit_work", {"id": work_id}))
        out["bad_year"] = error(
            await client.call_tool(
                "research_edit_work", {"id": work_id, "fields": {"year": "soon"}}
            )
        )
        out["unknown"] = error(
            await client.call_tool("research_edit_work", {"id": work_id, "fields": {"x": 1}})
        )
        out["both"] = error(
            await client.call_tool(
                "research_edit_work", {"id": work_id, "fields": {"year": 1}, "undo": True}
            )
        )
        out["missing"] = error(
            await client.call_tool("research_edit_work", {"id": "file:0000000000000000"})
        )
        out["undone"] = data(
            await client.call_tool("research_edit_work", {"id": work_id, "undo": True})
        )
        out["nothing"] = error(
            await client.call_tool("research_edit_work", {"id": work_id, "undo": True})
        )
        return out

    out = with_client(library, body)
    schema = out["tool"].input_schema["properties"]
    assert set(schema) == {"id", "fields", "undo"}
    assert "origins" in out["tool"].output_schema["properties"]
    edited = out["edited"]
    assert (edited["title"], edited["year"]) == ("Moraine Sediments Revisited", 2003)
    assert edited["origins"]["title"] == edited["origins"]["year"] == "user"
    assert edited["edits"] == 1 and out["read"] == edited
    assert out["bad_year"].startswith("invalid_request: year must be a four-digit year")
    assert out["unknown"].startswith("invalid_request: unknown field(s) x")
    assert out["both"].startswith("invalid_request: give fields or undo")
    assert out["missing"].startswith("not_found")
    assert out["undone"]["title"] == "Moraine sediments" and out["undone"]["edits"] == 0
    assert (
        out["undone"]["origins"]["title"] == "pdf_metadata"
    )  # the PDF's Info title agrees with page 1
    assert out["nothing"].startswith("not_found: ") and "no edit to undo" in out["nothing"]
