"""Enrichment against providers that fail: 5xx answers and 429 rate limits.

The offline case (no connection) is tests/test_enrichment.py's; here the providers answer,
badly. Whatever they answer, ``enrich`` reports the work ``unavailable`` (the message naming
the server error or the rate limit), ``prioris enrich`` exits 1, nothing stored changes,
and the 429 backoff never sleeps past the budget. The clock is a fake (no real sleeping);
the CLI goes through a real loopback server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

import paper_factory as papers
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
from prioris.sources import http as provider_http

from backend_sql import chunk_text
from conftest import FAKE_PROVIDER_ENV, FakeOcr

DOI = "10.5555/reef.2019.7"


class FakeClock:
    """Time that passes only when slept: every backoff is recorded, none is waited."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Every provider's clock (the real one is built per provider) is this fake."""
    fake = FakeClock()
    monkeypatch.setattr(provider_http.SystemClock, "monotonic", lambda self: fake.monotonic())
    monkeypatch.setattr(provider_http.SystemClock, "sleep", lambda self, s: fake.sleep(s))
    return fake


@pytest.fixture
def provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAKE_PROVIDER_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PRIORIS_MCP_ENRICH", "off")  # stored without asking; enrich asks


def _stored(tmp_path: Path, transport: httpx.BaseTransport | None = None) -> tuple[Library, str]:
    """A library holding one PDF with a DOI (what enrich looks up), enriched by nobody."""
    library = Library.open(
        load_settings(), embedder=FakeEmbedder(), ocr=FakeOcr(), http_transport=transport
    )
    pdf = tmp_path / "reef.pdf"
    pdf.write_bytes(papers.single_column_lncs(doi=DOI, title="Coral Reef Recovery"))
    return library, library.ingest_file(pdf).id


def _state(library: Library, work_id: str) -> dict[str, Any]:
    """Everything enrichment could change: the work, its records, ids, vectors, history."""
    q = library.conn.execute
    text = chunk_text(library)
    with library.lock:
        return {
            "work": library.get_work(work_id),
            "records": library.metadata_records(work_id),
            "aliases": sorted(tuple(r) for r in q("SELECT alias, work_id FROM aliases")),
            "chunks": sorted(tuple(r) for r in q(f"SELECT id, work_id, {text} FROM chunks")),
            "work_vectors": sorted(
                (r[0], r[1], bytes(r[2])) for r in q("SELECT * FROM work_vectors")
            ),
            "edits": [tuple(r) for r in q("SELECT * FROM work_edits ORDER BY id")],
            "status": library.status(),
        }


def _answering(status_of: Callable[[str], httpx.Response]) -> tuple[Any, list[str]]:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.host)
        return status_of(request.url.host)

    return httpx.MockTransport(handler), asked


def test_server_errors_leave_the_work_unavailable_and_unchanged(
    provider_env: None, clock: FakeClock, tmp_path: Path
) -> None:
    answers = {"openalex.test": 503, "epmc.test": 500}
    transport, asked = _answering(lambda host: httpx.Response(answers.get(host, 404)))
    library, work_id = _stored(tmp_path, transport)
    try:
        before = _state(library, work_id)
        (report,) = library.enrich()
        assert report["status"] == "unavailable" and report["id"] == work_id
        assert "HTTP 503" in report["message"] and "HTTP 500" in report["message"]
        assert "provider_unavailable" in report["message"]
        assert asked == ["openalex.test", "epmc.test"]  # each asked once: a 5xx is not retried
        assert clock.sleeps == []
        assert _state(library, work_id) == before
    finally:
        library.close()


@pytest.mark.parametrize(
    ("retry_after", "budget", "expected_sleeps"),
    [
        ("2", "5", [2.0, 2.0]),  # Retry-After honoured; a third 2 s wait would pass 5 s
        (None, "5", [1.0, 2.0]),  # no Retry-After: 1, 2, then 4 would pass the budget
        (None, "0", []),  # no budget: refused at the first 429
    ],
)
def test_rate_limits_are_reported_within_the_backoff_budget(
    provider_env: None,
    clock: FakeClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    retry_after: str | None,
    budget: str,
    expected_sleeps: list[float],
) -> None:
    monkeypatch.setenv("PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS", budget)
    headers = {"Retry-After": retry_after} if retry_after else {}
    transport, asked = _answering(lambda host: httpx.Response(429, headers=headers))
    library, work_id = _stored(tmp_path, transport)
    try:
        before = _state(library, work_id)
        (report,) = library.enrich()
        assert report["status"] == "unavailable"
        assert report["message"].count("rate_limited") == 2  # OpenAlex and Europe PMC
        assert f"budget {float(budget):g}s" in report["message"]
        # each provider: its own backoff within the budget, one request more than waits
        per_provider = len(expected_sleeps) + 1
        assert asked == ["openalex.test"] * per_provider + ["epmc.test"] * per_provider
        assert clock.sleeps == expected_sleeps * 2
        assert sum(expected_sleeps) <= float(budget)
        assert _state(library, work_id) == before
    finally:
        library.close()


# -- the CLI over a real loopback server ------------------------------------------------------
@contextmanager
def failing_server(status: int, headers: dict[str, str]) -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server answering every GET with ``status`` (and ``headers``)."""
    paths: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            paths.append(self.path)
            body = b'{"error": "try later"}'
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", paths
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize(
    ("status", "headers", "reason"),
    [(502, {}, "HTTP 502"), (429, {"Retry-After": "1"}, "rate_limited")],
)
def test_cli_enrich_against_a_failing_provider_exits_1_and_changes_nothing(
    provider_env: None,
    clock: FakeClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    status: int,
    headers: dict[str, str],
    reason: str,
) -> None:
    from prioris.interfaces.cli import main

    library, work_id = _stored(tmp_path)
    before = _state(library, work_id)
    library.close()
    monkeypatch.setenv("PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS", "2")
    with failing_server(status, headers) as (base, paths):
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", base)
        monkeypatch.setenv("PRIORIS_MCP_EUROPEPMC_BASE_URL", base)
        assert main(["enrich", "--json"]) == 1
        out = json.loads(capsys.readouterr().out)
        assert out["unavailable"] == 1 and out["enriched"] == 0
        (report,) = out["works"]
        assert report["id"] == work_id and report["status"] == "unavailable"
        assert reason in report["message"]
        assert main(["enrich", work_id]) == 1  # the text form says so too
        assert f"unavailable  {work_id}" in capsys.readouterr().out
    per_provider = 3 if status == 429 else 1  # 1 s + 1 s of backoff fit a 2 s budget
    assert len(paths) == 2 * 2 * per_provider  # two runs, two providers
    assert sum(clock.sleeps) <= 2 * 2 * 2.0 and max(clock.sleeps, default=0) <= 1.0
    reopened = Library.open(load_settings(), embedder=FakeEmbedder(), ocr=FakeOcr())
    try:
        after = _state(reopened, work_id)
    finally:
        reopened.close()
    # the CLI opened the library with the real embedding model, so to the fake-embedder
    # library that reads it back its chunks are another model's: only that may differ
    model_bound = ("stale_chunks", "stale_works", "size_bytes", "model", "dim")
    for state in (before, after):
        state["status"] = {k: v for k, v in state["status"].items() if k not in model_bound}
    assert after == before
