"""MCP ``research_cite`` over a real library (SQLite and PostgreSQL), in process."""

from __future__ import annotations

from typing import Any

import bibtexparser
import pytest
import rispy
from mcp import Client

from interfaces.mcp_helpers import data, error, make_library, with_client
from prioris.models import Work
from prioris.storage.works import upsert_work

ARTICLE = Work(
    id="doi:10.7717/peerj.4375",
    title="The state of OA: a large-scale analysis of Open Access articles",
    authors=["Heather Piwowar", "Jason Priem"],
    year=2018,
    venue="PeerJ",
    volume="6",
    pages="e4375",
    type="article",
    source="openalex",
    aliases=["doi:10.7717/peerj.4375"],
)


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    if request.param == "postgresql":
        monkeypatch.setenv("PRIORIS_MCP_DB", request.getfixturevalue("pg_url"))
    lib = make_library()
    with lib.lock:
        upsert_work(lib.conn, ARTICLE, "2026-01-01T00:00:00+00:00")
    yield lib
    lib.close()


def test_research_cite_styles_and_formats(library: Any) -> None:
    async def body(client: Client) -> dict[str, Any]:
        calls = {
            "default": {"ids": [ARTICLE.id]},
            "ieee": {"ids": [ARTICLE.id], "style": "ieee"},
            "bibtex": {"ids": [ARTICLE.id], "format": "bibtex"},
            "ris": {"ids": [ARTICLE.id], "format": "ris"},
            "bad_style": {"ids": [ARTICLE.id], "style": "harvardish"},
            "style_with_bibtex": {"ids": [ARTICLE.id], "format": "bibtex", "style": "apa"},
            "unknown": {"ids": ["doi:10.1/none"]},
        }
        return {name: await client.call_tool("research_cite", args) for name, args in calls.items()}

    out = with_client(library, body)
    default = data(out["default"])
    assert default["format"] == "text" and default["style"] == "apa"
    (item,) = default["items"]
    assert item["key"] == "piwowar2018state"
    assert item["citation"].startswith("Piwowar, H., & Priem, J. (2018).")
    assert "PeerJ, 6, e4375." in item["citation"]
    assert data(out["ieee"])["items"][0]["citation"].startswith("H. Piwowar and J. Priem,")
    bib = bibtexparser.parse_string(data(out["bibtex"])["text"])
    assert bib.entries[0].entry_type == "article" and bib.entries[0].key == "piwowar2018state"
    assert rispy.loads(data(out["ris"])["items"][0]["citation"])[0]["type_of_reference"] == "JOUR"
    assert "style" in error(out["bad_style"])  # the schema lists the styles
    assert error(out["style_with_bibtex"]).startswith("invalid_request:")
    assert error(out["unknown"]).startswith("not_found:")
