"""``prioris status`` shows the day's OpenAlex requests and the daily budget, in text and
in ``--json``."""

from __future__ import annotations

import json

import pytest

from prioris.interfaces.cli import main

from conftest import start_library


def test_status_shows_the_openalex_count_and_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    start_library()
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_DAILY_BUDGET", "250")
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["openalex_requests_today"] == 0 and status["openalex_daily_budget"] == 250
    assert main(["status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split() == ["openalex_daily_budget", "250"] for line in lines)
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_DAILY_BUDGET", "-1")
    assert main(["status"]) != 0
    assert "PRIORIS_MCP_OPENALEX_DAILY_BUDGET" in capsys.readouterr().err
