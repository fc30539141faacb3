"""MCP ``research_alerts``: in process over a library with the fake embedder (list, show,
run, dismiss, the output schema and bad calls), and end to end through ``python -m
prioris serve`` over stdio with the SDK client, the alert made with ``prioris alerts add``
and its sources the loopback recorded providers (arXiv, an RSS feed): run, show, accept
(the real fetch) and dismiss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from interfaces.mcp_helpers import data, error, make_library, with_client

from alert_world import RECORDS, World, providers


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with providers(tmp_path) as found:
        yield found


def test_research_alerts_in_process(tmp_path: Path, data_dir: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"_id": "c-mut", "title": "Mutation testing at scale", "text": "mutants, tests"},
                {"_id": "c-onc", "title": "Liver cancer immunotherapy", "text": "tumour"},
            ]
        )
    )
    library = make_library()
    library.import_records(RECORDS)
    library.alerts_add("t", collection="Software testing", sources=f"jsonl:{pool}")

    async def body(client: Client) -> dict[str, Any]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        out: dict[str, Any] = {"schema": tools["research_alerts"].output_schema}
        out["list"] = data(await client.call_tool("research_alerts", {"action": "list"}))
        out["run"] = data(await client.call_tool("research_alerts", {"action": "run"}))
        out["show"] = data(
            await client.call_tool("research_alerts", {"action": "show", "name": "t"})
        )
        out["dismiss"] = data(
            await client.call_tool(
                "research_alerts", {"action": "dismiss", "name": "t", "candidate": "c-onc"}
            )
        )
        out["after"] = data(
            await client.call_tool("research_alerts", {"action": "show", "name": "t"})
        )
        out["errors"] = [
            error(await client.call_tool("research_alerts", args))
            for args in (
                {"action": "show"},
                {"action": "show", "name": "nope"},
                {"action": "dismiss", "name": "t"},
                {"action": "list", "since": "2026-01-01"},
                {"action": "run", "name": "t", "since": "yesterday"},
                {"action": "fly"},
            )
        ]
        return out

    out = with_client(library, body)
    assert out["schema"] and "runs" in out["schema"]["properties"]
    assert [a["name"] for a in out["list"]["alerts"]] == ["t"]
    assert out["list"]["alerts"][0]["results"] == 0
    (run,) = out["run"]["runs"]
    assert run["ok"] and run["results"] == 2 and run["error"] is None
    results = out["show"]["alert"]["results"]
    assert [r["id"] for r in results] == ["c-mut", "c-onc"]  # testing first, for testing
    assert results[0]["why"]["nearest"] and results[0]["source"].startswith("jsonl:")
    assert out["dismiss"] == {"action": "dismiss", "dismissed": "c-onc"} | {
        k: None for k in ("alerts", "alert", "runs", "accepted", "work_id", "status")
    }
    assert [r["id"] for r in out["after"]["alert"]["results"]] == ["c-mut"]
    assert out["after"]["alert"]["dismissed"] == ["c-onc"]
    codes = [e.split(":", 1)[0] for e in out["errors"]]
    assert codes == ["invalid_request", "not_found", "invalid_request"] + ["invalid_request"] * 3


def _env(data_dir: Path, world: World) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    keep.update(world.env())
    keep.update(
        {
            "PRIORIS_MCP_DATA_DIR": str(data_dir),
            "PYTHONUNBUFFERED": "1",
            **{f"PRIORIS_MCP_{p}_MIN_INTERVAL_SECONDS": "0" for p in ("ARXIV", "EUROPEPMC")},
        }
    )
    return keep


@pytest.mark.slow  # the real default model, in three processes
def test_research_alerts_over_stdio(tmp_path: Path, data_dir: Path, world: World) -> None:
    env = _env(data_dir, world)
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    feed = f"feed:{world.base}/feed.xml"

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "prioris", *argv],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert cli("import", str(records)).returncode == 0
    added = cli(
        "alerts", "add", "t", "--collection", "Software testing",
        "--sources", f'arxiv:"testing",{feed}', "--json",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "prioris", "serve"], env=env, cwd=str(tmp_path)
    )

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with anyio.fail_after(240):
            async with Client(params, read_timeout_seconds=120) as client:
                call = client.call_tool
                out["run"] = data(await call("research_alerts", {"action": "run", "name": "t"}))
                out["show"] = data(await call("research_alerts", {"action": "show", "name": "t"}))
                out["accept"] = data(
                    await call(
                        "research_alerts",
                        {"action": "accept", "name": "t", "candidate": "arxiv:2202.12139v1"},
                    )
                )
                out["dismiss"] = data(
                    await call(
                        "research_alerts",
                        {"action": "dismiss", "name": "t", "candidate": "arxiv:1205.1866v1"},
                    )
                )
                out["after"] = data(await call("research_alerts", {"action": "show", "name": "t"}))
        return out

    with ThreadPoolExecutor(1) as pool:  # never anyio.run in the main thread (browser tests)
        out = pool.submit(anyio.run, main).result()
    (run,) = out["run"]["runs"]
    assert run["ok"] and run["candidates"] == 10 + 2, run
    results = out["show"]["alert"]["results"]
    assert len(results) == 12 and all(r["why"]["nearest"] for r in results)
    assert {r["id"]: r["in_library"] for r in results}["arxiv:2005.14124v2"] is True
    assert out["accept"]["status"] == "ingested" and out["accept"]["accepted"]
    after = out["after"]["alert"]
    assert after["accepted"] == ["arxiv:2202.12139v1"] and after["dismissed"] == [
        "arxiv:1205.1866v1"
    ]
    assert "arxiv:1205.1866v1" not in {r["id"] for r in after["results"]}
    assert {r["id"]: r["in_library"] for r in after["results"]}["arxiv:2202.12139v1"] is True
    listed = cli("list", "--json")  # the accepted paper is a work of the library now
    assert listed.returncode == 0 and "Testing Deep Learning Models" in listed.stdout
    # the CLI reads what the server stored: the feed of the same results
    shown = cli("alerts", "feed", "t")
    assert shown.returncode == 0 and shown.stdout.count("<entry>") == len(after["results"])
