"""Caches and budgets per person (issue 40), against the loopback OpenAlex serving the
recorded graph: the library's cache of OpenAlex answers is bounded in age and size (the
oldest go first, on write and with ``prioris reindex --openalex-cache``), and in a lab
one account cannot spend the library's whole daily budget: it has its share
(``PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET``), refused with ``quota_exceeded`` once spent,
through the library, the web app in accounts mode and the MCP server's tool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from prioris.errors import QuotaExceededError
from prioris.interfaces.cli import main
from prioris.interfaces.web import build_app
from prioris.library import Library
from prioris.storage.transaction import immediate
from test_openalex_graph_library import Now, open_library

from openalex_server import SEEDS, OpenAlexServer

BASE = "http://127.0.0.1:8765"
CSRF = {"X-CSRF-Token": "t", "Origin": BASE}


@pytest.fixture
def server() -> Iterator[OpenAlexServer]:
    with OpenAlexServer() as running:
        yield running


def _cache(library: Library) -> dict[str, tuple[str, int]]:
    rows = library.conn.execute("SELECT key, fetched_at, length(body) FROM openalex_cache")
    return {str(r[0]): (str(r[1]), int(r[2])) for r in rows}


def test_the_cache_keeps_to_its_size_bound_dropping_the_oldest(
    settings: Any, server: OpenAlexServer
) -> None:
    now = Now()
    with open_library(settings, server, now) as library:
        library.openalex_graph().citing(list(SEEDS), limit=50)  # a page and five works
        first = _cache(library)
        total = sum(size for _, size in first.values())
        assert len(first) == 6
    bound = total // 2  # room for about half of what the first command kept
    with open_library(settings, server, now, openalex_cache_max_bytes=bound) as library:
        now.advance(hours=1)
        graph = library.openalex_graph()
        fresh = graph.works(["W2741809807"])  # not cached yet: asked, kept, then the check
        assert fresh and graph.requests == 1
        kept = _cache(library)
        assert sum(size for _, size in kept.values()) <= bound
        newest = max(kept.values())[0]
        assert any(key.startswith("/works/W2741809807") or "W2741809807" in key for key in kept)
        dropped = first.keys() - kept.keys()
        assert dropped and all(first[key][0] <= newest for key in dropped)  # the oldest went


def test_answers_past_the_cache_age_are_deleted_not_only_ignored(
    settings: Any, server: OpenAlexServer
) -> None:
    now = Now()
    with open_library(settings, server, now) as library:
        library.openalex_graph().citing(list(SEEDS), limit=50)
        assert len(_cache(library)) == 6
        now.advance(days=31)
        report = library.clean_openalex_cache()
        assert report == {"expired": 6, "evicted": 0, "entries": 0, "bytes": 0}
        library.openalex_graph().works([SEEDS[0]])  # and a write drops them too
        now.advance(days=31)
        library.openalex_graph().works([SEEDS[1]])
        left = _cache(library)
        assert left and all(SEEDS[1] in key and SEEDS[0] not in key for key in left)


def test_reindex_openalex_cache_from_the_cli(
    settings: Any, server: OpenAlexServer, capsys: pytest.CaptureFixture[str]
) -> None:
    library = open_library(settings, server, Now())
    with library, library.lock, immediate(library.conn):  # an answer from long ago
        library.conn.execute(
            "INSERT INTO openalex_cache(key, body, fetched_at) VALUES "
            "('/works/W1', '{}', '2000-01-01T00:00:00+00:00')"
        )
    assert main(["reindex", "--openalex-cache", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["openalex_cache"]["expired"] == 1 and out["openalex_cache"]["entries"] == 0


def test_an_account_takes_at_most_its_share_of_the_librarys_budget(
    settings: Any, server: OpenAlexServer
) -> None:
    now = Now()
    changes = {"openalex_daily_budget": 3, "openalex_account_daily_budget": 2}
    with open_library(settings, server, now, **changes) as library:
        alice = library.openalex_graph(account="alice")
        assert alice.budget_left == 2
        alice.works(["W1"])
        alice.works(["W2"])
        assert alice.works(["W3"]) == {} and alice.budget_reached  # her share, not the day's
        assert alice.budget.account_spent and library.status()["openalex_requests_today"] == 2
        with pytest.raises(QuotaExceededError, match="'alice' has taken its share") as caught:
            library.openalex_graph(account="alice")
        assert caught.value.code == "quota_exceeded"
        bob = library.openalex_graph(account="bob")
        assert bob.budget_left == 1  # the library's budget bounds bob's share
        bob.works(["W4"])
        assert bob.works(["W5"]) == {} and bob.budget_reached and not bob.budget.account_spent
        assert len(server.paths) == 3
        assert library.openalex_graph().works(["W6"]) == {}  # the library's is spent too
        now.advance(days=1)  # a new UTC day: new shares
        assert library.openalex_graph(account="alice").budget_left == 2


@pytest.fixture
def lab(settings: Any, server: OpenAlexServer) -> Iterator[tuple[Library, TestClient]]:
    """A shared library with the recorded seeds, served in accounts mode; the reader's
    share is one request a day."""
    changes = {"openalex_daily_budget": 40, "openalex_account_daily_budget": 1}
    library = open_library(settings, server, Now(), **changes)
    library.import_records(
        [
            {"id": "seed-a", "title": "Seed one", "text": "Open citations at scale."},
            {"id": "seed-b", "title": "Seed two", "text": "Scholarly metadata."},
        ]
    )
    library.edit_work("seed-a", {"openalex": SEEDS[0]})
    library.edit_work("seed-b", {"openalex": SEEDS[1]})
    token = library.add_account("reader1", "reader")
    app = build_app(library, csrf_token="t", accounts=True)
    client = TestClient(app, base_url=BASE)
    assert client.post("/login", json={"token": token}, headers=CSRF).status_code == 200
    yield library, client
    app.state.web.jobs.close()
    library.close()


def test_a_reader_on_the_web_app_is_refused_past_their_share(
    lab: tuple[Library, TestClient], server: OpenAlexServer
) -> None:
    library, client = lab
    body = {"seeds": "all", "direction": "both", "limit": 10}
    first = client.post("/api/snowball", json=body, headers=CSRF)
    assert first.status_code == 200, first.text
    assert "share of today" in first.text  # partial: the share ran out during the run
    assert library.status()["openalex_requests_today"] == 1
    again = client.post("/api/snowball", json=body, headers=CSRF)
    assert again.status_code == 429
    assert again.json()["error"]["code"] == "quota_exceeded"
    assert len(server.paths) == 1  # nothing more was asked of OpenAlex
    offline = client.post("/api/snowball", json={**body, "offline": True}, headers=CSRF)
    assert offline.status_code == 200  # the local graph still answers


def test_the_mcp_snowball_tool_counts_the_callers_share(
    lab: tuple[Library, TestClient], server: OpenAlexServer
) -> None:
    """The tool called over HTTP in accounts mode (the account in the request's scope, as
    the guard puts it): the caller's share, then quota_exceeded as a tool error."""
    from types import SimpleNamespace

    from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
    from prioris.interfaces.mcp_server import build_server

    library, _ = lab
    mcp = build_server(lambda: library)
    mcp.prioris_accounts = True
    reader = SimpleNamespace(name="reader1", role="reader")
    request = SimpleNamespace(scope={"type": "http", ACCOUNT_SCOPE_KEY: reader})
    context = SimpleNamespace(request_context=SimpleNamespace(request=request))

    async def call() -> Any:
        return await mcp.call_tool("research_discovery_snowball", {"all": True}, context)

    first = run_outside_loop(call)
    assert not first.is_error and first.structured_content["requests"] == 1
    refused = run_outside_loop(call)
    assert refused.is_error
    assert refused.content[0].text.startswith("quota_exceeded: account 'reader1'")
    assert len(server.paths) == 1


def run_outside_loop(call: Any) -> Any:
    """``anyio.run`` in a thread of its own: once a browser test has run, pytest-playwright
    keeps an event loop running in the main thread (as interfaces/mcp_helpers does)."""
    from concurrent.futures import ThreadPoolExecutor

    import anyio

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, call).result()
