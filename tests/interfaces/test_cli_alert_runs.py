"""``prioris alerts add|list|show|run|accept|dismiss|feed NAME|remove`` through ``main``
(the default model) against the loopback recorded providers (skipped without
../shared): what each prints, with and without ``--json``; a run whose second source
fails exits non-zero, names the source on stderr and in the JSON and keeps the results;
the feed of the stored results parses in feedparser; progress goes to stderr."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import feedparser
import pytest

from prioris.interfaces.cli import main

from alert_world import RECORDS, World, providers


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    with providers(tmp_path) as found:
        for name, value in found.env().items():
            monkeypatch.setenv(name, value)
        yield found


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stocked(capsys: pytest.CaptureFixture[str], tmp_path: Path, world: World) -> World:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    assert run(capsys, "import", str(records))[0] == 0
    return world


def test_add_run_show_triage_feed_and_remove(
    capsys: pytest.CaptureFixture[str], stocked: World
) -> None:
    feed = f"feed:{stocked.base}/feed.xml"
    code, out, err = run(
        capsys, "alerts", "add", "testing", "--collection", "Software testing",
        "--sources", f'arxiv:"testing",{feed}',
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("alert testing added: collection Software testing")
    code, out, err = run(capsys, "alerts", "add", "x", "--collection", "Oncology")
    assert code == 2 and "error [invalid_request]" in err and "--sources" in err
    code, out, _ = run(capsys, "alerts", "list", "--json")
    assert [a["name"] for a in json.loads(out)] == ["testing"]

    code, out, err = run(capsys, "alerts", "run", "--json")
    assert code == 0, err
    (report,) = json.loads(out)
    assert report["ok"] and report["candidates"] == 12 and report["results"] == 12
    assert 'asking arxiv:"testing"' in err and "12 result(s) stored" in err  # progress
    code, out, _ = run(capsys, "alerts", "show", "testing", "--json")
    shown = json.loads(out)
    assert len(shown["results"]) == 12 and shown["last_run"] == report["last_run"]
    code, out, _ = run(capsys, "alerts", "show", "testing")
    assert out.startswith("testing: collection Software testing") and "near:" in out
    assert "(in the library)" in out  # the fuzzing paper the library holds

    code, out, err = run(capsys, "alerts", "dismiss", "testing", "arxiv:1205.1866v1")
    assert code == 0 and "not shown again" in out
    code, out, err = run(capsys, "alerts", "accept", "testing", "arxiv:2202.12139v1", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "ingested"
    code, out, _ = run(capsys, "show", "arxiv:2202.12139", "--json")
    assert code == 0 and "Testing Deep Learning Models" in out

    code, out, err = run(capsys, "alerts", "feed", "testing")
    assert code == 0, err
    parsed = feedparser.parse(out)
    assert not parsed.bozo and parsed.feed.title == "Prioris alerts: testing"
    assert len(parsed.entries) == 11  # twelve, one dismissed
    code, _, err = run(capsys, "alerts", "feed", "testing", "--collection", "Oncology")
    assert code == 2 and "NAME, or --collection" in err
    code, _, err = run(capsys, "alerts", "feed")
    assert code == 2 and "--candidates FILE" in err

    code, out, _ = run(capsys, "alerts", "remove", "testing")
    assert code == 0 and "removed" in out
    code, out, _ = run(capsys, "alerts", "list")
    assert out.startswith("no alerts yet")
    code, _, err = run(capsys, "alerts", "show", "testing")
    assert code == 1 and "error [not_found]" in err


def test_a_failing_source_exits_non_zero_and_keeps_the_results(
    capsys: pytest.CaptureFixture[str], stocked: World
) -> None:
    good = 'europepmc:"cancer"'
    assert (
        run(capsys, "alerts", "add", "onco", "--collection", "Oncology", "--sources", good)[0] == 0
    )
    assert run(capsys, "alerts", "add", "bad", "--collection", "Oncology", "--sources",
               f"{good},feed:{stocked.base}/broken.xml")[0] == 0  # fmt: skip
    code, out, err = run(capsys, "alerts", "run", "--json")
    assert code == 1
    reports = {r["alert"]: r for r in json.loads(out)}
    assert reports["onco"]["ok"] and not reports["bad"]["ok"]  # one failing alert stops no other
    error = reports["bad"]["error"]
    assert error["source"] == f"feed:{stocked.base}/broken.xml"
    assert error["code"] == "provider_unavailable"
    assert "alert bad: error [provider_unavailable]" in err and "broken.xml" in err
    code, out, _ = run(capsys, "alerts", "list")
    assert "last error [provider_unavailable]" in out
    code, out, _ = run(capsys, "alerts", "run", "onco", "--since", "2025-12-01")
    assert code == 0 and out.startswith("onco: ")
    code, _, err = run(capsys, "alerts", "run", "onco", "--since", "soon")
    assert code == 2 and "since must be a day" in err
