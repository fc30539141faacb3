"""The library's OpenAlex graph on both engines: answers cached in the library for
``PRIORIS_MCP_OPENALEX_CACHE_DAYS`` (by the injected clock), a daily budget counted in
the library and so shared by every process that opens it, ``status`` showing the day's
count, ``migrate-to`` carrying both; counted at the loopback server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError
from prioris.library import Library, migrate_library

from openalex_server import SEEDS, OpenAlexServer

KEY = "test-key-0123456789"


class Now:
    """The library's clock: an ISO-8601 UTC timestamp that a test moves."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)

    def __call__(self) -> str:
        return self.moment.isoformat(timespec="seconds")

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


class NoSleep:
    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return 0.0

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


@pytest.fixture
def settings(backend_settings: Any) -> Any:
    return backend_settings


@pytest.fixture
def server() -> Iterator[OpenAlexServer]:
    with OpenAlexServer() as running:
        yield running


def open_library(settings: Any, server: OpenAlexServer, now: Now, **changes: Any) -> Library:
    given = {"openalex_api_key": KEY, "openalex_base_url": server.base, **changes}
    configured = settings.with_overrides(**given)
    return Library.open(configured, embedder=FakeEmbedder(), clock=NoSleep(), now=now)


def test_a_second_run_asks_nothing_until_the_cache_ages_out(
    settings: Any, server: OpenAlexServer
) -> None:
    now = Now()
    with open_library(settings, server, now) as library:
        graph = library.openalex_graph()
        citing = graph.citing(list(SEEDS), limit=50)
        assert len(citing) == 5 and graph.requests == len(server.paths) == 1
        rows = library.conn.execute("SELECT key, body FROM openalex_cache").fetchall()
        assert rows and not any(KEY in key or KEY in body for key, body in rows)
        (page,) = [key for key, _ in rows if key.startswith("/works?")]
        assert page.startswith("/works?filter=cites:W3045921891|W3046863325&select=id,doi,")
        assert page.endswith("&per_page=100&cursor=*")
        again = library.openalex_graph()  # a new object: its own count, the same cache
        assert again.citing(list(SEEDS), limit=50) == citing
        assert again.works([r["id"] for r in citing]).keys() == {r["id"] for r in citing}
        assert again.requests == 0 and len(server.paths) == 1
        now.advance(days=29, hours=23)
        assert library.openalex_graph().citing(list(SEEDS), limit=50) == citing
        assert len(server.paths) == 1  # still within 30 days
        now.advance(hours=2)
        late = library.openalex_graph()
        assert late.citing(list(SEEDS), limit=50) == citing and late.requests == 1
        assert len(server.paths) == 2  # aged out: asked again, and kept anew
        assert library.openalex_graph().citing(list(SEEDS), limit=50) == citing
        assert len(server.paths) == 2


def test_the_librarys_graph_waits_out_a_429_and_a_503(
    settings: Any, server: OpenAlexServer
) -> None:
    server.faults.append((429, {"Retry-After": "1"}, b"slow down"))
    server.faults.append((503, {"Retry-After": "2"}, b"busy"))
    with open_library(settings, server, Now()) as library:
        graph = library.openalex_graph()
        assert len(graph.works(list(SEEDS))) == 2 and graph.requests == 1
        assert library.clock.sleeps == [1.0, 2.0] and len(server.paths) == 3
        assert library.status()["openalex_requests_today"] == 1


def test_cache_days_zero_keeps_nothing(settings: Any, server: OpenAlexServer) -> None:
    with open_library(settings, server, Now(), openalex_cache_days=0) as library:
        for _ in range(2):
            library.openalex_graph().works(list(SEEDS))
        assert len(server.paths) == 2
        assert library.conn.execute("SELECT count(*) FROM openalex_cache").fetchone()[0] == 0


