"""The web app's Zotero sync and reference imports (TestClient): jobs, reports, the Read
page's notes at their page, and what a request may not do."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.web_helpers import make_library
from prioris.interfaces.web import build_app
from prioris.library import Library
from refman.zotero_factory import add_annotation, add_attachment, add_item, make_zotero_dir, open_db

from conftest import shared_path
from pdf_factory import make_text_pdf

BASE = "http://127.0.0.1:8765"
HEADERS = {"X-CSRF-Token": "t", "Origin": BASE}


@pytest.fixture
def site(data_dir: Path) -> Iterator[tuple[Library, TestClient]]:
    library = make_library(data_dir)
    app = build_app(library, csrf_token="t")
    yield library, TestClient(app, base_url=BASE)
    app.state.web.jobs.close()
    library.close()


def _wait(client: TestClient, job: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while job["active"]:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = client.get(f"/api/jobs/{job['id']}").json()["job"]
    return job


def test_sync_zotero_from_the_add_page_and_read_the_highlight_at_its_page(site, tmp_path):
    library, client = site
    data_dir = make_zotero_dir(tmp_path, shared_path("fixtures", "zotero", "schema"))
    pdf = make_text_pdf(tmp_path / "p.pdf", "Cranes", ["Page one about cranes.", "Page two."])
    with open_db(data_dir) as db:
        add_item(db, "ITEMCRAN", "journalArticle", {"title": "Crane dances", "date": "2010"})
        add_attachment(db, data_dir, "ATTCRANE", "ITEMCRAN", content=pdf.read_bytes())
        add_annotation(
            db,
            "ANNOCRAN",
            "ATTCRANE",
            text="Page two.",
            comment="mine: x < y &amp; z",
            page_index=1,
            page_label="2",
            color="#5fb236",
        )
    page = client.get("/add").text
    assert 'id="zotero-form"' in page and 'id="references-form"' in page
    response = client.post("/api/zotero-sync", json={"path": str(data_dir)}, headers=HEADERS)
    assert response.status_code == 202, response.text
    job = _wait(client, response.json()["job"])
    assert job["state"] in ("done", "ingested"), job
    assert "1 added" in job["message"]
    work_id = library.resolve_work_id("zotero:ITEMCRAN")
    first = client.get("/read", params={"id": work_id, "page": 1}).text
    assert "Your notes and highlights on page 1 (0 of 1)" in first
    assert "p. 2" in first  # a link to the page that has one
    second = client.get("/read", params={"id": work_id, "page": 2}).text
    assert "Page two." in second and "mine: x &lt; y &amp; z" in second  # escaped
    assert 'class="swatch c-5fb236"' in second and "style=" not in second.split("notes-title")[1]


def test_a_missing_zotero_folder_and_a_missing_bib_are_not_found(site, tmp_path):
    _, client = site
    response = client.post(
        "/api/zotero-sync", json={"path": str(tmp_path / "nowhere")}, headers=HEADERS
    )
    assert response.status_code == 404
    response = client.post("/api/references", json={"path": ""}, headers=HEADERS)
    assert response.status_code == 400
    response = client.post(
        "/api/references", json={"path": str(tmp_path / "none.bib")}, headers=HEADERS
    )
    assert response.status_code == 404
    # without the CSRF token nothing starts
    response = client.post("/api/zotero-sync", json={}, headers={"Origin": BASE})
    assert response.status_code == 403


def test_a_bib_by_path_brings_its_pdf_and_an_uploaded_one_only_metadata(site, tmp_path):
    library, client = site
    make_text_pdf(tmp_path / "files" / "1" / "ibis.pdf", "Ibis", ["Ibises probe mud."])
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{ibis2001, title={Ibis feeding}, year={2001},"
        " file={Full Text PDF:files/1/ibis.pdf:application/pdf}}\n"
    )
    response = client.post("/api/references", json={"path": str(bib)}, headers=HEADERS)
    job = _wait(client, response.json()["job"])
    assert "1 added" in job["message"], job
    assert library.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 1
    upload = (
        "@article{stork2003, title={Stork migration}, year={2003},"
        f" file={{:{tmp_path / 'files' / '1' / 'ibis.pdf'}:PDF}}}}\n"
    )
    response = client.post("/api/import?name=mine.bib", content=upload.encode(), headers=HEADERS)
    assert response.status_code == 202, response.text
    job = _wait(client, response.json()["job"])
    assert "1 added" in job["message"], job
    assert library.get_work("bibtex:stork2003").title == "Stork migration"
    assert library.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 1
