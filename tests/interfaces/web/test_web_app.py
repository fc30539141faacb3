"""The web app through Starlette's test client: guards, pages, actions and jobs, over a real
Library (SQLite, ingest, search) with the fake embedder and OCR."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.web_helpers import ProviderStub, make_library, text_pdf_bytes
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.web import build_app
from prioris.interfaces.web.api_intake import sweep_uploads, upload_folder
from prioris.interfaces.web.app import bind
from prioris.library import Library

TOKEN = "test-token"
BASE = "http://127.0.0.1:8765"
POST_HEADERS = {"X-CSRF-Token": TOKEN, "Origin": BASE}

FOLDING = "Protein folding with attention networks predicts structures from sequences. " * 12
INTRO = "Background material on unrelated matters such as weather and markets. " * 40
GLACIERS = "Glacier moraine sediment records past climate in alpine valleys. " * 12


class Web:
    def __init__(self, library: Library) -> None:
        self.library = library
        self.app = build_app(library, csrf_token=TOKEN)
        self.client = TestClient(self.app, base_url=BASE)
        self.jobs = self.app.state.web.jobs

    def post(self, url: str, **kwargs: Any) -> Any:
        headers = {**POST_HEADERS, **kwargs.pop("headers", {})}
        return self.client.post(url, headers=headers, **kwargs)

    def wait(self, job_id: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            job = self.client.get(f"/api/jobs/{job_id}").json()["job"]
            if not job["active"]:
                return job
            assert time.monotonic() < deadline, job
            time.sleep(0.02)

    def upload(self, data: bytes, name: str) -> dict[str, Any]:
        response = self.post(f"/api/upload?name={name}", content=data)
        assert response.status_code == 202, response.text
        return self.wait(response.json()["job"]["id"])


@pytest.fixture
def web(data_dir: Path) -> Iterator[Web]:
    library = make_library(data_dir)
    web = Web(library)
    yield web
    web.jobs.close()
    library.close()


@pytest.fixture
def stocked(web: Web) -> Web:
    """Two PDFs: folding (two pages, the match on page 2) and glaciers."""
    web.library.ingest_pdf_bytes(
        text_pdf_bytes("Attention for protein structure", [INTRO, FOLDING]),
        filename="folding.pdf",
    )
    web.library.ingest_pdf_bytes(
        text_pdf_bytes("Alpine glaciers", [GLACIERS]), filename="glaciers.pdf"
    )
    return web


# -- guards ----------------------------------------------------------------------------------
def test_other_host_names_are_refused(web: Web) -> None:
    """DNS rebinding: a page on another name pointed at 127.0.0.1 gets nothing."""
    for base in ("http://evil.example", "http://127.0.0.1.evil.example:8765"):
        response = TestClient(web.app, base_url=base).get("/")
        assert response.status_code == 421
    assert TestClient(web.app, base_url="http://localhost:9").get("/").status_code == 200


def test_state_changes_need_the_token_and_the_same_origin(stocked: Web) -> None:
    work_id = stocked.library.list_works()[0]["id"]
    body = {"ids": [work_id]}
    assert stocked.client.post("/api/delete", json=body).status_code == 403
    wrong = stocked.client.post("/api/delete", json=body, headers={"X-CSRF-Token": "guess"})
    assert wrong.status_code == 403 and "CSRF" in wrong.json()["error"]["message"]
    cross = stocked.post("/api/delete", json=body, headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403
    site = stocked.post("/api/delete", json=body, headers={"Sec-Fetch-Site": "cross-site"})
    assert site.status_code == 403
    assert stocked.library.status()["works"] == 2  # nothing was deleted by the refusals
    ok = stocked.post("/api/delete", json=body)
    assert ok.status_code == 200 and ok.json() == {"deleted": [work_id]}
    assert stocked.library.status()["works"] == 1


def test_pages_carry_the_token_and_a_strict_policy(web: Web) -> None:
    response = web.client.get("/")
    assert f'<meta name="csrf-token" content="{TOKEN}">' in response.text
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in response.text  # no inline script: the policy would block it


def test_uploads_over_the_limit_are_refused_and_leave_nothing(data_dir: Path) -> None:
    library = make_library(data_dir, {"PRIORIS_MCP_MAX_FILE_BYTES": "1000"})
    web = Web(library)
    try:
        big = b"%PDF-1.7\n" + b"0" * 5000
        assert len(big) > 1000
        response = web.post("/api/upload?name=big.pdf", content=big)
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "file_too_large"
        assert not any(upload_folder(library.settings.db_path).iterdir())
        assert web.jobs.list() == []
    finally:
        web.jobs.close()
        library.close()


# -- search ----------------------------------------------------------------------------------
def test_search_fragment_marks_words_and_links_the_hit_page(stocked: Web) -> None:
    for mode in ("fts", "vector", "hybrid"):
        response = stocked.client.get("/api/search", params={"q": "protein folding", "mode": mode})
        assert response.status_code == 200
        assert "Attention for protein structure" in response.text
        assert "search;dur=" in response.headers["server-timing"]
    html = stocked.client.get("/api/search", params={"q": "protein folding", "mode": "fts"}).text
    assert "<mark>Protein</mark>" in html and "pp. 1–2" in html
    link = re.search(r'href="(/read\?[^"]+)"', html).group(1)
    assert "chunk=" in link  # the read page opens where most of the passage is


def test_search_page_holds_the_query_and_reports_bad_input(stocked: Web) -> None:
    page = stocked.client.get("/", params={"q": "glacier", "mode": "fts", "source": "file"})
    assert 'value="glacier"' in page.text and "Alpine glaciers" in page.text
    assert '<option value="file" selected>' in page.text
    bad = stocked.client.get("/api/search", params={"q": "x", "mode": "psychic"})
    assert "invalid_request" in bad.text and "mode must be one of" in bad.text
    years = stocked.client.get("/api/search", params={"q": "x", "from": "soon"})
    assert "from must be a whole number" in years.text
    # a search that finds nothing says so
    none = stocked.client.get("/api/search", params={"q": "zyxxyz", "mode": "fts"})
    assert "No works match" in none.text


def test_a_year_filter_says_what_it_left_out_and_can_keep_it(stocked: Web) -> None:
    # the generated PDFs print no year
    params = {"q": "glacier", "mode": "fts", "from": "2000"}
    left = stocked.client.get("/api/search", params=params).text
    assert "No works match" in left
    assert "1 work without a year left out by the year filter" in left
    kept = stocked.client.get("/api/search", params={**params, "undated": "1"}).text
    assert "Alpine glaciers" in kept and "without a year left out" not in kept
    page = stocked.client.get("/", params={**params, "undated": "1"}).text
    assert 'name="undated" value="1" checked' in page


# -- read ------------------------------------------------------------------------------------
def test_read_opens_at_the_hit_with_the_passage_marked(stocked: Web) -> None:
    hit = stocked.library.search("protein folding", mode="fts").hits[0]
    page = stocked.client.get("/read", params={"id": hit.id, "chunk": hit.chunk_id})
    assert page.status_code == 200
    assert "Page <input" in page.text or 'name="page"' in page.text
    assert 'value="2"' in page.text  # opened at the hit's page without being told
    marked = re.search(r'<mark id="passage"[^>]*>(.*?)</mark>', page.text, re.S)
    assert marked and "Protein folding with attention" in marked.group(1)
    image = re.search(r'src="(/api/page\.png\?[^"]+)"', page.text).group(1).replace("&amp;", "&")
    png = stocked.client.get(image)
    assert png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    assert png.headers["x-passage-marked"] == "1"
    # the BibTeX to copy is on the page
    assert "@" in page.text and "Attention for protein structure" in page.text
    # a page without the passage says where it is
    intro = next(
        h
        for h in stocked.library.search("weather markets", mode="fts", chunks=True, k=20).hits
        if h.page_end == 1
    )
    other = stocked.client.get("/read", params={"id": intro.id, "chunk": intro.chunk_id, "page": 2})
    assert 'id="passage"' not in other.text and "Your search hit is on p. 1" in other.text


def test_read_renders_the_markdown_instead_of_showing_its_markers(web: Web) -> None:
    work_id = "sections"
    web.library.import_records(
        [
            {
                "_id": work_id,
                "title": "Transactions",
                "text": "## 2. Transactions\n\nA *short* list:\n\n- atomic\n- durable\n\n"
                "| level | cost |\n|---|---|\n| serial | high |",
            }
        ]
    )
    page = web.client.get("/read", params={"id": work_id}).text
    text = page[page.index('id="page-text"') :]
    assert "<h4>2. Transactions</h4>" in text and "## 2." not in text
    assert "<em>short</em>" in text and "<li>atomic</li>" in text and "<td>serial</td>" in text


@pytest.mark.parametrize(
    "url",
    [
        "/library?p=99999999999999999999999",
        "/library?p=9223372036854775807",
        "/read?id={id}&chunk=99999999999999999999999",
        "/read?id={id}&page=99999999999999999999999",
        "/api/page.png?id={id}&page=1&chunk=99999999999999999999999",
        "/api/page.png?id={id}&page=99999999999999999999999",
        "/?q=x&k=99999999999999999999",
        "/read?id={id}&page=-3",
    ],
)
def test_huge_numbers_in_a_url_are_bad_requests_not_server_errors(stocked: Web, url: str) -> None:
    work_id = stocked.library.list_works()[0]["id"]
    response = stocked.client.get(url.format(id=work_id))
    assert response.status_code in (200, 400), response.status_code
    assert "Traceback" not in response.text and "OverflowError" not in response.text
    if response.status_code == 200:  # a page that explains, in its own words
        assert "invalid_request" in response.text or "There is no page" in response.text


def test_read_reports_unknown_works_and_pages_plainly(stocked: Web) -> None:
    missing = stocked.client.get("/read", params={"id": "doi:10.1/none"})
    assert missing.status_code == 404 and "not_found" in missing.text
    assert "Traceback" not in missing.text
    work_id = stocked.library.list_works()[0]["id"]
    far = stocked.client.get("/read", params={"id": work_id, "page": 99})
    assert far.status_code == 200 and "There is no page 99" in far.text
    image = stocked.client.get("/api/page.png", params={"id": work_id, "page": 99})
    assert image.status_code == 400 and image.json()["error"]["code"] == "invalid_request"


def test_stored_originals_download_and_never_render_here(stocked: Web) -> None:
    work_id = stocked.library.list_works()[0]["id"]
    _, docs = stocked.library.original(work_id)
    response = stocked.client.get("/document", params={"id": work_id, "sha": docs[0]["sha256"]})
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    assert response.headers["content-disposition"].startswith("attachment;")


# -- library ---------------------------------------------------------------------------------
def test_library_sorts_filters_and_exports_the_selection(stocked: Web) -> None:
    by_title = stocked.client.get("/library", params={"sort": "title", "order": "asc"}).text
    assert by_title.index("Alpine glaciers") < by_title.index("Attention for protein")
    descending = stocked.client.get("/library", params={"sort": "title", "order": "desc"}).text
    assert descending.index("Alpine glaciers") > descending.index("Attention for protein")
    filtered = stocked.client.get("/library", params={"q": "glacier"}).text
    assert "Alpine glaciers" in filtered and "Attention for protein" not in filtered
    assert "1 work(s) match" in filtered
    ids = [w["id"] for w in stocked.library.list_works()]
    bib = stocked.client.get("/export", params={"format": "bibtex", "id": ids[:1]})
    assert bib.status_code == 200 and bib.text.count("@") == 1
    assert "attachment" in bib.headers["content-disposition"]
    csl = stocked.client.get("/export", params=[("format", "csl-json"), *[("id", i) for i in ids]])
    assert len(json.loads(csl.text)) == 2
    none = stocked.client.get("/export", params={"format": "bibtex"})
    assert none.status_code == 400 and "select at least one" in none.text


def test_library_counts_pages_chunks_and_ocr(web: Web, tmp_path: Path) -> None:
    from pdf_factory import make_scanned_pdf

    scan = make_scanned_pdf(tmp_path / "scan.pdf", "Glacier moraine").read_bytes()
    web.library.ingest_pdf_bytes(scan, filename="scan.pdf")
    listing = web.library.browse()
    assert listing["total"] == 1
    row = listing["works"][0]
    assert (row["pages"], row["ocr_pages"]) == (1, 1) and row["chunks"] >= 1
    assert row["formats"] == ["pdf"]
    html = web.client.get("/library").text
    assert 'data-label="OCR\'d">1<' in html.replace("&#39;", "'")


# -- add: jobs -------------------------------------------------------------------------------
def test_upload_reports_ingested_duplicate_and_failure(web: Web, tmp_path: Path) -> None:
    from pdf_factory import make_scanned_pdf

    pdf = text_pdf_bytes("Alpine glaciers", [GLACIERS])
    first = web.upload(pdf, "glaciers.pdf")
    item = first["items"][0]
    assert first["state"] == "done" and item["state"] == "ingested" and item["work_id"]
    again = web.upload(pdf, "copy.pdf")["items"][0]
    assert again["state"] == "skipped" and "identical bytes" in again["message"]
    assert again["work_id"] == item["work_id"]
    broken_job = web.upload(b"this is not a pdf at all", "notes.pdf")
    broken = broken_job["items"][0]
    assert broken["state"] == "failed" and broken["error_code"] == "parse_error"
    assert broken_job["state"] == "failed"  # a job whose every file failed is no "Done"
    scan = web.upload(make_scanned_pdf(tmp_path / "s.pdf", "moraine").read_bytes(), "s.pdf")
    assert "1 OCR'd" in scan["items"][0]["message"]
    assert web.library.search("glacier moraine", mode="fts").hits
    assert not any(upload_folder(web.library.settings.db_path).iterdir())


def test_ingest_reports_its_stages(web: Web, tmp_path: Path) -> None:
    from pdf_factory import make_scanned_pdf

    stages: list[tuple[str, int, int]] = []
    scan = make_scanned_pdf(tmp_path / "s.pdf", "moraine").read_bytes()
    web.library.ingest_pdf_bytes(scan, filename="s.pdf", on_stage=lambda *a: stages.append(a))
    assert ("ocr", 0, 1) in stages and ("ocr", 1, 1) in stages
    assert ("parse", 1, 1) in stages
    embedded = [s for s in stages if s[0] == "embed"]  # the chunk and the work's own text
    assert embedded[0][1] == 0 and embedded[-1][1] == embedded[-1][2] >= 1
    assert stages[-1] == ("index", 1, 1)  # the commit is the last stage
    assert ("enrich", 0, 0) in stages  # the provider lookup (offline here) is a stage too


def test_folder_import_and_fetch_jobs(web: Web, tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.pdf").write_bytes(text_pdf_bytes("Folding", [FOLDING]))
    (folder / "sub" / "b.pdf").write_bytes(text_pdf_bytes("Glaciers", [GLACIERS]))
    (folder / "c.pdf").write_bytes(b"%PDF-1.7 truncated")
    started = web.post("/api/folder", json={"path": str(folder)})
    job = web.wait(started.json()["job"]["id"])
    states = sorted(i["state"] for i in job["items"])
    assert states == ["failed", "ingested", "ingested"] and job["message"].startswith("2 ingested")
    assert job["state"] == "partial"  # said as "Done, some failed", not a green "Done"
    missing = web.post("/api/folder", json={"path": str(tmp_path / "nowhere")})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"

    records = "\n".join(
        json.dumps({"_id": f"r{i}", "title": f"Record {i}", "text": "sediment cores " * 5})
        for i in range(3)
    )
    started = web.post("/api/import?name=r.jsonl", content=(records + "\nnot json\n").encode())
    job = web.wait(started.json()["job"]["id"])
    assert job["items"][0]["message"].startswith("3 imported, 0 skipped, 1 failed")
    assert web.library.get_work("r1").title == "Record 1"

    empty = web.post("/api/fetch", json={"identifiers": "  "})
    assert empty.status_code == 400

    # a PDF sent to the JSONL import: named as sent, with the web's way to add it
    started = web.post("/api/import?name=paper.pdf", content=text_pdf_bytes("X", [GLACIERS]))
    job = web.wait(started.json()["job"]["id"])
    assert job["state"] == "failed"
    assert "paper.pdf is a PDF, not a JSONL file of records" in job["message"]
    assert "Add PDFs" in job["message"] and "prioris ingest" not in job["message"]
    assert "/tmp" not in job["message"] and "uploads" not in job["message"]


def test_pages_answer_while_a_long_job_runs(data_dir: Path, tmp_path: Path) -> None:
    """Searches and pages are served while an ingest with slow OCR is under way."""
    from interfaces.mcp_helpers import FakeOcr as SlowOcr

    from pdf_factory import make_scanned_pdf

    library = make_library(data_dir, ocr=SlowOcr("slow scanned words", delay=1.0))
    library.import_records([{"_id": "a", "title": "Glaciers", "text": GLACIERS}])
    for n in range(3):
        make_scanned_pdf(tmp_path / "scans" / f"{n}.pdf", f"page {n}")
    web = Web(library)
    try:
        job_id = web.post("/api/folder", json={"path": str(tmp_path / "scans")}).json()["job"]["id"]
        deadline = time.monotonic() + 30
        while web.jobs.get(job_id)["state"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        found = web.client.get("/api/search", params={"q": "glacier moraine", "mode": "hybrid"})
        assert found.status_code == 200 and "Glaciers" in found.text
        for path in ("/", "/library", "/status", "/add"):
            assert web.client.get(path).status_code == 200
        assert web.jobs.get(job_id)["active"]  # all of that came back before the job ended
        assert web.wait(job_id)["message"] == "3 ingested, 0 skipped, 0 failed"
    finally:
        web.jobs.close()
        library.close()


def test_fetch_and_discover_against_loopback_providers(data_dir: Path) -> None:
    stub = ProviderStub()
    library = make_library(data_dir, stub.env())
    web = Web(library)
    try:
        started = web.post("/api/fetch", json={"identifiers": "2401.01234\nnot-an-id"})
        job = web.wait(started.json()["job"]["id"])
        ok, bad = job["items"]
        assert ok["state"] == "ingested" and ok["work_id"] == "arxiv:2401.01234v2"
        assert bad["state"] == "failed" and bad["error_code"] == "invalid_request"
        html = web.post("/api/discover", json={"text": "protein backbone diffusion"}).text
        assert "In your library" in html and "/read?id=arxiv%3A2401.01234v2" in html
        assert 'data-identifier="arxiv:2305.00012' in html  # fetchable from arXiv
        assert "https://pdfs.example.org/w13.pdf" in html and "never downloads" in html
        assert "upload the PDF yourself" in html
        assert not any("w13.pdf" in path for path in stub.requests)
        long = web.post("/api/discover", json={"text": "x" * 2001})
        assert long.status_code == 400 and "2000" in long.json()["error"]["message"]
    finally:
        web.jobs.close()
        library.close()
        stub.close()


def test_discover_without_a_key_explains_how_to_set_one(web: Web) -> None:
    page = web.client.get("/discover").text
    assert "PRIORIS_MCP_OPENALEX_API_KEY" in page and 'id="no-key"' in page
    response = web.post("/api/discover", json={"text": "protein folding"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "configuration_error"


# -- status ----------------------------------------------------------------------------------
def test_status_draws_works_per_year_and_by_source(web: Web) -> None:
    records = [
        {"_id": f"a{i}", "title": f"A {i}", "text": "t", "year": 2018 + i % 4, "source": "arxiv"}
        for i in range(8)
    ] + [{"_id": "b", "title": "B", "text": "t", "year": 2020}, {"_id": "c", "title": "C"}]
    records[-1]["text"] = "no year here"
    web.library.import_records(records)
    html = web.client.get("/status").text
    assert "Works per publication year, by source" in html and "Works by source" in html
    svg = re.search(r'<div class="chart" id="year-plot">(.*?)</div>', html, re.S).group(1)
    assert svg.count("<rect") >= 5 and "2020: 3 work(s) (arXiv 2, import 1)" in svg
    assert 'pattern id="year-p1"' in svg  # a second source differs by pattern, not colour only
    assert "1 work(s) have no year" in html
    assert 'class="plot plot-rows"' in svg  # the narrow-screen variant, one row per year
    assert "<code>fake/hash-64</code>" in html and "library.sqlite" in html


def test_reindex_job_refreshes_stale_chunks(data_dir: Path) -> None:
    library = make_library(data_dir)
    library.import_records([{"_id": "a", "title": "A", "text": "alpha"}])
    library.close()
    library = make_library(data_dir, embedder=FakeEmbedder(model_id="fake/other"))
    web = Web(library)
    try:
        assert library.status()["stale_chunks"] == 1
        page = web.client.get("/status").text
        assert "1 chunk(s) have no vector" in page
        assert "1 work(s) have no vector of their own" in page  # the old model's
        job = web.wait(web.post("/api/reindex").json()["job"]["id"])
        assert job["state"] == "done" and job["message"] == "1 chunk(s) re-embedded"
        assert library.status()["stale_chunks"] == 0 and library.status()["stale_works"] == 0
        page = web.client.get("/status").text
        assert "have no vector of their own" not in page and 'id="reindex" disabled' in page
    finally:
        web.jobs.close()
        library.close()


def test_unknown_paths_and_jobs_are_not_found(web: Web) -> None:
    assert web.client.get("/nowhere").status_code == 404
    missing = web.client.get("/api/jobs/upload-999")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_bound_socket_sends_small_responses_at_once() -> None:
    """Accepted connections get TCP_NODELAY only from a socket that says it is TCP; else
    every response body waited ~40 ms for a delayed ACK (found by bench/bench_web.py)."""
    import socket

    sock = bind(0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_bind_names_a_port_in_use(data_dir: Path) -> None:
    from prioris.errors import ConfigurationError

    sock = bind(0)
    try:
        with pytest.raises(ConfigurationError, match="--port"):
            bind(sock.getsockname()[1])
    finally:
        sock.close()


def test_year_axis_ticks_are_whole_and_distinct() -> None:
    from prioris.interfaces.web.charts import works_per_year_svg

    svg = str(works_per_year_svg([{"year": 2020, "source": "file", "count": 1}]))
    ticks = re.findall(r'text-anchor="end" font-size="12" fill="#222">(\d+)<', svg)
    assert ticks == ["0", "1"]
    many = [{"year": 1900 + i, "source": "file", "count": 1} for i in range(100)]
    svg = str(works_per_year_svg(many))
    assert "plus 40 work(s) before 1940" in svg and ">1999<" in svg


def test_uploads_wait_beside_the_library_and_old_leftovers_are_swept(tmp_path: Path) -> None:
    import os

    folder = upload_folder(tmp_path / "elsewhere" / "lib.sqlite")
    assert folder == tmp_path / "elsewhere" / "uploads" / "web"
    folder.mkdir(parents=True)
    old, fresh = folder / "old.pdf", folder / "fresh.pdf"
    old.write_bytes(b"x")
    fresh.write_bytes(b"y")
    os.utime(old, (time.time() - 7 * 3600, time.time() - 7 * 3600))
    assert sweep_uploads(folder) == [old]
    assert fresh.exists() and not old.exists()
    assert sweep_uploads(tmp_path / "missing") == []


def test_works_without_their_own_vector_can_be_reindexed_from_the_status_page(
    data_dir: Path,
) -> None:
    library = make_library(data_dir)
    library.import_records([{"_id": "a", "title": "A", "text": "alpha"}])
    with library.lock:  # as in a library made before works had their own vectors
        library.conn.execute("DELETE FROM work_vectors")
    web = Web(library)
    try:
        page = web.client.get("/status").text
        assert "1 work(s) have no vector of their own" in page
        assert 'id="reindex" disabled' not in page  # nothing else stale: still enabled
        job = web.wait(web.post("/api/reindex").json()["job"]["id"])
        assert job["state"] == "done" and library.status()["stale_works"] == 0
    finally:
        web.jobs.close()
        library.close()


def _chunked(data: bytes, size: int = 256) -> Iterator[bytes]:
    """The body as a stream of pieces: httpx then sends it chunked, with no Content-Length."""
    for start in range(0, len(data), size):
        yield data[start : start + size]


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/upload?name=big.pdf", b"%PDF-1.7\n" + b"0" * 5000),
        ("/api/import?name=big.jsonl", b'{"_id": "x", "title": "t"}\n' * 200),
    ],
)
def test_chunked_uploads_over_the_limit_are_refused_and_leave_nothing(
    data_dir: Path, url: str, body: bytes
) -> None:
    """No Content-Length to refuse early: the limit must hold on the bytes as they arrive."""
    library = make_library(data_dir, {"PRIORIS_MCP_MAX_FILE_BYTES": "1000"})
    web = Web(library)
    try:
        assert len(body) > 1000
        response = web.post(url, content=_chunked(body))
        assert "content-length" not in response.request.headers
        assert response.request.headers["transfer-encoding"] == "chunked"
        assert response.status_code == 413, response.text
        assert response.json()["error"]["code"] == "file_too_large"
        assert not any(upload_folder(library.settings.db_path).iterdir())  # no file kept
        assert web.jobs.list() == [] and library.status()["works"] == 0
        # under the limit, the same way of sending is taken
        small = b'{"_id": "small", "title": "Small record"}\n'
        accepted = web.post("/api/import?name=small.jsonl", content=_chunked(small, 8))
        assert accepted.status_code == 202, accepted.text
        assert web.wait(accepted.json()["job"]["id"])["state"] != "failed"
        assert library.get_work("small").title == "Small record"
    finally:
        web.jobs.close()
        library.close()


def test_compact_job_packs_an_older_library_from_the_status_page(data_dir: Path) -> None:
    library = make_library(data_dir)
    text = "coral reef bleaching " * 30
    library.import_records([{"_id": f"w{i}", "title": f"W {i}", "text": text} for i in range(5)])
    with library.lock:  # as an earlier release stored them: text as TEXT
        library.conn.execute("BEGIN IMMEDIATE")
        library.conn.execute("UPDATE chunks SET text = prioris_text(text)")
        library.conn.execute("COMMIT")
    web = Web(library)
    try:
        page = web.client.get("/status").text
        assert 'id="compact"' in page and 'id="compact" disabled' not in page
        job = web.wait(web.post("/api/compact").json()["job"]["id"])
        assert job["state"] == "done"
        assert job["message"].startswith("5 passage(s) and 0 work vector(s) packed; the library")
        kinds = {r[0] for r in library.conn.execute("SELECT typeof(text) FROM chunks")}
        assert kinds == {"blob"}
        assert [h.id for h in library.search("bleaching", mode="fts").hits]
    finally:
        web.jobs.close()
        library.close()