def test_the_budget_is_shared_by_every_library_on_the_same_database(
    settings: Any, server: OpenAlexServer
) -> None:
    now = Now()
    first = open_library(settings, server, now, openalex_daily_budget=3)
    second = open_library(settings, server, now, openalex_daily_budget=3)
    try:
        one = first.openalex_graph()
        one.works(["W1"])
        one.works(["W2"])
        two = second.openalex_graph()
        assert two.budget_left == 1 and one.budget_left == 1
        two.works(["W3"])
        assert two.requests == 1 and not two.budget_reached and one.budget_left == 0
        assert first.openalex_graph().works(["W4"]) == {}
        last = second.openalex_graph()
        assert last.citing(list(SEEDS), limit=5) == [] and last.budget_reached
        assert len(server.paths) == 3  # the fourth and fifth were never sent
        status = first.status()
        assert status["openalex_requests_today"] == 3 and status["openalex_daily_budget"] == 3
        now.advance(days=1)  # a new UTC day: a new count
        assert second.status()["openalex_requests_today"] == 0
        fresh = second.openalex_graph()
        assert len(fresh.citing(list(SEEDS), limit=5)) == 5 and fresh.budget_left == 2
    finally:
        first.close()
        second.close()


def test_status_shows_the_days_requests_and_the_budget(
    settings: Any, server: OpenAlexServer
) -> None:
    with open_library(settings, server, Now()) as library:
        status = library.status()
        assert status["openalex_requests_today"] == 0
        assert status["openalex_daily_budget"] == 1000  # the default
        library.openalex_graph().works(list(SEEDS))
        assert library.status()["openalex_requests_today"] == 1


def test_no_key_is_a_configuration_error_before_any_request(
    settings: Any, server: OpenAlexServer
) -> None:
    with open_library(settings, server, Now(), openalex_api_key=None) as library:
        with pytest.raises(ConfigurationError, match="PRIORIS_MCP_OPENALEX_API_KEY"):
            library.openalex_graph()
        assert library.status()["openalex_requests_today"] == 0
    assert server.paths == []


def test_migrate_to_carries_the_count_and_the_cache(
    server: OpenAlexServer, pg_url: str, tmp_path: Path, data_dir: Path
) -> None:
    from prioris.config import load_settings

    now = Now()
    source = load_settings({}).with_library(tmp_path / "source.sqlite")
    with open_library(source, server, now) as library:
        library.openalex_graph().citing(list(SEEDS), limit=5)
        library.import_records([{"_id": "doi:10.1/a", "title": "A work", "text": "words"}])
        cached = sorted(
            tuple(r) for r in library.conn.execute("SELECT key, fetched_at FROM openalex_cache")
        )
    assert len(cached) == 6  # the page and its five works
    migrate_library(source, pg_url)
    target = load_settings({}).with_library(pg_url)
    with open_library(target, server, now) as copied:
        assert copied.status()["openalex_requests_today"] == 1
        rows = copied.conn.execute("SELECT key, fetched_at FROM openalex_cache").fetchall()
        assert sorted(tuple(r) for r in rows) == cached
        graph = copied.openalex_graph()
        assert len(graph.citing(list(SEEDS), limit=5)) == 5 and graph.requests == 0
    assert len(server.paths) == 1


TAKER = """
import sys, threading
from prioris.engines import open_storage
from prioris.services.openalex_graph import StoredBudget

storage = open_storage(sys.argv[1])
conn = storage.connect()
budget = StoredBudget(conn, threading.RLock(), lambda: "2026-12-01T10:00:00+00:00", 40)
print(sum(budget.take() for _ in range(30)))
conn.close()
storage.close()
"""


def test_two_processes_taking_at_once_never_exceed_the_budget(settings: Any) -> None:
    """Two processes take 30 requests each from a budget of 40 at the same time: exactly
    40 are granted, whatever the interleaving (one statement under the write lock)."""
    import os
    import subprocess
    import sys

    Library.open(settings, embedder=FakeEmbedder()).close()  # the tables exist
    location = str(settings.library_location)
    # this checkout's code first, the rest of the path kept (as the parent process has it)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])),
    }
    takers = [
        subprocess.Popen(
            [sys.executable, "-c", TAKER, location], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    granted = [int(p.communicate(timeout=120)[0].strip()) for p in takers]
    assert all(p.returncode == 0 for p in takers)
    assert sum(granted) == 40 and min(granted) >= 10
    now = Now()
    now.moment = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
    with Library.open(settings, embedder=FakeEmbedder(), now=now) as library:
        assert library.status()["openalex_requests_today"] == 40
