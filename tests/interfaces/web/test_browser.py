"""End-to-end: the web app served on loopback, driven in Chromium through Playwright.

Most tests use the fake embedder for speed; one runs with the real model. Screenshots of
every page at 1280 and 390 pixels go to ``tests/.screenshots/`` (git-ignored) for a person
to look at.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from playwright.sync_api import Error as PlaywrightError

from interfaces.mcp_helpers import FakeOcr as SlowOcr
from interfaces.web.web_helpers import (
    ProviderStub,
    live_app,
    make_library,
    text_pdf_bytes,
)
from prioris.embedding.fake import FakeEmbedder

from pdf_factory import make_scanned_pdf

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / ".screenshots"
WIDTHS = {"desktop": (1280, 860), "phone": (390, 844)}
INTRO = "Background material on unrelated matters such as weather and markets. " * 40
FOLDING = "Protein folding with attention networks predicts structures from sequences. " * 12
GLACIERS = "Glacier moraine sediment records past climate in alpine valleys. " * 12
UNLABELLED = """() => Array.from(document.querySelectorAll(
  'input:not([type=hidden]), select, textarea, button'))
  .filter(e => e.offsetParent !== null || e.type === 'file')
  .filter(e => e.tagName === 'BUTTON'
    ? !(e.textContent.trim() || e.getAttribute('aria-label'))
    : !((e.labels && e.labels.length) || e.getAttribute('aria-label')))
  .map(e => e.outerHTML)"""


def shot(page: Any, name: str) -> None:
    """A full-page screenshot named after the page and the viewport width; the page must
    have logged no error (a script failure or a Content-Security-Policy violation)."""
    assert page.errors == [], page.errors
    SHOTS.mkdir(exist_ok=True)
    width = page.viewport_size["width"]
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)


def new_page(browser: Any, base_url: str, width: str = "desktop") -> Any:
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h}, base_url=base_url)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on(
        "console",
        lambda message: page.errors.append(message.text) if message.type == "error" else None,
    )
    return page


def until(page: Any, script: str, timeout: float = 30.0) -> Any:
    """Poll ``script`` (a JS expression) until it is truthy. Playwright's own
    wait_for_function evaluates strings with eval, which the app's CSP rightly forbids."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            value = page.evaluate(script)
        except PlaywrightError as exc:  # the page navigated meanwhile (a reload): ask again
            if "context was destroyed" not in str(exc):
                raise
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {script}"
        page.wait_for_timeout(100)


def fits(page: Any) -> bool:
    """No horizontal scrolling of the page itself (wide plots scroll inside their box)."""
    return bool(
        page.evaluate(
            "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"
        )
    )


def marked_pixels(png: bytes) -> int:
    """Pixels of the highlight's yellow in a rendered page."""
    pix = pymupdf.Pixmap(png)
    samples, n = pix.samples, pix.n
    count = 0
    for i in range(0, len(samples), n * 7):  # every 7th pixel is plenty
        r, g, b = samples[i], samples[i + 1], samples[i + 2]
        if r > 200 and g > 170 and b < 120:
            count += 1
    return count


@pytest.fixture
def stocked(data_dir: Path, tmp_path: Path) -> Iterator[Any]:
    """Two born-digital PDFs (the folding match on page 2) and a scan, served live."""
    library = make_library(data_dir)
    library.ingest_pdf_bytes(
        text_pdf_bytes("Attention for protein structure", [INTRO, FOLDING]),
        filename="folding.pdf",
    )
    library.ingest_pdf_bytes(text_pdf_bytes("Alpine glaciers", [GLACIERS]), filename="ice.pdf")
    scan = make_scanned_pdf(tmp_path / "scan.pdf", "A scanned page").read_bytes()
    library.ingest_pdf_bytes(scan, filename="old-scan.pdf")
    library.import_records(
        [
            {"_id": f"rec{i}", "title": f"Sediment cores {i}", "text": "cores", "year": 2015 + i}
            for i in range(6)
        ]
    )
    with live_app(library) as app:
        yield app
    library.close()


