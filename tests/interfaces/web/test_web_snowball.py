"""The Snowball page through Starlette's test client: the form, candidates with why in
words and the citation view (SVG, escaped, links), dismissing, accept's fetch route, and
the online path through a fake OpenAlex graph."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import snowball_helpers as h
from interfaces.web.web_helpers import make_library
from prioris.interfaces.web import build_app
from prioris.storage import labels as label_store

TOKEN = "test-token"
BASE = "http://127.0.0.1:8765"
POST = {"X-CSRF-Token": TOKEN, "Origin": BASE}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def web(data_dir: Path) -> Iterator[Any]:
    library = h.build(make_library(data_dir))
    with library.lock:  # a seed title that must be escaped in HTML and SVG
        library.conn.execute("BEGIN IMMEDIATE")
        library.conn.execute(
            "UPDATE works SET title = ? WHERE id = 's2'", ('Symbiont <loss> & "heat"',)
        )
        label_store.set_labels(library.conn, "s1", "zotero", collections=["Reefs"], tags=[])
        library.conn.execute("COMMIT")
    app = build_app(library, csrf_token=TOKEN)
    client = TestClient(app, base_url=BASE)
    yield library, client
    app.state.web.jobs.close()
    library.close()


def svg_of(html: str) -> Any:
    match = re.search(r"<svg class=\"citation-graph\".*?</svg>", html, re.S)
    assert match, html
    return ET.fromstring(match.group(0))


def test_page_lists_the_seed_choices(web: Any) -> None:
    _, client = web
    page = client.get("/snowball")
    assert page.status_code == 200
    assert 'href="/snowball" aria-current="page"' in page.text
    assert '<option value="Reefs">Reefs (1)</option>' in page.text
    assert "/static/snowball.js" in page.text and "<style" not in page.text
    ticked = client.get("/snowball?ids=s1&ids=s2").text
    assert 'value="ids" checked' in ticked and 'name="ids" value="s2"' in ticked
    # the Library page's "Snowball from these" submits its ticked boxes (name "id") here
    library_page = client.get("/library").text
    assert 'formaction="/snowball"' in library_page
    from_library = client.get("/snowball?id=s1&id=s2&style=apa").text
    assert "The 2 work(s) ticked on the Library page" in from_library


def test_snowball_fragment_with_why_routes_and_svg(web: Any) -> None:
    _, client = web
    response = client.post("/api/snowball", json={"seeds": "all"}, headers=POST)
    assert response.status_code == 200, response.text
    html = response.text
    assert "3 of 3 candidate(s) from 3 seed(s)" in html and "local citation graph only" in html
    assert "Why: cited by 2 of your 3 seed(s)" in html
    assert "Symbiont &lt;loss&gt; &amp; &#34;heat&#34;" in html or "Symbiont &lt;loss&gt;" in html
    assert 'data-identifier="arxiv:2101.00001"' in html  # accept: the fetch job's identifier
    assert 'data-key="doi:10.1038/nature21707"' in html
    svg = svg_of(html)
    links = [a.get("href") for a in svg.iter(f"{SVG}a")]
    assert "/read?id=s1" in links and "/read?id=s2" in links
    assert "https://doi.org/10.1038/nature21707" in links
    assert "https://arxiv.org/abs/2101.00001" in links
    texts = " ".join(t.text or "" for t in svg.iter(f"{SVG}text"))
    assert "Symbiont <loss>" in texts  # escaped in the markup, read back as text
    assert len(list(svg.iter(f"{SVG}path"))) >= 4  # arrows: the marker's and the edges
    assert "<script" not in html and "style=" not in html


def test_snowball_by_collection_and_ids_and_bad_input(web: Any) -> None:
    _, client = web
    by_collection = client.post(
        "/api/snowball", json={"seeds": "collection", "collection": "Reefs"}, headers=POST
    )
    assert "from 1 seed(s)" in by_collection.text
    by_ids = client.post("/api/snowball", json={"seeds": "ids", "ids": ["s2"]}, headers=POST)
    assert "2 of 2 candidate(s) from 1 seed(s)" in by_ids.text
    for body, code in (
        ({"seeds": "ids", "ids": []}, 400),
        ({"seeds": "collection"}, 400),
        ({"seeds": "collection", "collection": "Nowhere"}, 404),
        ({"seeds": "everything"}, 400),
        ({"seeds": "all", "direction": "up"}, 400),
        ({"seeds": "all", "limit": "many"}, 400),
        ({"seeds": "ids", "ids": "s1 s2", "limit": 0}, 400),
    ):
        response = client.post("/api/snowball", json=body, headers=POST)
        assert response.status_code == code, (body, response.text)
        assert "error" in response.json()
    # CSRF: no token, no snowball
    assert client.post("/api/snowball", json={"seeds": "all"}).status_code == 403


def test_dismiss_is_remembered(web: Any) -> None:
    _, client = web
    response = client.post(
        "/api/snowball/dismiss",
        json={"key": "doi:10.1038/nature21707", "title": "Global warming"},
        headers=POST,
    )
    assert response.json() == {"dismissed": "doi:10.1038/nature21707"}
    html = client.post("/api/snowball", json={"seeds": "all"}, headers=POST).text
    assert "doi:10.1038/nature21707" not in html
    bad = client.post("/api/snowball/dismiss", json={"key": "nonsense"}, headers=POST)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_request"
    bad = client.post("/api/snowball/dismiss", json={"key": ["x"]}, headers=POST)
    assert bad.status_code == 400


def test_online_through_a_fake_graph(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    library, client = web
    graph = h.FakeGraph(h.graph_records(), budget=10)
    import dataclasses

    monkeypatch.setattr(  # the snowball's runs read the key (services/snowball_runs.py)
        library.snowball_runs,
        "settings",
        dataclasses.replace(library.settings, openalex_api_key="key"),
    )
    library.openalex_access.openalex_graph = lambda: graph  # type: ignore[method-assign]
    html = client.post("/api/snowball", json={"seeds": "ids", "ids": ["s1"]}, headers=POST).text
    assert "3 OpenAlex request(s), 7 left today" in html
    assert "https://example.org/w20.pdf" in html  # an OA link shown, never fetched
    assert "cites 1 of your 1 seed(s)" in html
