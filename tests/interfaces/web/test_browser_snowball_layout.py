"""The Snowball page's layout in Chromium (issue 39): the seed labels of the citation view
are not clipped at its left edge at 1280 px, also for long titles in wide letters, and at
390 px every candidate can be reached: inside the screen's width, its buttons on top.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import snowball_helpers as h
from interfaces.web.test_browser import new_page, shot, until
from interfaces.web.web_helpers import live_app, make_library
from prioris.models import Reference
from prioris.storage import references as reference_store

pytestmark = pytest.mark.browser

FIELDS = ("ordinal", "raw", "authors", "title", "year", "venue", "doi", "arxiv", "url")
WIDE = "WWW MMM ÆØÅ: WIDE CAPITALS WHICH MAKE A LONG SEED LABEL"
CJK = "基于深度学习的长江流域鸬鹚迁徙模式研究二十年观测数据的综合分析"

# every text of the citation view: how far it starts left of the SVG's own left edge
LEFT_OVERFLOW = """() => {
  const svg = document.querySelector('svg.citation-graph');
  const left = svg.getBoundingClientRect().left;
  return [...svg.querySelectorAll('text')]
    .map(t => [t.textContent, left - t.getBoundingClientRect().left])
    .filter(([, over]) => over > 0.5);
}"""

# candidates or their buttons out of a 390 px screen, or covered by something else
UNREACHABLE = """() => {
  const out = [];
  for (const li of document.querySelectorAll('li.candidate')) {
    const box = li.getBoundingClientRect();
    const outside = (r) => r.left < -0.5 || r.right > window.innerWidth + 0.5;
    if (outside(box)) out.push(['item', box.left, box.right]);
    for (const b of li.querySelectorAll('button')) {
      b.scrollIntoView({block: 'center'});
      const r = b.getBoundingClientRect();
      if (outside(r)) out.push([b.className, r.left, r.right]);
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (hit !== b && !b.contains(hit)) out.push([b.className, 'covered']);
    }
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    out.push(['page wider than the screen', document.documentElement.scrollWidth]);
  return out;
}"""


def test_seed_labels_and_candidates_fit(browser: Any, data_dir: Path) -> None:
    library = h.build(make_library(data_dir))
    try:
        library.edit_work("s1", {"title": WIDE})
        library.edit_work("s2", {"title": CJK})
        # a reference read without a title: shown by its raw text, one long unbroken link
        raw = "Reef Data Portal, https://data.reefs.example.org/" + "archive/" * 12 + "x.csv"
        with library.lock:
            library.conn.execute("BEGIN IMMEDIATE")
            stored = reference_store.references_of(library.conn, "s1")
            refs = [Reference(**{k: r[k] for k in FIELDS}) for r in stored]
            refs.append(Reference(len(refs) + 1, raw, doi="10.5555/reefdata.2020"))
            reference_store.replace_references(library.conn, "s1", refs)
            library.conn.execute("COMMIT")
        with live_app(library) as app:
            page = new_page(browser, app.url)  # 1280 px
            page.goto("/snowball")
            page.click("#snowball-form button[type=submit]")
            until(page, "document.querySelectorAll('li.candidate').length === 4")
            assert page.evaluate(LEFT_OVERFLOW) == []
            shot(page, "snowball-wide-seeds")
            phone = new_page(browser, app.url, "phone")  # 390 px
            phone.goto("/snowball")
            phone.click("#snowball-form button[type=submit]")
            until(phone, "document.querySelectorAll('li.candidate').length === 4")
            assert phone.locator("li.candidate.raw-reference").count() == 1
            assert phone.evaluate(UNREACHABLE) == []
            shot(phone, "snowball-phone-candidates")
            assert page.errors == [] and phone.errors == []
    finally:
        library.close()
