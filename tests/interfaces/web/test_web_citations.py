"""The Read page's references and the local citation graph: the list (linked entries link
to the cited work's Read page), "Cites in your library", "Cited by in your library";
everything printed escaped. Real Library, fake embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.web_helpers import make_library
from prioris.interfaces.web import build_app
from test_reference_links import CITING, TARGETS

BASE = "http://127.0.0.1:8765"


@pytest.fixture
def site(data_dir: Path) -> Iterator[tuple[Any, TestClient]]:
    library = make_library(data_dir)
    hostile = dict(
        CITING, text=CITING["text"] + "\n[7] <script>alert(1)</script> Evil Person. 2020.\n"
    )
    library.import_records(TARGETS)
    library.import_records([hostile])
    app = build_app(library, csrf_token="t")
    yield library, TestClient(app, base_url=BASE)
    app.state.web.jobs.close()
    library.close()


def test_read_page_lists_references_and_the_works_it_cites(site: tuple[Any, TestClient]) -> None:
    _, client = site
    page = client.get("/read", params={"id": "doi:10.9/citing"}).text
    assert "References (7)" in page
    assert "Cites in your library (3)" in page and "Cited by in your library" not in page
    assert 'href="/read?id=doi%3A10.1%2Freef"' in page  # the linked entry and the list
    assert page.count(">in your library</span>") == 3
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)" in page


def test_read_page_of_a_cited_work_lists_who_cites_it(site: tuple[Any, TestClient]) -> None:
    _, client = site
    page = client.get("/read", params={"id": "doi:10.1/reef"}).text
    assert "Cited by in your library (1)" in page
    assert 'href="/read?id=doi%3A10.9%2Fciting"' in page and "A survey that cites" in page
    assert "References (" not in page  # it has none of its own
    near_miss = client.get("/read", params={"id": "doi:10.1/reef2"}).text
    assert "Cited by in your library" not in near_miss
