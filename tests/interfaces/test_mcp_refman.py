"""``research_zotero_sync``, ``research_import_references`` and the SPEC's names
``research_update_metadata`` and ``research_format_citation``, through the SDK's client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from interfaces.mcp_helpers import data, error, make_library, with_client
from refman.zotero_factory import add_annotation, add_attachment, add_item, make_zotero_dir, open_db

from conftest import shared_path
from pdf_factory import make_text_pdf


@pytest.fixture
def zotero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data_dir = make_zotero_dir(tmp_path, shared_path("fixtures", "zotero", "schema"))
    pdf = make_text_pdf(tmp_path / "p.pdf", "Ospreys", ["Ospreys dive for fish in estuaries."])
    with open_db(data_dir) as db:
        add_item(
            db,
            "ITEMOSPR",
            "journalArticle",
            {"title": "Osprey diving", "date": "2012"},
            creators=[("Ana", "Ruiz", "author")],
        )
        add_attachment(db, data_dir, "ATTOSPRE", "ITEMOSPR", content=pdf.read_bytes())
        add_annotation(db, "ANNOOSPR", "ATTOSPRE", text="dive for fish", comment="cf. kingfishers")
    monkeypatch.setenv("PRIORIS_MCP_ZOTERO_DIR", str(data_dir))
    return data_dir


def test_zotero_sync_and_reference_text_import(zotero: Path) -> None:
    library = make_library()
    bib = "@article{ruiz2012osprey, title={Osprey diving}, author={Ruiz, Ana}, year={2012}}\n"

    async def body(client: Client) -> dict[str, Any]:
        names = {t.name for t in (await client.list_tools()).tools}
        sync = next(
            t for t in (await client.list_tools()).tools if t.name == "research_zotero_sync"
        )
        return {
            "names": names,
            "sync_args": set(sync.input_schema.get("properties", {})),
            "first": data(await client.call_tool("research_zotero_sync", {})),
            "again": data(await client.call_tool("research_zotero_sync", {})),
            "search": data(
                await client.call_tool(
                    "research_search_fetched", {"query": "kingfishers", "mode": "fts"}
                )
            ),
            "bib": data(await client.call_tool("research_import_references", {"text": bib})),
            "ris": data(
                await client.call_tool(
                    "research_import_references",
                    {"text": "TY  - JOUR\nTI  - Kestrels\nER  - \n", "format": "ris"},
                )
            ),
            "neither": error(
                await client.call_tool("research_import_references", {"text": "no entries at all"})
            ),
        }

    out = with_client(library, body)  # (closes the library)
    assert {"research_zotero_sync", "research_import_references"} <= out["names"]
    assert out["sync_args"] == set()  # the server's Zotero, never a client's path
    assert (out["first"]["added"], out["first"]["files_ingested"]) == (1, 1)
    assert out["again"]["unchanged"] == 1 and out["again"]["added"] == 0
    hits = out["search"]["results"] if "results" in out["search"] else out["search"]["hits"]
    assert hits and hits[0]["section"] == "highlight"
    assert out["bib"]["added"] + out["bib"]["updated"] == 1 and out["bib"]["failed"] == []
    assert out["ris"]["added"] == 1
    assert out["neither"].startswith("invalid_request")


def test_a_reference_text_never_reads_a_file_of_the_server(tmp_path: Path) -> None:
    secret = make_text_pdf(tmp_path / "secret.pdf", "Secret", ["Not for remote clients."])
    library = make_library()
    bib = f"@article{{x2020, title={{Linked}}, year={{2020}}, file={{:{secret}:PDF}}}}\n"

    async def body(client: Client) -> dict[str, Any]:
        report = data(await client.call_tool("research_import_references", {"text": bib}))
        documents = library.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        return {**report, "documents": documents}

    report = with_client(library, body)  # (closes the library)
    assert report["added"] == 1 and report["files_ingested"] == 0
    assert report["documents"] == 0


def test_the_spec_names_of_edit_and_cite_are_the_same_tools(tmp_path: Path) -> None:
    library = make_library()
    work_id = library.ingest_file(
        make_text_pdf(tmp_path / "h.pdf", "Harrier flight", ["Harriers quarter low."])
    ).id

    async def body(client: Client) -> dict[str, Any]:
        return {
            "edited": data(
                await client.call_tool(
                    "research_update_metadata", {"id": work_id, "fields": {"year": 1999}}
                )
            ),
            "cited": data(
                await client.call_tool(
                    "research_format_citation", {"ids": [work_id], "format": "bibtex"}
                )
            ),
        }

    out = with_client(library, body)  # (closes the library)
    assert out["edited"]["year"] == 1999 and out["edited"]["origins"]["year"] == "user"
    assert out["cited"]["text"].startswith("@") and "1999" in out["cited"]["text"]
