"""The Snowball page in Chromium: run a snowball, read the citation view, dismiss one; no
script error and no Content-Security-Policy violation (the SVG is attributes only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import snowball_helpers as h
from interfaces.web.test_browser import UNLABELLED, new_page, shot, until
from interfaces.web.web_helpers import live_app, make_library

pytestmark = pytest.mark.browser


def test_snowball_page_triage(browser: Any, data_dir: Path) -> None:
    library = h.build(make_library(data_dir))
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/snowball")
            page.click("#snowball-form button[type=submit]")
            until(page, "document.querySelectorAll('li.candidate').length === 3")
            assert page.locator("svg.citation-graph circle").count() >= 5
            assert page.locator("svg.citation-graph").bounding_box()["width"] > 300
            shot(page, "snowball")
            first = page.locator("li.candidate").first
            assert first.get_attribute("data-key") == "doi:10.1038/nature21707"
            first.locator("button.dismiss").click()
            until(page, "document.querySelectorAll('li.candidate').length === 2")
            page.click("#snowball-form button[type=submit]")
            until(page, "document.querySelectorAll('li.candidate').length === 2")
            assert "nature21707" not in page.content()
            assert page.errors == [], page.errors
            assert page.evaluate(UNLABELLED) == []  # every control has a label
            phone = new_page(browser, app.url, "phone")
            phone.goto("/snowball")
            phone.click("#snowball-form button[type=submit]")
            until(phone, "document.querySelectorAll('li.candidate').length === 2")
            shot(phone, "snowball")
    finally:
        library.close()
