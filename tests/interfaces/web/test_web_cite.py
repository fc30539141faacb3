"""The web app's citations: the Read page's "Cite as" menu (/api/cite), RIS and formatted
exports, and downloads under the original file name. Real Library, fake embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import rispy
from starlette.testclient import TestClient

from interfaces.web.web_helpers import make_library, text_pdf_bytes
from prioris.interfaces.web import build_app
from prioris.interfaces.web.api_reading import content_disposition

BASE = "http://127.0.0.1:8765"
FOLDING = "Protein folding with attention networks predicts structures from sequences. " * 12


@pytest.fixture
def web(data_dir: Path) -> Iterator[tuple[Any, TestClient, str]]:
    library = make_library(data_dir)
    app = build_app(library, csrf_token="t")
    result = library.ingest_pdf_bytes(
        text_pdf_bytes("Attention for protein structure", [FOLDING]),
        filename="Müller – folding (final).pdf",
    )
    yield library, TestClient(app, base_url=BASE), result.id
    app.state.web.jobs.close()
    library.close()


def test_read_page_offers_the_cite_menu(web: tuple[Any, TestClient, str]) -> None:
    _, client, work_id = web
    page = client.get("/read", params={"id": work_id}).text
    assert 'id="cite-choice"' in page and "Copy citation" in page and "Copy BibTeX" in page
    for label in ("APA", "Vancouver", "IEEE", "Chicago (author-date)", "BibTeX", "RIS"):
        assert f">{label}</option>" in page
    assert (
        "Attention for protein structure" in page.split('id="citation"')[1].split("</textarea>")[0]
    )


def test_api_cite_styles_and_formats(web: tuple[Any, TestClient, str]) -> None:
    _, client, work_id = web
    apa = client.get("/api/cite", params={"id": work_id}).json()
    assert apa["style"] == "apa" and "Attention for protein structure" in apa["citation"]
    ieee = client.get("/api/cite", params={"id": work_id, "style": "ieee"}).json()
    assert ieee["citation"].startswith("“Attention for protein structure")
    ris = client.get("/api/cite", params={"id": work_id, "format": "ris"}).json()
    assert rispy.loads(ris["citation"])[0]["title"] == "Attention for protein structure"
    assert ris["style"] is None
    bib = client.get("/api/cite", params={"id": work_id, "format": "bibtex"}).json()
    assert bib["citation"].startswith("@") and bib["key"] in bib["citation"]
    headers = {"Accept": "application/json"}
    path_style = client.get(
        "/api/cite", params={"id": work_id, "style": "/etc/x.csl"}, headers=headers
    )
    assert path_style.status_code == 400 and path_style.json()["error"]["code"] == "invalid_request"
    missing = client.get("/api/cite", params={"id": "doi:10.1/none"}, headers=headers)
    assert missing.status_code == 404


def test_export_ris_and_formatted_text(web: tuple[Any, TestClient, str]) -> None:
    _, client, work_id = web
    ris = client.get("/export", params={"format": "ris", "id": work_id})
    assert ris.status_code == 200 and "prioris.ris" in ris.headers["content-disposition"]
    assert rispy.loads(ris.text)[0]["type_of_reference"] in ("GEN", "JOUR")
    text = client.get("/export", params={"format": "text", "style": "vancouver", "id": work_id})
    assert text.status_code == 200 and text.text.startswith("1. ")
    bad = client.get("/export", params={"format": "text", "style": "nature", "id": work_id})
    assert bad.status_code == 400  # the web offers the bundled styles only
    library_page = client.get("/library").text
    assert 'value="ris"' in library_page and 'name="style"' in library_page


def test_download_keeps_the_original_file_name(web: tuple[Any, TestClient, str]) -> None:
    library, client, work_id = web
    _, documents = library.original(work_id)
    response = client.get("/document", params={"id": work_id, "sha": documents[0]["sha256"]})
    disposition = response.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="Muller _ folding (final).pdf"')
    encoded = disposition.split("filename*=UTF-8''")[1]
    assert unquote(encoded) == "Müller – folding (final).pdf"


def test_content_disposition_is_safe() -> None:
    assert content_disposition("paper.pdf") == 'attachment; filename="paper.pdf"'
    hostile = content_disposition('a"b\\c\r\nX-Evil: 1.pdf')
    assert "\r" not in hostile and "\n" not in hostile
    assert hostile.startswith('attachment; filename="a_b_c_X-Evil_ 1.pdf"')
    assert content_disposition("") == 'attachment; filename="document"'