def test_search_each_mode_and_open_a_hit_at_its_highlighted_page(
    browser: Any, stocked: Any
) -> None:
    page = new_page(browser, stocked.url)
    page.goto("/")
    assert page.evaluate("document.activeElement.id") == "q"  # ready to type
    for mode in ("fts", "vector", "hybrid"):
        page.check(f"input[name=mode][value={mode}]")
        page.fill("#q", "protein folding")
        page.press("#q", "Enter")
        page.locator("#results .summary", has_text=f"· {mode} ·").wait_for()
        first = page.locator("#hits a[data-hit]").first
        assert first.inner_text() == "Attention for protein structure", mode
        assert "q=protein+folding" in page.url and f"mode={mode}" in page.url
        if mode != "vector":
            assert page.locator("#hits .snippet mark").count() >= 1
    shot(page, "search")
    # the URL is the search: loading it anew shows the same results
    page.goto(page.url)
    assert page.locator("#hits a[data-hit]").first.inner_text() == "Attention for protein structure"
    # keyboard: / focuses the box, arrows move through hits, Enter opens one
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.hit") == "0"
    if page.locator("#hits a[data-hit]").count() > 1:
        page.keyboard.press("ArrowDown")
        assert page.evaluate("document.activeElement.dataset.hit") == "1"
        page.keyboard.press("ArrowUp")
    with page.expect_response(lambda r: "/api/page.png" in r.url) as image:
        page.keyboard.press("Enter")
    page.wait_for_url("**/read?**")
    assert page.locator("input[name=page]").input_value() == "2"
    assert "Protein folding with attention" in page.locator("#passage").inner_text()
    response = image.value
    assert response.headers["x-passage-marked"] == "1"
    assert marked_pixels(response.body()) > 500  # the passage is painted on the page image
    until(
        page,
        "document.getElementById('page-img').complete"
        " && document.getElementById('page-img').naturalWidth > 0",
    )
    shot(page, "read")
    # copy the citation
    page.click("#copy-bibtex")
    page.locator("#copy-status", has_text="Copied").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@") and "Attention for protein structure" in copied
    # the "Cite as" menu: another style replaces the citation, which is copied
    page.select_option("#cite-choice", "style:ieee")
    until(
        page,
        "document.getElementById('citation').value.startsWith('[1]') === false"
        " && document.getElementById('citation').value.includes('\u201c')",
    )
    page.click("#copy-citation")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "“Attention for protein structure" in copied
    page.select_option("#cite-choice", "format:ris")
    until(page, "document.getElementById('citation').value.startsWith('TY  - ')")
    # previous / next page
    page.click("#prev-page")
    page.wait_for_url(re.compile(r"page=1"))
    assert page.locator("input[name=page]").input_value() == "1"
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"page=2"))
    page.context.close()


def test_upload_two_pdfs_one_scanned_and_find_them(browser: Any, data_dir: Path, tmp_path: Path):
    if not shutil.which("tesseract"):
        pytest.skip("tesseract is not installed (make setup installs it)")
    from prioris.ingest.ocr import TesseractOcr

    library = make_library(data_dir, ocr=TesseractOcr())
    files = tmp_path / "drop"
    files.mkdir()
    (files / "glaciers.pdf").write_bytes(text_pdf_bytes("Alpine glaciers", [GLACIERS]))
    make_scanned_pdf(files / "scanned-letter.pdf", "Quarterly report on lighthouse keepers")
    (files / "notes.pdf").write_bytes(b"plain text, not a PDF")
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/add")
            page.set_input_files(
                "#pdf-input", [str(files / "glaciers.pdf"), str(files / "scanned-letter.pdf")]
            )
            until(
                page,
                "document.querySelectorAll('li.job[data-state=done] .item.state-ingested')"
                ".length === 2",
                timeout=90,
            )
            scanned = page.locator("li.item[data-name='scanned-letter.pdf']")
            assert "1 OCR'd" in scanned.inner_text()
            # the same file again is a duplicate; a non-PDF fails with its reason
            page.set_input_files(
                "#pdf-input", [str(files / "glaciers.pdf"), str(files / "notes.pdf")]
            )
            page.wait_for_selector("li.item.state-skipped")
            page.wait_for_selector("li.item.state-failed")
            assert "Skipped (duplicate)" in page.locator("li.item.state-skipped").inner_text()
            failed = page.locator("li.item.state-failed").inner_text()
            assert "Failed" in failed and "parse_error" in failed
            shot(page, "add-progress")
            # both are found by search: the scan through its OCR text
            page.goto("/?q=lighthouse+keepers&mode=fts")
            assert (
                page.locator("#hits a[data-hit]").first.inner_text()
                == "Quarterly report on lighthouse keepers"
            )
            page.goto("/?q=glacier+moraine&mode=hybrid")
            assert page.locator("#hits a[data-hit]").first.inner_text() == "Alpine glaciers"
            page.context.close()
    finally:
        library.close()


