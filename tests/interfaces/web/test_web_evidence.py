"""The Evidence view of a search in the web app: the sentences with their work and page,
each linking to the Read page with that sentence marked; and in Chromium, the tick box
swaps the results in place and a click on a sentence opens it marked. Real Library, fake
embedder (the ranking itself is tested with the real model elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.test_browser import new_page, shot
from interfaces.web.web_helpers import live_app, make_library
from prioris.interfaces.web import build_app

from pdf_factory import make_text_pdf

BASE = "http://127.0.0.1:8765"
PAGES = [
    "Glacier retreat was measured with drone photogrammetry over three summers.",
    "Meltwater discharge doubled during the warmest weeks of August. Sediment plumes "
    "reached the lake within two days of each storm.",
]


def stocked(data_dir: Path, tmp_path: Path) -> Any:
    library = make_library(data_dir)
    pdf = make_text_pdf(tmp_path / "glacier.pdf", "Glacier retreat study", PAGES)
    library.ingest_paths([pdf])
    library.import_records(
        [
            {
                "_id": "<b>x</b>",
                "title": "A <script> title",
                "text": "Meltwater <i>rose</i> in August after the warm spell ended early.",
            }
        ]
    )
    return library


@pytest.fixture
def client(data_dir: Path, tmp_path: Path) -> Iterator[tuple[Any, TestClient]]:
    library = stocked(data_dir, tmp_path)
    app = build_app(library, csrf_token="t")
    yield library, TestClient(app, base_url=BASE)
    app.state.web.jobs.close()
    library.close()


def test_evidence_view_lists_sentences_with_page_and_read_link(
    client: tuple[Any, TestClient],
) -> None:
    library, http = client
    page = http.get("/", params={"q": "meltwater discharge doubled in August", "evidence": "1"})
    assert page.status_code == 200
    html = page.text
    assert "sentences for" in html and 'class="hits evidence"' in html
    assert "Meltwater discharge doubled during the warmest weeks of August." in html
    assert "p. 2" in html
    assert "<script> title" not in html and "&lt;script&gt; title" in html
    item = library.evidence("meltwater discharge doubled in August", k=1)["evidence"][0]
    link = f"/read?id={item['work_id'].replace(':', '%3A')}&amp;start={item['start']}"
    assert link in html
    plain = http.get("/", params={"q": "meltwater discharge", "mode": "hybrid"}).text
    assert 'class="legs"' in plain and "words #1 (" in plain and "meaning #" in plain
    fragment = http.get("/api/search", params={"q": "meltwater", "evidence": "1"}).text
    assert 'class="hits evidence"' in fragment
    read = http.get(
        "/read", params={"id": item["work_id"], "start": item["start"], "end": item["end"]}
    ).text
    assert "The quoted sentence is marked on this page." in read
    assert "<mark" in read and "Meltwater discharge doubled" in read
    assert 'name="start" value="' in read  # the page form keeps the quote


@pytest.mark.browser
def test_evidence_in_chromium_opens_the_sentence_marked(
    browser: Any, data_dir: Path, tmp_path: Path
) -> None:
    library = stocked(data_dir, tmp_path)
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/?q=meltwater+discharge+doubled+in+August")
            page.locator("#results .summary", has_text="works").wait_for()
            page.check("input[name=evidence]")  # the form's change handler reloads in place
            page.locator("#results .summary", has_text="sentence").wait_for()
            assert "evidence=1" in page.url
            first = page.locator("ol.evidence blockquote a").first
            assert first.inner_text().startswith("Meltwater discharge doubled")
            shot(page, "evidence")
            first.click()
            page.wait_for_url("**/read?**start=**")
            marked = page.locator("#page-text mark").first.inner_text()
            assert "Meltwater discharge doubled" in marked
            assert page.locator(".passage-note").inner_text().startswith("The quoted sentence")
            shot(page, "evidence-read")
    finally:
        library.close()
