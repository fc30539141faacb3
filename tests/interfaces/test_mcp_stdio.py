"""End to end: ``python -m prioris serve`` as a subprocess over stdio, driven by the SDK client.

The real server process with the real default embedder (the packaged MiniLM): a PDF made
here is uploaded in chunks, searched in every mode, read through the Markdown resource,
and the error codes of the common mistakes are checked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from interfaces.mcp_helpers import b64, data, error, text_of

from pdf_factory import make_text_pdf

pytestmark = pytest.mark.slow

PAGES = [
    "Honey bees communicate the direction of food with a waggle dance. Foragers repeat the "
    "dance on the comb and recruits decode the angle relative to the sun.",
    "Colony collapse has been linked to pesticides, mites and poor nutrition in apiaries.",
]


def _env(data_dir: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    keep.update(
        {"PRIORIS_MCP_DATA_DIR": str(data_dir), "PRIORIS_MCP_OCR": "never", "PYTHONUNBUFFERED": "1"}
    )
    return keep


def test_stdio_server_end_to_end(tmp_path: Path, data_dir: Path) -> None:
    pdf = make_text_pdf(tmp_path / "bees.pdf", "Waggle dance of honey bees", PAGES).read_bytes()
    pieces = [pdf[i : i + 1500] for i in range(0, len(pdf), 1500)]
    assert len(pieces) > 1
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
                sid = data(
                    await client.call_tool(
                        "research_localfile_begin_upload", {"filename": "bees.pdf"}
                    )
                )["session_id"]
                out["out_of_order"] = await client.call_tool(
                    "research_localfile_upload_chunk",
                    {"session_id": sid, "index": 2, "chunk_base64": b64(pieces[0])},
                )
                for index, piece in enumerate(pieces):
                    data(
                        await client.call_tool(
                            "research_localfile_upload_chunk",
                            {"session_id": sid, "index": index, "chunk_base64": b64(piece)},
                        )
                    )
                out["stored"] = data(
                    await client.call_tool(
                        "research_localfile_finalize_upload", {"session_id": sid}
                    )
                )
                for mode in ("fts", "vector", "hybrid"):
                    out[mode] = data(
                        await client.call_tool(
                            "research_search_fetched",
                            {"query": "how do bees tell others where flowers are", "mode": mode},
                        )
                    )
                out["fts_words"] = data(
                    await client.call_tool(
                        "research_search_fetched",
                        {"query": "waggle dance", "mode": "fts", "chunks": True},
                    )
                )
                key = out["stored"]["id"].split(":", 1)[1]
                out["page"] = await client.read_resource(
                    f"research://file/{key}/pdf/markdown?page=2"
                )
                out["bad_fts5"] = await client.call_tool(
                    "research_search_fetched",
                    {"query": "bees AND (", "mode": "fts", "syntax": "fts5"},
                )
                bad = data(await client.call_tool("research_localfile_begin_upload", {}))
                data(
                    await client.call_tool(
                        "research_localfile_upload_chunk",
                        {
                            "session_id": bad["session_id"],
                            "index": 0,
                            "chunk_base64": b64(b"GIF89a this is an image, not a PDF" * 50),
                        },
                    )
                )
                out["not_pdf"] = await client.call_tool(
                    "research_localfile_finalize_upload", {"session_id": bad["session_id"]}
                )
                out["discovery"] = await client.call_tool(
                    "research_discovery", {"text": "bee communication"}
                )
                # evidence with the real model: the sentence, its page, a citation check
                out["evidence"] = data(
                    await client.call_tool(
                        "research_evidence",
                        {"claim": "pesticides and mites are linked to colony collapse", "k": 2},
                    )
                )
                out["check"] = data(
                    await client.call_tool(
                        "research_cite_check",
                        {
                            "claim": "Bees decode the dance angle relative to the sun.",
                            "work": out["stored"]["id"],
                        },
                    )
                )
                out["refused"] = data(
                    await client.call_tool(
                        "research_cite_check",
                        {
                            "claim": "Quantum error correction needs surface codes.",
                            "work": out["stored"]["id"],
                        },
                    )
                )
                out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        return out

    out = anyio.run(main)
    assert error(out["out_of_order"]).startswith("invalid_request:")
    stored = out["stored"]
    assert stored["status"] == "ingested" and stored["pages"] == 2
    for mode in ("fts", "vector", "hybrid"):
        hits = out[mode]["hits"]
        assert [h["id"] for h in hits] == [stored["id"]], mode  # the only work there is
        assert out[mode]["mode"] == mode
        assert set(hits[0]["ranks"]) == ({"fts", "vector"} if mode == "hybrid" else {mode})
    assert out["fts"]["hits"][0]["ranks"] == {"fts": 1}
    assert [h["id"] for h in out["fts_words"]["hits"]] == [stored["id"]]
    assert out["vector"]["hits"][0]["ranks"]["vector"] == 1
    assert "waggle" in out["fts_words"]["hits"][0]["snippet"].lower()
    assert "Colony collapse" in text_of(out["page"])
    assert error(out["bad_fts5"]).startswith("invalid_request:")
    assert error(out["not_pdf"]).startswith("invalid_request: not a PDF")
    assert error(out["discovery"]).startswith("configuration_error:")
    best = out["evidence"]["evidence"][0]
    assert best["sentence"].startswith("Colony collapse has been linked to pesticides")
    assert best["page"] == 2 and best["work_id"] == stored["id"]
    assert out["check"]["found"] is True and out["check"]["page"] == 1
    assert "relative to the sun" in out["check"]["sentence"]
    assert out["refused"]["found"] is False
    for name in ("research_evidence", "research_cite_check"):
        schema = out["tools"][name].output_schema
        assert schema and "properties" in schema, name