def test_folder_ingest_progress_survives_a_reload(browser: Any, data_dir: Path, tmp_path: Path):
    library = make_library(data_dir, ocr=SlowOcr("slow scanned words", delay=0.4))
    folder = tmp_path / "scans"
    for n in range(4):
        make_scanned_pdf(folder / f"scan-{n}.pdf", f"page {n}")
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/add")
            page.fill("#folder-path", str(folder))
            page.click("#folder-form button[type=submit]")
            page.wait_for_selector("li.job[data-state=running] .item.state-ingested")
            job_id = page.locator("li.job").first.get_attribute("data-job-id")
            page.reload()
            again = page.locator(f"li.job[data-job-id='{job_id}']")
            again.wait_for()
            page.wait_for_selector(f"li.job[data-job-id='{job_id}'][data-state=done]")
            assert again.locator(".item.state-ingested").count() == 4
            assert "4 ingested" in again.inner_text()
            page.context.close()
    finally:
        library.close()


def test_delete_a_work_after_confirming(browser: Any, stocked: Any) -> None:
    page = new_page(browser, stocked.url)
    page.goto("/library?sort=title&order=asc")
    before = page.locator("tbody tr").count()
    row = page.locator("tr", has_text="Alpine glaciers")
    row.locator("button.delete-one").click()
    dialog = page.locator("#confirm-delete")
    assert dialog.is_visible() and "Alpine glaciers" in dialog.inner_text()
    shot(page, "library-confirm")
    page.click("#confirm-cancel")  # changing one's mind deletes nothing
    assert page.locator("tr", has_text="Alpine glaciers").count() == 1
    row.locator("button.delete-one").click()
    with page.expect_navigation():
        page.click("#confirm-ok")
    assert page.locator("tbody tr").count() == before - 1
    assert page.locator("tr", has_text="Alpine glaciers").count() == 0
    assert stocked.library.status()["works"] == before - 1
    # select two and export them
    page.locator("input.pick").nth(0).check()
    page.locator("input.pick").nth(1).check()
    assert page.locator("#selected-count").inner_text() == "2 selected"
    with page.expect_download() as download:
        page.click("button[value=bibtex]")
    assert Path(download.value.path()).read_text().count("@") == 2
    page.context.close()


def test_fetch_by_identifier_and_discover(browser: Any, data_dir: Path) -> None:
    stub = ProviderStub()
    library = make_library(data_dir, stub.env())
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/add")
            page.fill("#identifiers", "arXiv:2401.01234")
            page.click("#fetch-form button[type=submit]")
            page.wait_for_selector("li.job[data-state=done] .item.state-ingested")
            page.click("li.item.state-ingested a.item-open")
            page.wait_for_url("**/read?**")
            assert page.locator("h1").inner_text() == "Denoising diffusion for protein backbones"

            page.goto("/discover")
            page.fill("#discover-text", "generating protein backbones with diffusion models")
            page.click("#discover-form button[type=submit]")
            page.wait_for_selector(".candidate")
            held = page.locator(".candidate", has_text="Denoising diffusion for protein")
            assert "In your library" in held.inner_text()
            link = page.locator(".candidate a", has_text="https://pdfs.example.org/w13.pdf")
            assert link.count() == 1
            shot(page, "discover-results")
            fresh = page.locator(".candidate", has_text="Equivariant graph networks")
            fresh.locator("button.fetch-one").click()
            fresh.locator(".fetch-status a").wait_for()
            assert "Stored" in fresh.locator(".fetch-status").inner_text()
            assert library.get_work("arxiv:2305.00012").title.startswith("Equivariant")
            assert not any("w13.pdf" in path for path in stub.requests)  # shown, not fetched
            page.context.close()
    finally:
        library.close()
        stub.close()


def test_discover_without_a_key_says_how_to_set_one(browser: Any, stocked: Any) -> None:
    page = new_page(browser, stocked.url, "phone")
    page.goto("/discover")
    assert page.locator("#no-key").is_visible()
    assert "PRIORIS_MCP_OPENALEX_API_KEY" in page.locator("#no-key").inner_text()
    assert page.locator("#discover-form button[type=submit]").is_disabled()
    shot(page, "discover-no-key")
    page.context.close()


