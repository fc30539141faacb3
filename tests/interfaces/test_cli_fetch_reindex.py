"""``prioris fetch``, ``reindex``, ``demo`` and the global ``--db`` / ``--data-dir`` options.

The real CLI (``main``) with the real default embedder; arXiv is a loopback HTTP server
serving an Atom entry and a PDF made here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main
from prioris.library import Library

from conftest import FakeOcr
from pdf_factory import make_text_pdf
from route_server import RouteServer

pytestmark = pytest.mark.slow  # the real embedding model

FEED = (
    b'<feed xmlns="http://www.w3.org/2005/Atom" '
    b'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
    b"<opensearch:totalResults>1</opensearch:totalResults>"
    b"<entry><id>http://arxiv.org/abs/2402.05555v2</id><title>Glacier surges</title>"
    b"<published>2024-02-09T00:00:00Z</published><summary>Why glaciers surge.</summary>"
    b"<author><name>Ida Berg</name></author></entry></feed>"
)


@pytest.fixture
def arxiv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RouteServer]:
    body = "Surge-type glaciers advance suddenly after decades of quiescence. " * 30
    pdf = make_text_pdf(tmp_path / "surge.pdf", "Glacier surges", [body, body]).read_bytes()
    routes = {
        "/api/query": ("application/atom+xml", FEED),
        "/pdf/2402.05555v2": ("application/pdf", pdf),
    }
    server = RouteServer(routes).start()  # a loopback arXiv: its API and one PDF
    monkeypatch.setenv("PRIORIS_MCP_ARXIV_API_URL", f"{server.base}/api/query")
    monkeypatch.setenv("PRIORIS_MCP_ARXIV_SITE_URL", server.base)
    monkeypatch.setenv("PRIORIS_MCP_OCR", "never")
    yield server
    server.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_fetch_into_the_folder_given_by_data_dir(
    arxiv: RouteServer, tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "elsewhere"
    code, out, _ = run(capsys, "--data-dir", str(folder), "fetch", "arXiv:2402.05555", "--json")
    assert code == 0
    summary = json.loads(out)
    assert [r["id"] for r in summary["fetched"]] == ["arxiv:2402.05555v2"]
    assert summary["fetched"][0]["pages"] == 2 and summary["fetched"][0]["chunks"] >= 1
    assert summary["skipped"] == [] and summary["failed"] == []
    assert (folder / "library.sqlite").exists() and not (data_dir / "library.sqlite").exists()
    assert any(p.startswith("/pdf/2402.05555v2") for p in arxiv.paths)

    # text output: the stored work is skipped without a request; a bad id fails alone
    asked = len(arxiv.paths)
    code, out, _ = run(capsys, "--data-dir", str(folder), "fetch", "2402.05555v2", "not an id")
    assert code == 1
    assert "skipped  2402.05555v2  (already in the library: arxiv:2402.05555v2)" in out
    assert "failed   not an id  error [invalid_request]:" in out
    assert len(arxiv.paths) == asked

    code, out, _ = run(capsys, "--data-dir", str(folder), "search", "surge glaciers", "--json")
    assert code == 0 and json.loads(out)["hits"][0]["id"] == "arxiv:2402.05555v2"


def test_db_option_names_the_file_and_wins_over_data_dir(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "custom" / "mine.sqlite"
    records = tmp_path / "records.jsonl"
    records.write_text('{"_id": "r1", "title": "Fjords", "text": "fjord sediment cores"}\n')
    assert run(capsys, "--db", str(db), "import", str(records), "--json")[0] == 0
    code, out, _ = run(capsys, "--db", str(db), "status", "--json")
    status = json.loads(out)
    assert code == 0 and status["db"] == str(db) and status["works"] == 1
    assert not (data_dir / "library.sqlite").exists()
    # both options: the file is --db, the folder (model cache, uploads) is --data-dir
    other = tmp_path / "folder"
    code, out, _ = run(capsys, "--data-dir", str(other), "--db", str(db), "list", "--json")
    assert code == 0 and [w["id"] for w in json.loads(out)["works"]] == ["r1"]
    assert not (other / "library.sqlite").exists()
    code, _, err = run(capsys, "--data-dir", str(other), "status", "--json")  # a typo'd folder
    assert code == 2 and f"there is no library at {other / 'library.sqlite'}" in err
    assert not other.exists()  # said, and nothing left behind


def test_reindex_after_a_model_change(
    settings, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    old = Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr())
    old.import_records(
        [
            {"_id": f"d{i}", "title": f"Doc {i}", "text": f"moraine ridge number {i}"}
            for i in range(7)
        ]
    )
    old.close()

    code, out, err = run(capsys, "status", "--json")
    assert code == 0 and json.loads(out)["stale_chunks"] == 7
    assert "7 chunks are stale until `prioris reindex`" in err
    code, out, _ = run(capsys, "reindex", "--json")
    report = json.loads(out)
    assert code == 0 and report["reindexed"] == 7 and report["work_vectors"] == 7
    assert report["model"] == json.loads(run(capsys, "status", "--json")[1])["model"]
    code, out, _ = run(capsys, "status", "--json")
    assert json.loads(out)["stale_chunks"] == 0
    code, out, _ = run(capsys, "reindex")
    assert code == 0 and out.startswith("re-embedded 0 chunks and 0 work vectors with ")
    code, out, _ = run(capsys, "search", "moraine ridge number 3", "--mode", "vector", "--json")
    assert json.loads(out)["hits"][0]["id"] == "d3"
    assert load_settings().db_path == data_dir / "library.sqlite"


def test_demo_runs_the_main_job_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keep = tmp_path / "demo"
    code, out, _ = run(capsys, "demo", "--keep", str(keep))
    assert code == 0
    assert f"Demo library: {keep / 'library.sqlite'}" in out
    assert "Wrote 3 PDFs" in out  # one of them image-only
    assert out.count("  ingested ") == 3
    assert "1 by OCR" in out  # the scanned paper went through tesseract
    for mode in ("fts", "vector", "hybrid"):
        assert f"--mode {mode}" in out
    results = out.split("$ prioris search")[1:]
    assert "CRISPR" in results[0] and "Coral bleaching" in results[1]
    assert "Sparse attention" in results[2]
    assert "3 works," in out and "1 OCR page," in out  # plural(): "1 OCR page", not "page(s)"
    assert (keep / "library.sqlite").exists()
