"""Issue 23's "done when": ``prioris snowball --all`` on a library built from the recorded
fixtures gives explained, deduplicated candidates from the local graph alone (offline) and
from OpenAlex through a loopback server, within the day's budget, and asks nothing the
second time (the CLI, as a user runs it; requests counted at the server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import prioris.embedding
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main
from prioris.library import Library
from prioris.models import Reference
from prioris.storage import references as reference_store
from prioris.storage.transaction import immediate

from openalex_server import SEEDS, OpenAlexServer


@pytest.fixture
def server() -> Iterator[OpenAlexServer]:
    with OpenAlexServer() as running:
        yield running


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch, server: OpenAlexServer) -> Any:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "test-key-0123456789")
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", server.base)
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_MIN_INTERVAL_SECONDS", "0")
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_DAILY_BUDGET", "40")
    with Library.open(embedder=FakeEmbedder()) as library:
        library.import_records(
            [
                {"id": "seed-a", "title": "Seed one", "text": "Open citations at scale."},
                {"id": "seed-b", "title": "Seed two", "text": "Scholarly metadata."},
                {"id": "known", "title": "A paper we hold", "text": "Held already."},
            ]
        )
        library.edit_work("seed-a", {"openalex": SEEDS[0]})
        library.edit_work("seed-b", {"openalex": SEEDS[1]})
        with library.lock, immediate(library.conn):
            reference_store.replace_references(
                library.conn,
                "seed-a",
                [
                    Reference(
                        1,
                        "Doe J. Local only paper. J Tests 2011.",
                        ["J. Doe"],
                        "Local only paper",
                        2011,
                        doi="10.5555/local.only",
                    ),
                    Reference(
                        2, "Roe R. A paper we hold. 2015.", ["R. Roe"], "A paper we hold", 2015
                    ),
                ],
            )
            reference_store.replace_references(
                library.conn,
                "seed-b",
                [
                    Reference(
                        1,
                        "Doe J. Local only paper. 2011.",
                        ["J. Doe"],
                        "Local only paper",
                        2011,
                        doi="10.5555/LOCAL.ONLY",
                    )
                ],
            )
    return server


def _snowball(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["snowball", "--all", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_snowball_all_offline_then_online_within_budget_then_from_the_cache(seeded, capsys):
    server = seeded
    offline = _snowball(capsys, "--offline")
    assert len(server.paths) == 0  # offline asks nothing
    titles = [c["title"] for c in offline["candidates"]]
    # the two seeds' references to one paper are one candidate, cited by both; the
    # reference to a paper the library holds is no candidate
    assert titles.count("Local only paper") == 1
    assert "A paper we hold" not in titles
    local = next(c for c in offline["candidates"] if c["title"] == "Local only paper")
    assert local["why"]["backward"] == 2 and local["score"] > 0
    assert local["fetch_route"]

    online = _snowball(capsys, "--direction", "both", "--limit", "100")
    sent = len(server.paths)
    assert 0 < online["requests"] == sent <= 40
    assert online["budget_left"] == 40 - sent
    ids = [json.dumps(c["ids"], sort_keys=True) for c in online["candidates"]]
    assert len(ids) == len(set(ids))  # deduplicated
    found_by = {src for c in online["candidates"] for src in c["why"]["found_by"]}
    assert {"local", "openalex"} <= found_by
    assert all(c["why"] and c["fetch_route"] for c in online["candidates"])
    assert not any(c["ids"].get("openalex") in SEEDS for c in online["candidates"])

    again = _snowball(capsys, "--direction", "both", "--limit", "100")
    assert again["requests"] == 0 and len(server.paths) == sent  # the cache answers
    assert [c["title"] for c in again["candidates"]] == [c["title"] for c in online["candidates"]]
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["openalex_requests_today"] == sent and status["openalex_daily_budget"] == 40
