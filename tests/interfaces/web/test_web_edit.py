"""The web app's record editor: the Read page's form with each field's origin, the Library
page's Edit link, ``POST /api/edit`` behind the CSRF token, and (in Chromium) the form
saving a correction and undoing it."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.web_helpers import live_app, make_library, text_pdf_bytes
from prioris.interfaces.web import build_app
from prioris.library import Library

TOKEN = "test-token"
BASE = "http://127.0.0.1:8765"
HEADERS = {"X-CSRF-Token": TOKEN, "Origin": BASE}
GLACIERS = "Glacier moraine sediment records past climate in alpine valleys. " * 12


@pytest.fixture
def stocked(data_dir: Path) -> Iterator[tuple[Library, str]]:
    library = make_library(data_dir)
    result = library.ingest_pdf_bytes(
        text_pdf_bytes("Alpine glaciers", [GLACIERS]), filename="ice.pdf"
    )
    yield library, result.id
    library.close()


def test_read_page_form_api_edit_and_undo(stocked: tuple[Library, str]) -> None:
    library, work_id = stocked
    client = TestClient(build_app(library, csrf_token=TOKEN), base_url=BASE)
    page = client.get("/read", params={"id": work_id}).text
    assert 'id="edit-form"' in page and f'data-id="{work_id}"' in page
    assert re.search(r'id="origin-title">pdf_metadata<', page)
    assert '<script src="/static/edit.js" defer>' in page
    assert 'id="edit-undo" disabled' in page  # nothing to undo yet
    assert '<details class="edit-record" id="edit">' in page  # closed unless asked
    listing = client.get("/library").text
    edit_link = html.unescape(re.search(r'<a class="edit-one" href="([^"]+)"', listing).group(1))
    assert edit_link.endswith("&edit=1#edit")
    opened = client.get(edit_link.split("#")[0]).text
    assert '<details class="edit-record" id="edit" open>' in opened

    body = {"id": work_id, "fields": {"title": "Alpine Glaciers Retreating", "year": "2012"}}
    assert client.post("/api/edit", json=body).status_code == 403  # no token
    assert library.get_work(work_id).title == "Alpine glaciers"
    response = client.post("/api/edit", json=body, headers=HEADERS)
    assert response.status_code == 200, response.text
    record = response.json()["record"]
    assert (record["title"], record["year"], record["edits"]) == (
        "Alpine Glaciers Retreating",
        2012,
        1,
    )
    assert record["origins"]["title"] == "user"
    page = client.get("/read", params={"id": work_id}).text
    assert re.search(r'id="origin-title">user<', page)
    assert 'value="Alpine Glaciers Retreating"' in page and "Undo last edit (1)" in page

    bad = client.post(
        "/api/edit", json={"id": work_id, "fields": {"year": "soon"}}, headers=HEADERS
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_request"
    assert "year must be a four-digit year" in bad.json()["error"]["message"]
    both = client.post(
        "/api/edit", json={"id": work_id, "fields": {"year": 1}, "undo": True}, headers=HEADERS
    )
    assert both.status_code == 400
    undone = client.post("/api/edit", json={"id": work_id, "undo": True}, headers=HEADERS)
    assert undone.status_code == 200 and undone.json()["record"]["title"] == "Alpine glaciers"
    again = client.post("/api/edit", json={"id": work_id, "undo": True}, headers=HEADERS)
    assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"


@pytest.mark.browser
def test_edit_form_in_chromium(browser: Any, stocked: tuple[Library, str]) -> None:
    from interfaces.web.test_browser import fits, new_page, shot  # the browser tests' helpers

    library, work_id = stocked
    with live_app(library) as app:
        for width in ("desktop", "phone"):
            page = new_page(browser, app.url, width)
            page.goto("/library")
            page.click("a.edit-one")
            page.wait_for_url("**/read?**edit=1**")
            assert page.locator("#edit-form").is_visible()
            page.fill("#edit-title", f"Glaciers Edited On {width}")
            page.fill("#edit-authors", "Ada Rossi\nBen Keller")
            page.fill("#edit-year", "2012")
            with page.expect_navigation():
                page.click("#edit-save")
            assert page.locator("#origin-title").inner_text() == "user"
            assert page.locator("h1").inner_text() == f"Glaciers Edited On {width}"
            assert library.get_work(work_id).authors == ["Ada Rossi", "Ben Keller"]
            page.evaluate("document.getElementById('edit').scrollIntoView()")
            shot(page, f"edit-{width}")
            assert fits(page)  # the open form holds at phone width
            page.fill("#edit-year", "later")
            page.click("#edit-save")
            page.locator("#edit-status", has_text="year must be a four-digit year").wait_for()
            assert library.get_work(work_id).year == 2012
            assert [e for e in page.errors if "400 (Bad Request)" not in e] == []
            with page.expect_navigation():
                page.click("#edit-undo")
            assert page.locator("h1").inner_text() == "Alpine glaciers"
            assert page.locator("#origin-title").inner_text() == "pdf_metadata"
            page.context.close()
