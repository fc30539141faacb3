"""Collection and tag facets on the Library and Search pages (TestClient): counts, links
that keep the other parameters, filtering, escaping and bounds."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from interfaces.web.web_helpers import make_library
from prioris.interfaces.web import build_app
from prioris.library import Library
from prioris.storage import labels as label_store

BASE = "http://127.0.0.1:8765"


@pytest.fixture
def site(data_dir: Path) -> Iterator[tuple[Library, TestClient]]:
    library = make_library(data_dir)
    library.import_records(
        [
            {"_id": w, "title": f"Lichen study {w}", "text": f"Lichens on bark {w}.", "year": y}
            for w, y in (("a", 2020), ("b", 2021), ("c", 2022))
        ]
    )
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        for work_id, collections, tags in (
            ("a", ["Field work / Lichens"], ["bark", "<b>bold</b>"]),
            ("b", ["Field work"], ["Bark", "urban"]),
            ("c", ["Desk"], ["urban"]),
        ):
            label_store.set_labels(
                library.conn, work_id, "zotero", collections=collections, tags=tags
            )
        library.conn.execute("COMMIT")
    app = build_app(library, csrf_token="t")
    client = TestClient(app, base_url=BASE)
    yield library, client
    app.state.web.jobs.close()
    library.close()


def titles(page: str) -> set[str]:
    return set(re.findall(r"Lichen study (\w)", page))


def hrefs(page: str, text: str) -> list[str]:
    """The (unescaped) targets of the links whose text starts with ``text``."""
    found = re.findall(r'<a class="chip[^"]*" href="([^"]+)"[^>]*>\s*' + re.escape(text), page)
    return [html.unescape(h) for h in found]


def test_library_facets_filter_and_keep_the_other_parameters(site) -> None:  # type: ignore[no-untyped-def]
    _, client = site
    page = client.get("/library").text
    assert "Collection" in page and '<option value="Field work / Lichens"' in page
    assert "Field work (2)" in page and "— Lichens (1)" in page  # a tree with counts
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page  # escaped
    chip = hrefs(page, "Bark")[0]  # bark and Bark are one tag, shown as its first spelling
    assert chip.startswith("/library?") and "tag=Bark" in chip and "sort=added" in chip
    assert 'Bark <span class="count">2</span>' in page

    by_collection = client.get("/library", params={"collection": "Field work"}).text
    assert titles(by_collection) == {"a", "b"} and "2 work(s) match" in by_collection
    assert '<option value="Field work" title="Field work" selected>' in by_collection
    by_tags = client.get("/library", params=[("tag", "BARK"), ("tag", "urban")]).text
    assert titles(by_tags) == {"b"}
    assert '<input type="hidden" name="tag" value="BARK">' in by_tags  # kept by the form
    removing = hrefs(by_tags, "urban")[0]  # the active chip drops only itself
    assert "tag=BARK" in removing and "tag=urban" not in removing
    both = client.get(
        "/library", params=[("collection", "Lichens"), ("tag", "bark"), ("q", "study")]
    ).text
    assert titles(both) == {"a"}
    assert "No work matches this filter" in client.get("/library", params={"tag": "none"}).text
    link = re.search(r'<a href="(/export\?[^"]+)">Export these 2 work', by_collection)
    assert link is not None
    bib = client.get(html.unescape(link.group(1)))
    assert bib.status_code == 200 and bib.text.count("@") == 2 and "study c" not in bib.text


def test_search_facets_filter_hits(site) -> None:  # type: ignore[no-untyped-def]
    _, client = site
    page = client.get("/", params={"q": "lichens", "mode": "fts"}).text
    assert titles(page) == {"a", "b", "c"}
    chip = hrefs(page, "urban")[0]
    assert chip.startswith("/?") and "q=lichens" in chip and "mode=fts" in chip
    filtered = client.get(chip).text
    assert titles(filtered) == {"b", "c"}
    in_collection = client.get(
        "/", params={"q": "lichens", "mode": "fts", "collection": "Field work"}
    ).text
    assert titles(in_collection) == {"a", "b"}
    fragment = client.get(
        "/api/search", params=[("q", "lichens"), ("mode", "fts"), ("tag", "urban"), ("tag", "bark")]
    ).text
    assert titles(fragment) == {"b"}


def test_read_page_links_a_work_s_collections_and_tags(site) -> None:  # type: ignore[no-untyped-def]
    _, client = site
    page = client.get("/read", params={"id": "a"}).text
    assert hrefs(page, "Field work / Lichens") == ["/library?collection=Field+work+%2F+Lichens"]
    assert hrefs(page, "#bark") == ["/library?tag=bark"]
    assert "#&lt;b&gt;bold&lt;/b&gt;" in page


def test_label_parameters_are_bounded(site) -> None:  # type: ignore[no-untyped-def]
    _, client = site
    many = client.get("/library", params=[("tag", f"t{i}") for i in range(21)])
    assert many.status_code == 400 and "at most 20 tags" in many.text
    long = client.get("/", params={"q": "lichens", "collection": "x" * 301})
    assert "at most 300 characters" in long.text
