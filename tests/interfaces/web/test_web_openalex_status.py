"""The web Status page shows the day's OpenAlex requests against the daily budget."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from interfaces.web.web_helpers import make_library
from prioris.interfaces.web import build_app
from prioris.services.openalex_graph import StoredBudget


def test_status_shows_the_openalex_requests_of_the_day(data_dir: Path) -> None:
    library = make_library(data_dir)
    app = build_app(library, csrf_token="test-token")
    try:
        client = TestClient(app, base_url="http://127.0.0.1:8765")
        assert 'id="openalex-requests">0 of 1000 ' in client.get("/status").text
        budget = StoredBudget(library.conn, library.lock, library.now, 1000)
        assert budget.take() and budget.take()
        assert 'id="openalex-requests">2 of 1000 ' in client.get("/status").text
    finally:
        app.state.web.jobs.close()
        library.close()
