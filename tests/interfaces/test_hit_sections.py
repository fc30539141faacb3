"""The ``section`` of a hit through every interface: CLI (JSON and text), MCP, web."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.mcp_helpers import data, make_library, with_client
from prioris.interfaces.cli import main
from prioris.interfaces.web import build_app
from prioris.library import Library
from prioris.models import Page, Work

MARKDOWN = (
    "# Glacier moraines\n\n## Methods\n\n"
    + "Moraine sediment cores record past climate in alpine valleys. " * 6
    + "\n\n## Acknowledgements\n\nWe thank the moraine survey team for the cores.\n\n"
    "## References\n\n[1] A. Author. Varved lake chronologies of the Holocene. 2017.\n\n"
    "[2] B. Author. Ice ages. 2018.\n\n[3] C. Author. Tills. 2019."
)


def _store(library: Library) -> None:
    work = Work(id="glacier", title="Glacier moraines", source="import")
    library.pipeline.store(library.pipeline.prepare_pages(work, [Page(1, MARKDOWN)]))


@pytest.fixture
def library(data_dir: Path) -> Any:
    lib = make_library()
    _store(lib)
    yield lib
    lib.close()


def test_cli_search_shows_the_section(library: Library, capsys: pytest.CaptureFixture[str]) -> None:
    library.close()  # the CLI opens the same library itself
    assert main(["search", "varved lake chronologies", "--mode", "fts", "--json"]) == 0
    hit = json.loads(capsys.readouterr().out)["hits"][0]
    assert hit["id"] == "glacier" and hit["section"] == "references"
    assert main(["search", "moraine sediment cores", "--mode", "fts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["section"] == "body"
    assert main(["search", "varved lake chronologies", "--mode", "fts"]) == 0
    details = capsys.readouterr().out.splitlines()[1]
    assert details == f"    references · score {hit['score']:.4g} · offset {hit['offset']}"
    assert main(["search", "moraine sediment cores", "--mode", "fts"]) == 0
    assert "body" not in capsys.readouterr().out.splitlines()[1]  # body text is the default


def test_mcp_hits_carry_the_section(library: Library) -> None:
    async def body(client: Any) -> Any:
        return data(
            await client.call_tool(
                "research_search_fetched",
                {"query": "varved lake chronologies", "mode": "fts", "chunks": True},
            )
        )

    hits = with_client(library, body)["hits"]
    assert hits[0]["id"] == "glacier" and hits[0]["section"] == "references"


def test_web_results_badge_the_section(library: Library) -> None:
    client = TestClient(build_app(library, csrf_token="t"), base_url="http://127.0.0.1:8765")
    html = client.get("/api/search", params={"q": "varved lake chronologies", "mode": "fts"}).text
    assert '<span class="badge section" title="part of the paper">references</span>' in html
    body = client.get("/api/search", params={"q": "moraine sediment cores", "mode": "fts"}).text
    assert "Glacier moraines" in body and 'class="badge section"' not in body
