"""PriorisMCP 0.1.1's resources, read as its clients read them.

Contract: ``research://{provider}/{identifier}/{format}/fulltext`` gives the stored bytes;
``.../markdown{?offset,limit,page}`` gives a JSON page ``{markdown, offset, limit,
total_length, has_more, total_pages, page_range, resource_uri}``; identifiers are the
canonical ones (versioned arXiv, percent-encoded when they hold a ``/``; ``PMC:{n}``; the
local file id the upload tools returned); nothing is fetched, so what was not stored is
not found. ``research://arxiv/categories`` is ``{categories: [{code, name}]}``: leaf sets
only, ``physics:astro-ph:CO`` as ``astro-ph.CO``, sorted by code.
"""

from __future__ import annotations

import base64

import pytest

from contract.conftest import Mcp
from contract.providers import JATS

from pdf_factory import make_text_pdf

PAGE_FIELDS = {
    "markdown",
    "offset",
    "limit",
    "total_length",
    "has_more",
    "total_pages",
    "page_range",
    "resource_uri",
}


@pytest.fixture(scope="module")
def local_id(mcp: Mcp, tmp_path_factory: pytest.TempPathFactory) -> str:
    pdf = make_text_pdf(
        tmp_path_factory.mktemp("res") / "dingo.pdf",
        "Dingo howls",
        ["Dingoes howl at dusk.", "Packs answer from the next valley."],
    ).read_bytes()
    content = base64.b64encode(pdf).decode()
    return mcp.call("research_localfile_fetch_full_text", {"content_base64": content})["id"]


def test_fulltext_gives_the_stored_bytes(mcp: Mcp) -> None:
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001v2", "format": "pdf"})
    blob = mcp.read("research://arxiv/2401.00001v2/pdf/fulltext").contents[0]
    assert base64.b64decode(blob.blob) == mcp.world.pdfs["2401.00001v2"]
    mcp.call("research_europepmc_fetch_full_text", {"identifier": "PMC7000001"})
    xml = mcp.read("research://europepmc/PMC:7000001/xml/fulltext").contents[0]
    assert xml.text.encode() == JATS


def test_old_style_arxiv_ids_are_percent_encoded(mcp: Mcp) -> None:
    stored = mcp.call(
        "research_arxiv_fetch_full_text", {"arxiv_id": "hep-th/9901001", "format": "pdf"}
    )
    assert stored["resource_uri"] == "research://arxiv/hep-th%2F9901001v1/pdf/fulltext"
    blob = mcp.read(stored["resource_uri"]).contents[0]
    assert base64.b64decode(blob.blob) == mcp.world.pdfs["hep-th/9901001v1"]
    page = mcp.read_json("research://arxiv/hep-th%2F9901001v1/pdf/markdown")
    assert "T-duality" in page["markdown"]


def test_markdown_is_a_json_page(mcp: Mcp) -> None:
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001v2", "format": "pdf"})
    base = "research://arxiv/2401.00001v2/pdf/markdown"
    whole = mcp.read_json(base)
    assert set(whole) >= PAGE_FIELDS
    assert whole["offset"] == 0 and whole["limit"] == 20000 and whole["has_more"] is False
    assert whole["total_length"] == len(whole["markdown"]) and whole["total_pages"] == 2
    assert whole["page_range"] == [1, 2] and whole["resource_uri"] == base
    part = mcp.read_json(f"{base}?offset=10&limit=20")
    assert part["markdown"] == whole["markdown"][10:30] and part["has_more"] is True
    page2 = mcp.read_json(f"{base}?page=2")
    assert "dry summers" in page2["markdown"] and page2["page_range"] == [2, 2]
    mcp.read_fails(f"{base}?page=9", "not_found")


def test_europepmc_markdown_in_the_canonical_form(mcp: Mcp) -> None:
    mcp.call("research_europepmc_fetch_full_text", {"identifier": "PMC7000001"})
    page = mcp.read_json("research://europepmc/PMC:7000001/xml/markdown")
    assert "northern koala colonies" in page["markdown"]
    assert page["total_pages"] is None and page["page_range"] is None


def test_local_files_by_the_id_the_upload_returned(mcp: Mcp, local_id: str) -> None:
    page = mcp.read_json(f"research://localfile/{local_id}/pdf/markdown?page=2")
    assert "next valley" in page["markdown"] and "howl at dusk" not in page["markdown"]
    blob = mcp.read(f"research://localfile/{local_id}/pdf/fulltext").contents[0]
    assert base64.b64decode(blob.blob).startswith(b"%PDF-")


def test_what_was_not_stored_is_not_found(mcp: Mcp) -> None:
    mcp.read_fails("research://arxiv/2401.00002v1/pdf/fulltext", "not_found")
    mcp.read_fails("research://arxiv/2401.00002v1/pdf/markdown", "not_found")
    mcp.read_fails("research://localfile/19990101-0000-zzzz/pdf/markdown", "not_found")


def test_arxiv_categories_are_leaf_codes_sorted(mcp: Mcp) -> None:
    out = mcp.read_json("research://arxiv/categories")
    assert out == {
        "categories": [
            {"code": "astro-ph.CO", "name": "Cosmology and Nongalactic Astrophysics"},
            {"code": "cs.AI", "name": "Artificial Intelligence"},
            {"code": "cs.LG", "name": "Machine Learning"},
            {"code": "hep-th", "name": "High Energy Physics - Theory"},
            {"code": "q-bio.PE", "name": "Populations and Evolution"},
        ]
    }
