"""Two people in a real browser (Chromium) on a shared library: each logs in with their
own token; the reader is refused a delete, the writer's delete goes through and is in the
admin's audit log; after logging out, the pages ask for a login again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from interfaces.web.web_helpers import LiveApp, make_library, text_pdf_bytes


@pytest.fixture
def shared(data_dir: Path) -> Iterator[dict[str, Any]]:
    """The app in accounts mode, served by uvicorn on a free loopback port."""

    library = make_library(data_dir)
    library.ingest_pdf_bytes(
        text_pdf_bytes("Alpine glaciers", ["Glacier moraine sediment records climate. " * 12]),
        filename="glaciers.pdf",
    )
    tokens = {role: library.add_account(f"{role}1", role) for role in ("reader", "writer", "admin")}
    live = LiveApp(library, accounts=True)
    try:
        yield {
            "url": live.url,
            "library": library,
            "tokens": tokens,
        }
    finally:
        live.close()
        library.close()


def _person(browser: Any, url: str, token: str) -> Any:
    """A browser context of its own (its own cookies), logged in through the form."""
    context = browser.new_context(base_url=url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto("/library")
    assert page.url.endswith("/login")  # no session: sent to the login page
    page.fill("#login-token", token)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")
    return page


DELETE = "ids => Prioris.post('/api/delete', { ids }).then(r => r.status)"


def test_two_people_with_different_roles(browser: Any, shared: dict[str, Any]) -> None:
    library, url, tokens = shared["library"], shared["url"], shared["tokens"]
    work_id = library.list_works()[0]["id"]
    reader = _person(browser, url, tokens["reader"])
    writer = _person(browser, url, tokens["writer"])
    assert "reader1 (reader)" in reader.inner_text("header")
    cookie = next(c for c in reader.context.cookies() if c["name"] == "prioris_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"

    assert reader.evaluate(DELETE, [work_id]) == 403
    assert library.status()["works"] == 1
    assert writer.evaluate(DELETE, [work_id]) == 200
    assert library.status()["works"] == 0

    admin = _person(browser, url, tokens["admin"])
    admin.click("header a[href='/audit']")
    admin.wait_for_url(f"{url}/audit")
    assert "writer1" in admin.inner_text("table") and "POST /api/delete" in admin.inner_text(
        "table"
    )
    assert "reader1" not in admin.inner_text("table")

    writer.click("#logout")
    writer.wait_for_url(f"{url}/login")
    writer.goto("/library")
    assert writer.url.endswith("/login")
    for page in (reader, writer, admin):
        assert page.errors == [], page.errors