def test_status_plot_renders_and_reindex_runs(browser: Any, data_dir: Path) -> None:
    library = make_library(data_dir)
    library.import_records(
        [
            {"_id": f"a{i}", "title": f"A{i}", "text": "x", "year": 2010 + i % 9, "source": "arxiv"}
            for i in range(30)
        ]
        + [{"_id": f"b{i}", "title": f"B{i}", "text": "y", "year": 2014 + i % 5} for i in range(12)]
    )
    library.close()
    library = make_library(data_dir, embedder=FakeEmbedder(model_id="fake/renamed"))
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/status")
            plot = page.locator("#year-plot svg.plot-columns")
            box = plot.bounding_box()
            assert box["width"] > 500 and box["height"] > 150
            assert page.locator("#year-plot svg.plot-columns rect").count() >= 9
            assert page.locator("#source-plot svg text", has_text="arXiv").count() == 1
            assert page.locator(".legend li").count() == 2
            assert page.locator("#stale").inner_text() == "42"
            shot(page, "status-reindex")
            phone = new_page(browser, app.url, "phone")
            phone.goto("/status")
            assert phone.locator("#year-plot svg.plot-columns").is_hidden()
            rows = phone.locator("#year-plot svg.plot-rows")
            assert rows.is_visible() and rows.bounding_box()["width"] > 300
            assert fits(phone)
            shot(phone, "status-reindex")
            phone.context.close()
            page.click("#reindex")
            until(page, "document.getElementById('stale')?.textContent === '0'")
            assert "42 chunk(s) re-embedded" in page.locator("#reindex-progress").inner_text()
            page.click("#compact")  # nothing stored unpacked: it runs and says so
            page.locator("#compact-progress", has_text="0 passage(s)").wait_for()
            assert "the library takes" in page.locator("#compact-progress").inner_text()
            page.context.close()
    finally:
        library.close()


def test_every_page_at_both_widths(browser: Any, stocked: Any) -> None:
    """Each page fits the window at 1280 and 390 px, its controls are labelled; screenshots."""
    hit = stocked.library.search("protein folding", mode="fts").hits[0]
    paths = {
        "search": "/?q=protein+folding",
        "read": f"/read?id={hit.id}&chunk={hit.chunk_id}",
        "read-scan": "/read?id=" + stocked.library.browse(text="old-scan")["works"][0]["id"],
        "library": "/library",
        "add": "/add",
        "discover": "/discover",
        "status": "/status",
    }
    for width in WIDTHS:
        page = new_page(browser, stocked.url, width)
        for name, path in paths.items():
            page.goto(path)
            page.wait_for_load_state("load")
            assert fits(page), f"{name} scrolls sideways at {width}"
            assert page.evaluate(UNLABELLED) == [], f"{name} has unlabelled controls"
            if name == "status":  # values wrap by words, never one character a line
                narrow = page.evaluate(
                    "() => Math.min(...Array.from(document.querySelectorAll('.counts dd'))"
                    ".map(d => d.getBoundingClientRect().width))"
                )
                assert narrow >= 250, f"status values squeezed to {narrow} px at {width}"
            shot(page, name)
        page.context.close()


@pytest.mark.slow
def test_real_model_upload_and_meaning_search(browser: Any, data_dir: Path, tmp_path: Path):
    """The whole path with the packaged embedding model: upload, then a vector search."""
    from prioris.config import load_settings
    from prioris.library import Library

    from conftest import FakeOcr

    library = Library.open(load_settings(), ocr=FakeOcr())
    (tmp_path / "ice.pdf").write_bytes(text_pdf_bytes("Alpine glaciers", [GLACIERS]))
    (tmp_path / "fold.pdf").write_bytes(
        text_pdf_bytes("Attention for protein structure", [FOLDING])
    )
    try:
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/add")
            page.set_input_files(
                "#pdf-input", [str(tmp_path / "ice.pdf"), str(tmp_path / "fold.pdf")]
            )
            until(page, "document.querySelectorAll('.item.state-ingested').length === 2", 120)
            page.goto("/?q=how+ice+shapes+mountain+landscapes&mode=vector")
            assert page.locator("#hits a[data-hit]").first.inner_text() == "Alpine glaciers"
            page.goto("/?q=predicting+the+3D+shape+of+proteins&mode=hybrid")
            first = page.locator("#hits a[data-hit]").first.inner_text()
            assert first == "Attention for protein structure"
            page.context.close()
    finally:
        library.close()
