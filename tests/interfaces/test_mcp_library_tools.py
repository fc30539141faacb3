"""MCP tools over the local library, through the SDK's in-process client.

Real Library, storage, PDF parsing and search; the embedder and OCR are fakes.
"""

from __future__ import annotations

import base64
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from interfaces.mcp_helpers import (
    TOPICS,
    as_json,
    b64,
    data,
    error,
    make_library,
    pdf_bytes,
    scanned_pdf_bytes,
    with_client,
)

TOOLS = {
    "research_arxiv_search",
    "research_arxiv_list_top_n",
    "research_arxiv_fetch_metadata",
    "research_arxiv_fetch_full_text",
    "research_arxiv_parse_full_text",
    "research_europepmc_search",
    "research_europepmc_fetch_metadata",
    "research_europepmc_fetch_full_text",
    "research_europepmc_parse_full_text",
    "research_openalex_search",
    "research_resolve_identifier",
    "research_localfile_fetch_full_text",
    "research_localfile_begin_upload",
    "research_localfile_upload_chunk",
    "research_localfile_finalize_upload",
    "research_localfile_parse_full_text",
    "research_list_fetched",
    "research_delete_fetched",
    "research_search_fetched",
    "research_discovery",
    "research_cite",
    "research_citations",
    "research_edit_work",
    # issue 22's (their SPEC names and the reference managers') and issue 23's snowball
    "research_format_citation",
    "research_update_metadata",
    "research_zotero_sync",
    "research_import_references",
    "research_discovery_snowball",
    "research_dismiss_candidate",
    # issue 37's collections and tags made in Prioris
    "research_collections",
    "research_edit_collection",
    "research_tag_works",
    "research_alerts",
    # issue 36's evidence and citation checks
    "research_evidence",
    "research_cite_check",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every tool here runs over an SQLite library and a PostgreSQL one."""
    if request.param == "postgresql":
        monkeypatch.setenv("PRIORIS_MCP_DB", request.getfixturevalue("pg_url"))
    lib = make_library()
    yield lib
    lib.close()


def test_every_tool_is_listed_with_schemas_and_descriptions(library: Any) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {t.name: t for t in with_client(library, body)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 80, tool.name
        assert tool.output_schema and tool.output_schema.get("properties"), tool.name
    search = tools["research_search_fetched"].input_schema["properties"]
    assert set(search) >= {
        "query",
        "provider",
        "identifier",
        "format",
        "mode",
        "syntax",
        "limit",
        "chunks",
        "source",
        "from_year",
        "to_year",
        "ids",
    }
    assert {"type": "integer", "minimum": 1, "maximum": 1000} in search["limit"]["anyOf"]
    upload = tools["research_localfile_upload_chunk"].input_schema["properties"]
    assert set(upload) == {"session_id", "index", "chunk_base64"}
    assert set(tools["research_localfile_fetch_full_text"].input_schema["properties"]) == {
        "content_base64",
        "filename",
    }


def test_upload_search_and_read_back(library: Any, tmp_path: Path) -> None:
    protein = pdf_bytes(tmp_path, *TOPICS[0])
    coral = pdf_bytes(tmp_path, *TOPICS[1])

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["protein"] = data(
            await client.call_tool(
                "research_localfile_fetch_full_text",
                {"content_base64": b64(protein), "filename": "protein.pdf"},
            )
        )
        out["coral"] = data(
            await client.call_tool(
                "research_localfile_fetch_full_text",
                {"content_base64": b64(coral), "filename": "coral.pdf"},
            )
        )
        for mode in ("fts", "vector", "hybrid"):
            out[mode] = data(
                await client.call_tool(
                    "research_search_fetched",
                    {"query": "coral bleaching ocean warming", "mode": mode, "limit": 5},
                )
            )
        out["chunks"] = data(
            await client.call_tool(
                "research_search_fetched",
                {"query": "residue attention", "chunks": True, "limit": 3, "mode": "fts"},
            )
        )
        hit = out["chunks"]["hits"][0]
        out["read"] = data(
            await client.call_tool(
                "research_localfile_parse_full_text",
                {"id": hit["id"], "offset": hit["offset"], "limit": 200},
            )
        )
        out["page2"] = data(
            await client.call_tool(
                "research_localfile_parse_full_text", {"id": out["protein"]["id"], "page": 2}
            )
        )
        out["head"] = data(
            await client.call_tool(
                "research_arxiv_parse_full_text", {"id": out["protein"]["id"], "limit": 30}
            )
        )
        out["phrase"] = data(
            await client.call_tool(
                "research_search_fetched",
                {"query": '"coral bleaching" OR residue', "syntax": "fts5", "mode": "fts"},
            )
        )
        out["only"] = data(
            await client.call_tool(
                "research_search_fetched",
                {"query": "coral", "ids": [out["protein"]["id"]], "mode": "vector"},
            )
        )
        return out

    out = with_client(library, body)
    assert out["protein"]["status"] == "ingested" and out["protein"]["id"].startswith("file:")
    assert out["protein"]["pages"] == 2 and out["protein"]["chunks"] >= 1
    for mode in ("fts", "vector", "hybrid"):
        assert out[mode]["mode"] == mode
        assert out[mode]["hits"][0]["id"] == out["coral"]["id"], mode
        assert out[mode]["hits"][0]["title"] == "Coral reef bleaching"
    assert out["hybrid"]["hits"][0]["ranks"].keys() >= {"fts", "vector"}
    hit = out["chunks"]["hits"][0]
    assert hit["id"] == out["protein"]["id"] and hit["chunk_id"] is not None
    assert out["read"]["offset"] == hit["offset"]
    assert "attention" in out["read"]["markdown"].lower()
    assert out["page2"]["page"] == 2 and "contact maps" in out["page2"]["markdown"]
    assert out["page2"]["total_pages"] == 2
    head = out["head"]
    assert len(head["markdown"]) == 30 and head["has_more"] and head["next_offset"] == 30
    assert head["total_length"] > 30
    assert {h["id"] for h in out["phrase"]["hits"]} == {out["protein"]["id"], out["coral"]["id"]}
    assert [h["id"] for h in out["only"]["hits"]] == [out["protein"]["id"]]


def test_chunked_upload_gives_the_same_id_and_checks_order(library: Any, tmp_path: Path) -> None:
    pdf = pdf_bytes(tmp_path, *TOPICS[0])
    pieces = [pdf[i : i + 700] for i in range(0, len(pdf), 700)]

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        begun = data(
            await client.call_tool("research_localfile_begin_upload", {"filename": "x/protein.pdf"})
        )
        sid = begun["session_id"]
        out["begun"] = begun
        out["skip"] = await client.call_tool(
            "research_localfile_upload_chunk",
            {"session_id": sid, "index": 1, "chunk_base64": b64(pieces[0])},
        )
        for index, piece in enumerate(pieces):
            last = data(
                await client.call_tool(
                    "research_localfile_upload_chunk",
                    {"session_id": sid, "index": index, "chunk_base64": b64(piece)},
                )
            )
        out["last"] = last
        out["chunked"] = data(
            await client.call_tool("research_localfile_finalize_upload", {"session_id": sid})
        )
        out["again"] = await client.call_tool(
            "research_localfile_finalize_upload", {"session_id": sid}
        )
        out["whole"] = data(
            await client.call_tool(
                "research_localfile_fetch_full_text", {"content_base64": b64(pdf)}
            )
        )
        return out

    out = with_client(library, body)
    assert out["begun"]["next_index"] == 0 and out["begun"]["filename"] == "protein.pdf"
    assert error(out["skip"]).startswith("invalid_request: chunk index 1 is out of order")
    assert out["last"]["next_index"] == len(pieces) and out["last"]["received_bytes"] == len(pdf)
    assert out["chunked"]["status"] == "ingested"
    assert error(out["again"]).startswith("not_found:")
    assert out["whole"]["id"] == out["chunked"]["id"] and out["whole"]["status"] == "skipped"


def test_errors_carry_codes(library: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(client: Client) -> dict[str, Any]:
        calls = {
            "not_pdf": (
                "research_localfile_fetch_full_text",
                {"content_base64": b64(b"hello, not a pdf" * 10)},
            ),
            "bad_b64": ("research_localfile_fetch_full_text", {"content_base64": "%%%%"}),
            "fts5": (
                "research_search_fetched",
                {"query": "coral AND (", "syntax": "fts5", "mode": "fts"},
            ),
            "bounds": ("research_search_fetched", {"query": "x", "limit": 0}),
            "mode": ("research_search_fetched", {"query": "x", "mode": "magic"}),
            "missing": ("research_arxiv_parse_full_text", {"id": "2401.01234"}),
            "delete": ("research_delete_fetched", {"ids": ["file:0123456789abcdef"]}),
            "unknown_session": (
                "research_localfile_upload_chunk",
                {"session_id": "nope", "index": 0, "chunk_base64": "AAAA"},
            ),
            "unknown_tool": ("research_nothing", {}),
        }
        return {key: await client.call_tool(name, args) for key, (name, args) in calls.items()}

    out = with_client(library, body)
    assert error(out["not_pdf"]).startswith("invalid_request: not a PDF")
    assert out["not_pdf"].meta["prioris/error"]["code"] == "invalid_request"
    assert error(out["bad_b64"]).startswith("invalid_request:")
    assert error(out["fts5"]).startswith("invalid_request:")
    assert error(out["bounds"]).startswith("invalid_request: limit:")
    assert error(out["mode"]).startswith("invalid_request: mode:")
    missing = error(out["missing"])
    assert missing.startswith("not_found:") and "research_arxiv_fetch_full_text" in missing
    assert error(out["delete"]).startswith("not_found:")
    assert error(out["unknown_session"]).startswith("not_found:")
    assert error(out["unknown_tool"]).startswith("invalid_request:")


def test_size_is_checked_before_decoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIORIS_MCP_MAX_FILE_BYTES", "1000")
    library = make_library()
    pdf = pdf_bytes(tmp_path, *TOPICS[1])
    assert len(pdf) > 1000
    decoded: list[int] = []
    real = base64.b64decode
    monkeypatch.setattr(base64, "b64decode", lambda *a, **k: decoded.append(1) or real(*a, **k))

    async def body(client: Client) -> Any:
        one = await client.call_tool(
            "research_localfile_fetch_full_text", {"content_base64": b64(pdf)}
        )
        early = await client.call_tool("research_localfile_begin_upload", {"size_bytes": 5000})
        return one, early

    try:
        one, early = with_client(library, body)
    finally:
        library.close()
    assert error(one).startswith("file_too_large:")
    assert not decoded  # refused on the encoded length
    assert error(early).startswith("file_too_large:")


def test_list_and_delete(library: Any, tmp_path: Path) -> None:
    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        ids = []
        for title, pages in TOPICS:
            stored = data(
                await client.call_tool(
                    "research_localfile_fetch_full_text",
                    {"content_base64": b64(pdf_bytes(tmp_path, title, pages))},
                )
            )
            ids.append(stored["id"])
        out["ids"] = ids
        out["listed"] = data(await client.call_tool("research_list_fetched", {"limit": 1}))
        out["all"] = data(await client.call_tool("research_list_fetched", {}))
        out["deleted"] = data(await client.call_tool("research_delete_fetched", {"ids": [ids[1]]}))
        out["after"] = data(
            await client.call_tool("research_search_fetched", {"query": "coral", "mode": "fts"})
        )
        out["left"] = data(await client.call_tool("research_list_fetched", {}))
        return out

    out = with_client(library, body)
    assert out["listed"]["total"] == 2 and len(out["listed"]["results"]) == 1
    assert {r["id"] for r in out["all"]["results"]} == set(out["ids"])
    assert out["all"]["results"][0]["pages"] == 2
    assert out["deleted"]["deleted_ids"] == [out["ids"][1]]
    assert {(e["identifier"], e["artefact"]) for e in out["deleted"]["deleted"]} == {
        (out["ids"][1], "all")
    }
    assert out["after"]["hits"] == []
    assert [r["id"] for r in out["left"]["results"]] == [out["ids"][0]]


def test_resources_serve_markdown_and_original_bytes(library: Any, tmp_path: Path) -> None:
    pdf = pdf_bytes(tmp_path, *TOPICS[0])

    async def body(client: Client) -> dict[str, Any]:
        stored = data(
            await client.call_tool(
                "research_localfile_fetch_full_text", {"content_base64": b64(pdf)}
            )
        )
        key = stored["id"].split(":", 1)[1]
        base = f"research://file/{key}/pdf"
        out: dict[str, Any] = {"id": stored["id"]}
        out["templates"] = (await client.list_resource_templates()).resource_templates
        out["resources"] = (await client.list_resources()).resources
        out["page2"] = await client.read_resource(f"{base}/markdown?page=2")
        out["slice"] = await client.read_resource(f"{base}/markdown?offset=0&limit=12")
        out["pdf"] = await client.read_resource(f"{base}/fulltext")
        for name, uri in (
            ("html", f"research://file/{key}/html/markdown"),
            ("unknown", "research://file/ffffffffffffffff/pdf/markdown"),
            ("provider", f"research://nowhere/{key}/pdf/fulltext"),
        ):
            try:
                await client.read_resource(uri)
                out[name] = None
            except Exception as exc:  # the SDK raises MCPError for a failed read
                out[name] = str(exc)
        return out

    out = with_client(library, body)
    assert {t.uri_template for t in out["templates"]} == {
        "research://{provider}/{identifier}/{format}/markdown{?offset,limit,page}",
        "research://{provider}/{identifier}/{format}/fulltext",
    }
    assert {str(r.uri) for r in out["resources"]} == {
        "research://arxiv/categories",
        "research://openalex/work-types",
    }
    page2 = as_json(out["page2"])
    assert "contact maps" in page2["markdown"] and "Protein" not in page2["markdown"]
    assert page2["page_range"] == [2, 2] and page2["total_pages"] == 2
    assert len(as_json(out["slice"])["markdown"]) == 12
    blob = out["pdf"].contents[0]
    assert blob.mime_type == "application/pdf" and base64.b64decode(blob.blob) == pdf
    assert out["html"].startswith("not_found:")
    assert out["unknown"].startswith("not_found:")
    assert out["provider"].startswith("invalid_request:")


class GatedOcr:
    """OCR that holds its page until the test lets it go: while it holds, an answer from
    another request proves the event loop was free (no clock involved). It lets go by
    itself after ``patience`` seconds, so a blocked loop fails the test instead of hanging."""

    def __init__(self, events: list[str], patience: float = 20.0) -> None:
        self.events = events
        self.patience = patience
        self.entered = threading.Event()
        self.release = threading.Event()

    def ocr_page(self, image_png: bytes) -> str:
        self.events.append("ocr started")
        self.entered.set()
        self.release.wait(self.patience)
        self.events.append("ocr done")
        return "scanned glacier moraine sediment"


def test_blocking_work_runs_off_the_event_loop(tmp_path: Path) -> None:
    """While a slow OCR ingest runs, other requests are answered at once."""
    events: list[str] = []
    ocr = GatedOcr(events)
    library = make_library(ocr=ocr)
    scanned = scanned_pdf_bytes(tmp_path)

    async def body(client: Client) -> dict[str, Any]:
        results: dict[str, Any] = {}

        async def ingest() -> None:
            results["ingest"] = data(
                await client.call_tool(
                    "research_localfile_fetch_full_text", {"content_base64": b64(scanned)}
                )
            )

        async with anyio.create_task_group() as group:
            group.start_soon(ingest)
            # the OCR has its page (waited for in a thread: the loop stays free meanwhile)
            assert await anyio.to_thread.run_sync(ocr.entered.wait, ocr.patience)
            data(await client.call_tool("research_list_fetched", {}))
            events.append("listed")
            ocr.release.set()
        return results["ingest"]

    try:
        ingested = with_client(library, body)
    finally:
        ocr.release.set()
        library.close()
    assert ingested["ocr_pages"] == 1
    # answered while the OCR still held its page, not queued behind the ingest
    assert events == ["ocr started", "listed", "ocr done"]


def test_a_repaired_pdf_is_stored_with_its_warning(library: Any) -> None:
    from hostile_pdfs import bad_xref

    async def body(client: Client) -> Any:
        return data(
            await client.call_tool(
                "research_localfile_fetch_full_text",
                {"content_base64": b64(bad_xref()), "filename": "repaired.pdf"},
            )
        )

    out = with_client(library, body)
    assert out["status"] == "ingested"
    assert out["warnings"] and "damaged" in out["warnings"][0]


def test_search_says_what_a_year_filter_left_out(library: Any) -> None:
    library.import_records(
        [
            {"_id": "bigtable", "title": "Bigtable", "text": "A distributed storage system."},
            {"_id": "gfs", "title": "GFS", "year": 2003, "text": "Bigtable runs on GFS."},
        ]
    )

    async def body(client: Client) -> dict[str, Any]:
        search = {"query": "bigtable", "mode": "fts", "from_year": 2000}
        return {
            "filtered": data(await client.call_tool("research_search_fetched", search)),
            "kept": data(
                await client.call_tool(
                    "research_search_fetched", {**search, "include_undated": True}
                )
            ),
            "typo": await client.call_tool(
                "research_search_fetched", {"query": "x", "mode": "fts", "source": "arxvi"}
            ),
        }

    out = with_client(library, body)
    assert [h["id"] for h in out["filtered"]["hits"]] == ["gfs"]
    assert out["filtered"]["left_out_no_year"] == 1
    assert {h["id"] for h in out["kept"]["hits"]} == {"gfs", "bigtable"}
    assert out["kept"].get("left_out_no_year") is None
    assert error(out["typo"]).startswith("invalid_request: unknown source 'arxvi'")
