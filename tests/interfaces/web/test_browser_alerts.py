"""The Alerts page in Chromium: move with j/k, dismiss with d (gone, and still gone after a
reload and a new run), accept with a (the fetch job runs against the loopback arXiv and the
paper is stored), Run with its button; no script error, no CSP violation, every control
labelled, at desktop and phone widths. An alert is made with the "New alert" form (a bad
name's error shown beside it first), appears on the page, and goes with its Remove button
after the confirm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from alerts.alert_fixtures import stock
from interfaces.web.test_browser import UNLABELLED, fits, new_page, shot, until
from interfaces.web.test_browser_accounts import _person
from interfaces.web.web_helpers import LiveApp, ProviderStub, live_app, make_library

pytestmark = pytest.mark.browser

SELECTED = "document.activeElement && document.activeElement.dataset.candidate"
COUNT = "document.querySelectorAll('li.candidate').length"


def test_triage_with_one_key_each(browser: Any, data_dir: Path, tmp_path: Path) -> None:
    stub = ProviderStub()
    library = make_library(data_dir, stub.env(api_key=False))
    try:
        stock(library, tmp_path)
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/alerts")
            assert page.evaluate(COUNT) == 3
            page.keyboard.press("j")
            assert page.evaluate(SELECTED) == "arxiv:2401.01234"
            page.keyboard.press("j")
            page.keyboard.press("j")
            page.keyboard.press("j")  # stays on the last
            assert page.evaluate(SELECTED) == "doi:10.5555/moraine"
            page.keyboard.press("k")
            page.keyboard.press("j")
            shot(page, "alerts")
            page.keyboard.press("d")
            until(page, f"{COUNT} === 2")
            assert page.evaluate(SELECTED) == "arxiv:2305.00012"  # the next one is selected
            page.reload()
            assert page.evaluate(COUNT) == 2 and "Moraine sediments" not in page.content()
            assert library.alerts_show("folding")["dismissed"] == ["doi:10.5555/moraine"]

            page.keyboard.press("j")
            page.keyboard.press("a")  # accept the first: the fetch job
            first = "li.candidate[data-candidate='arxiv:2401.01234']"
            until(
                page,
                f"document.querySelector(\"{first} .fetch-status\").textContent.includes('Stored')",
            )
            assert page.locator(f"{first}.in-library").count() == 1
            assert any(p.startswith("/arxiv/pdf/2401.01234") for p in stub.requests)
            stored = page.locator(f"{first} .fetch-status a").get_attribute("href")
            assert stored is not None and stored.startswith("/read?id=")

            page.click("section.alert button.run-alert")  # Run: a job, then the page reloads
            until(
                page,
                "document.querySelector('.run-status') && "
                "document.querySelector('.run-status').textContent === ''"
                " && document.readyState === 'complete'",
            )
            until(page, f"{COUNT} === 2")
            assert "Moraine sediments" not in page.content()
            assert page.locator(f"{first}.in-library").count() == 1  # accepted, in the library
            assert library.alerts_show("folding")["accepted"] == ["arxiv:2401.01234"]
            assert page.errors == [], page.errors
            assert page.evaluate(UNLABELLED) == []
            phone = new_page(browser, app.url, "phone")
            phone.goto("/alerts")
            wide = phone.evaluate(
                "() => Array.from(document.querySelectorAll('body *')).filter(e => "
                "e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
                ".map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 40))"
            )
            assert fits(phone), wide
            shot(phone, "alerts")
    finally:
        library.close()
        stub.close()


def test_make_and_remove_an_alert_in_the_browser(
    browser: Any, data_dir: Path, tmp_path: Path
) -> None:
    library = make_library(data_dir, {})
    try:
        stock(library, tmp_path, run=False)
        pool = tmp_path / "candidates.jsonl"
        with live_app(library) as app:
            page = new_page(browser, app.url)
            page.goto("/alerts")
            form = "#alert-form"
            page.click("details.new-alert summary")  # closed while there are alerts
            assert page.locator(f"{form} select[name=collection] option").all_inner_texts() == [
                "(none: a search)",
                "Folding",
            ]
            page.fill(f"{form} input[name=name]", "bad name")
            page.select_option(f"{form} select[name=collection]", "Folding")
            page.fill(f"{form} input[name=sources]", f"jsonl:{pool}")
            page.click(f"{form} button[type=submit]")
            until(page, "!document.getElementById('alert-form-error').hidden")
            shown = page.inner_text("#alert-form-error")
            assert shown.startswith("invalid_request: alert name 'bad name'"), shown
            assert [a["name"] for a in library.alerts_list()] == ["folding"]
            # the browser logs the refused request itself; nothing else went wrong
            assert [e for e in page.errors if "status of 400" not in e] == [], page.errors
            page.errors.clear()
            page.fill(f"{form} input[name=name]", "folding-2")
            page.click(f"{form} button[type=submit]")  # made: the page reloads with it
            until(page, "document.querySelector('section.alert[data-alert=\"folding-2\"]')")
            made = library.alerts_show("folding-2")
            assert (made["collection"], made["sources"]) == ("Folding", f"jsonl:{pool}")
            assert "the collection Folding" in page.inner_text("section[data-alert='folding-2']")
            assert page.evaluate(UNLABELLED) == []
            shot(page, "alerts-new")

            page.once("dialog", lambda dialog: dialog.dismiss())  # cancelled: it stays
            page.click("section[data-alert='folding-2'] button.remove-alert")
            assert page.locator("section[data-alert='folding-2']").count() == 1
            page.once("dialog", lambda dialog: dialog.accept())
            page.click("section[data-alert='folding-2'] button.remove-alert")
            until(page, "!document.querySelector('section.alert[data-alert=\"folding-2\"]')")
            assert [a["name"] for a in library.alerts_list()] == ["folding"]
            page.reload()
            assert page.locator("section.alert").count() == 1
            assert page.errors == [], page.errors
            phone = new_page(browser, app.url, "phone")
            phone.goto("/alerts")
            phone.click("details.new-alert summary")
            assert fits(phone)
            shot(phone, "alerts-new")
    finally:
        library.close()


def test_feed_tokens_made_and_revoked_in_the_browser(
    browser: Any, data_dir: Path, tmp_path: Path
) -> None:
    """Accounts mode: ana makes a feed token on her page, the feed address shown with it
    reads her alert's feed without a session, and revoking it answers 401."""
    library = make_library(data_dir, {"PRIORIS_MCP_ALLOWED_IMPORT_DIRS": str(tmp_path)})
    login = library.add_account("ana", "writer")
    stock(library, tmp_path, account="ana")
    live = LiveApp(library, accounts=True)
    url = live.url
    try:
        page = _person(browser, url, login)
        page.click("header a[href='/account']")
        page.fill("input[name=label]", "feed reader")
        page.click("#token-form button[type=submit]")
        until(page, "document.getElementById('new-token-value').textContent.length > 20")
        feed_url = page.inner_text("#new-token-feeds li[data-alert=folding] code")
        assert feed_url.startswith(f"{url}/alerts/folding.atom?token=feed_")
        read = httpx.get(feed_url)  # a feed reader: no cookie, the token only
        assert read.status_code == 200 and b"Denoising diffusion" in read.content
        page.reload()
        assert page.locator("table.feed-tokens tbody tr").count() == 1
        assert "feed reader" in page.inner_text("table.feed-tokens")
        page.click("button.revoke-token")
        until(page, "document.querySelector('.token-state').textContent.startsWith('revoked')")
        assert httpx.get(feed_url).status_code == 401
        assert page.errors == [], page.errors
        assert page.evaluate(UNLABELLED) == []
        shot(page, "account")
    finally:
        live.close()
        library.close()
