"""Collections and tags on the web: ``/api/collections`` and ``/api/tags`` behind the CSRF
token and, in accounts mode, the writer role; and in Chromium the Library page's bar (a
collection made in its dialog, ticked works put in it and tagged, then taken out)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.test_browser import UNLABELLED, new_page, shot, until
from interfaces.web.web_helpers import live_app, make_library
from prioris.interfaces.web.app import build_app
from prioris.library import Library
from prioris.storage import labels as label_store
from prioris.storage.transaction import immediate

TOKEN = "csrf-token-of-the-test"
BASE = "http://127.0.0.1:8765"
CSRF = {"X-CSRF-Token": TOKEN}


@pytest.fixture
def stocked(data_dir: Path) -> Iterator[Library]:
    library = make_library(data_dir)
    library.import_records(
        [
            {"_id": "reef", "title": "Coral reefs", "text": "corals bleach in warm water"},
            {"_id": "kelp", "title": "Kelp forests", "text": "kelp grows in cold water"},
            {"_id": "dune", "title": "Dunes", "text": "sand dunes move"},
        ]
    )
    with library.lock, immediate(library.conn):
        label_store.set_labels(library.conn, "kelp", "zotero", collections=["Ocean"], tags=["cold"])
    yield library
    library.close()


def test_api_routes(stocked: Library) -> None:
    client = TestClient(build_app(stocked, csrf_token=TOKEN), base_url=BASE)
    create = {"action": "create", "name": "Marine", "parent": "Ocean"}
    assert client.post("/api/collections", json=create).status_code == 403  # no CSRF token
    made = client.post("/api/collections", json=create, headers=CSRF)
    assert made.status_code == 200 and made.json() == {
        "action": "create",
        "collection": "Ocean / Marine",
        "created": True,
    }
    added = client.post(
        "/api/collections",
        json={"action": "add", "name": "marine", "ids": ["reef", "kelp"]},
        headers=CSRF,
    )
    assert added.json()["added"] == ["reef", "kelp"]
    tagged = client.post(
        "/api/tags", json={"action": "add", "tag": "warm", "ids": ["reef"]}, headers=CSRF
    )
    assert tagged.json() == {"action": "add", "tag": "warm", "added": ["reef"], "already": []}
    kept = client.post(
        "/api/tags", json={"action": "remove", "tag": "Cold", "ids": ["kelp"]}, headers=CSRF
    )
    assert kept.json()["kept"] == [{"id": "kelp", "origins": ["zotero"]}]
    listed = client.get("/api/collections").json()
    assert [c["path"] for c in listed["collections"]] == ["Ocean", "Ocean / Marine"]
    assert {"tag": "warm", "works": 1} in listed["tags"]
    for body, code in (
        ({"action": "add", "name": "Marine", "ids": []}, 400),
        ({"action": "add", "name": "Marine", "ids": ["nope"]}, 404),
        ({"action": "fly", "name": "Marine"}, 400),
        ({"action": "delete", "name": "Ocean"}, 400),  # Zotero's: deleted there
        ({"action": "rename", "name": "Marine"}, 400),  # no new_name
    ):
        response = client.post("/api/collections", json=body, headers=CSRF)
        assert response.status_code == code, (body, response.text)
        assert response.json()["error"]["code"] in ("invalid_request", "not_found")
    page = client.get("/library", params={"collection": "Marine"}).text
    assert 'id="collection-add"' in page and '<option value="Ocean / Marine">' in page
    assert "Coral reefs" in page and "Dunes" not in page


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def test_accounts_a_reader_may_not_label_a_writer_may(library: Library) -> None:
    library.import_records([{"_id": "w", "title": "Moss", "text": "moss"}])
    tokens = {role: library.add_account(f"{role}1", role) for role in ("reader", "writer")}
    app = build_app(library, csrf_token=TOKEN, accounts=True)
    try:
        clients = {}
        for role, token in tokens.items():
            clients[role] = TestClient(app, base_url=BASE)
            assert (
                clients[role].post("/login", json={"token": token}, headers=CSRF).status_code == 200
            )
        reader = clients["reader"]
        assert reader.get("/api/collections").status_code == 200  # reading is a read
        assert 'id="collection-add"' not in reader.get("/library").text  # no bar for a reader
        body = {"action": "add", "tag": "x", "ids": ["w"]}
        refused = reader.post("/api/tags", json=body, headers=CSRF)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
        refused = reader.post(
            "/api/collections", json={"action": "create", "name": "R"}, headers=CSRF
        )
        assert refused.status_code == 403
        assert library.labels("w") == {"collections": [], "tags": []}
        writer = clients["writer"]
        assert 'id="collection-add"' in writer.get("/library").text
        assert writer.post("/api/tags", json=body, headers=CSRF).status_code == 200
        assert library.labels("w")["tags"] == ["x"]
        (entry,) = library.audit()
        assert (entry["account"], entry["action"]) == ("writer1", "POST /api/tags")
    finally:
        app.state.web.jobs.close()


@pytest.mark.browser
def test_library_page_makes_a_collection_and_labels_ticked_works(
    stocked: Library, browser: Any
) -> None:
    with live_app(stocked) as app:
        page = new_page(browser, app.url)
        page.goto("/library")
        assert page.evaluate(UNLABELLED) == []
        assert page.locator("#collection-add").is_disabled()  # nothing ticked yet
        # a collection made in the dialog, inside Zotero's
        page.click("#collection-new")
        page.fill("#new-collection-name", "Ocean")
        page.click("#new-collection-ok")
        shown = "document.getElementById('new-collection-error').textContent"
        until(page, f"{shown}.includes('exists already')")
        assert page.locator("#new-collection").is_visible()  # stays open to correct
        assert all("400" in e for e in page.errors)  # the refused create's answer, logged
        page.errors.clear()
        page.fill("#new-collection-name", "Reefs and kelp")
        page.select_option("#new-collection-parent", "Ocean")
        page.click("#new-collection-ok")
        until(page, "document.getElementById('label-status').textContent.includes('created')")
        assert [c["path"] for c in stocked.list_collections()] == [
            "Ocean",
            "Ocean / Reefs and kelp",
        ]

        # tick two works, put them in it, tag them
        page.check("tr[data-id=reef] input.pick")
        page.check("tr[data-id=kelp] input.pick")
        page.fill("#label-collection", "Reefs and kelp")
        page.click("#collection-add")
        until(page, "document.getElementById('label-status').textContent.includes('2 added')")
        assert "Ocean / Reefs and kelp" in page.locator("tr[data-id=reef] .labels").inner_text()
        page.check("tr[data-id=reef] input.pick")
        page.check("tr[data-id=kelp] input.pick")
        page.fill("#label-tag", "Cold")
        page.click("#tag-add")
        until(page, "document.getElementById('label-status').textContent.includes('#cold')")
        assert stocked.labels("reef")["tags"] == ["cold"]  # the library's spelling kept
        shot(page, "library-labels")

        # untag both: Zotero's tag on kelp stays, and the page says so
        page.check("tr[data-id=reef] input.pick")
        page.check("tr[data-id=kelp] input.pick")
        page.fill("#label-tag", "cold")
        page.click("#tag-remove")
        until(page, "document.getElementById('label-status').textContent.includes('kept')")
        assert "from zotero" in page.locator("#label-status").inner_text()
        assert stocked.labels("reef")["tags"] == [] and stocked.labels("kelp")["tags"] == ["cold"]

        # the collection's filter on the page finds them; take one out
        page.goto("/library?collection=Reefs+and+kelp")
        assert page.locator("tr[data-id]").count() == 2
        page.check("tr[data-id=reef] input.pick")
        page.fill("#label-collection", "Ocean / Reefs and kelp")
        page.click("#collection-remove")
        until(page, "document.getElementById('label-status').textContent.includes('1 removed')")
        assert page.locator("tr[data-id]").count() == 1
        assert page.errors == [], page.errors
