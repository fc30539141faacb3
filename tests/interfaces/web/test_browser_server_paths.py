"""In a real browser (Chromium), a writer on a shared library (accounts mode) types paths
into the Add page's folder form: one outside the admin's import folders is refused with
the same words as one that does not exist; one inside is ingested."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from interfaces.web.web_helpers import LiveApp, make_library

from pdf_factory import make_text_pdf


@pytest.fixture
def lab(data_dir: Path, tmp_path: Path) -> Iterator[dict[str, Any]]:

    allowed, secret = tmp_path / "lab-share", tmp_path / "someone"
    make_text_pdf(allowed / "papers" / "ibis.pdf", "Ibis", ["Ibises probe mud with care."])
    make_text_pdf(secret / "private.pdf", "Private", ["A private manuscript on storks."])
    library = make_library(data_dir, {"PRIORIS_MCP_ALLOWED_IMPORT_DIRS": str(allowed)})
    token = library.add_account("writer1", "writer")
    live = LiveApp(library, accounts=True)
    try:
        yield {
            "url": live.url,
            "library": library,
            "token": token,
            "allowed": allowed,
            "secret": secret,
        }
    finally:
        live.close()
        library.close()


def _error_after(page: Any, path: str) -> str:
    page.evaluate("document.getElementById('add-error').hidden = true")
    page.fill("#folder-path", path)
    page.click("#folder-form button[type=submit]")
    page.wait_for_selector("#add-error:not([hidden])")
    return str(page.inner_text("#add-error")).replace(path, "PATH")


def test_the_folder_form_reads_only_under_the_allowed_folders(
    browser: Any, lab: dict[str, Any]
) -> None:
    url = lab["url"]
    context = browser.new_context(base_url=url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto("/login")
    page.fill("#login-token", lab["token"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")
    page.goto("/add")
    assert str(lab["allowed"]) in page.inner_text("#server-folders")
    assert page.input_value("#zotero-path") == ""  # the server's own path is not shown

    outside = _error_after(page, str(lab["secret"]))
    missing = _error_after(page, str(lab["allowed"] / "absent"))
    assert outside == missing
    assert outside.startswith("not_found: no folder 'PATH' among the server's import folders")
    assert lab["library"].status()["works"] == 0

    page.fill("#folder-path", str(lab["allowed"] / "papers"))
    page.click("#folder-form button[type=submit]")
    page.wait_for_selector("#jobs li.state-done, #jobs li.state-ingested", timeout=120_000)
    assert [w["title"] for w in lab["library"].list_works()] == ["Ibis"]
    assert errors == [], errors
    context.close()
