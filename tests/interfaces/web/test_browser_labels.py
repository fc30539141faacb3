"""The collection menu and tag chips in Chromium: choosing a collection reloads the Search
results in place (the URL keeps it), a tag chip narrows them, and the Library page with
its chips fits a phone's width."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from interfaces.web.test_browser import fits, new_page, shot
from interfaces.web.web_helpers import live_app, make_library
from prioris.storage import labels as label_store

pytestmark = pytest.mark.browser


@pytest.fixture
def labelled(data_dir: Path) -> Iterator[Any]:
    library = make_library(data_dir)
    library.import_records(
        [
            {
                "_id": f"r{i}",
                "title": f"Sediment cores {i}",
                "text": "sediment cores",
                "year": 2010 + i,
            }
            for i in range(4)
        ]
    )
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        for i, collections, tags in (
            (0, ["Lakes / Alpine lakes with a rather long collection name"], ["varves", "core"]),
            (1, ["Lakes"], ["core"]),
            (2, ["Oceans"], ["core", "deep sea"]),
            (3, [], []),
        ):
            label_store.set_labels(
                library.conn, f"r{i}", "zotero", collections=collections, tags=tags
            )
        library.conn.execute("COMMIT")
    with live_app(library) as app:
        yield app
    library.close()


def test_collection_menu_and_tag_chips(browser: Any, labelled: Any) -> None:
    page = new_page(browser, labelled.url)
    page.goto("/?q=sediment&mode=fts")
    assert page.locator("#hits a[data-hit]").count() == 4
    page.select_option("select[name=collection]", "Lakes")  # the form's change handler
    page.locator("#results .summary", has_text="2 works").wait_for()
    assert "collection=Lakes" in page.url
    page.locator("a.chip", has_text="varves").click()  # a link: the page loads anew
    page.wait_for_url("**tag=varves**")
    assert page.locator("#hits a[data-hit]").all_inner_texts() == ["Sediment cores 0"]
    assert page.locator("select[name=collection]").input_value() == "Lakes"  # kept
    shot(page, "search-labels")
    phone = new_page(browser, labelled.url, "phone")
    phone.goto("/library?tag=core")
    assert phone.locator("tr[data-id]").count() == 3
    wide = phone.evaluate(
        """() => Array.from(document.querySelectorAll('body *'))
        .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(0, 8).map(e => e.tagName + '.' + e.className)"""
    )
    assert fits(phone), wide
    shot(phone, "library-labels")
