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
        k: None for k in ("alerts", "alert", "runs", "accepted", "work_id", "status", "removed")
    }
    assert [r["id"] for r in out["after"]["alert"]["results"]] == ["c-mut"]
    assert out["after"]["alert"]["dismissed"] == ["c-onc"]
    codes = [e.split(":", 1)[0] for e in out["errors"]]
    assert codes == ["invalid_request", "not_found", "invalid_request"] + ["invalid_request"] * 3


def _pool(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pool = folder / "pool.jsonl"
    pool.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"_id": "c-mut", "title": "Mutation testing at scale", "text": "mutants, tests"},
                {"_id": "c-onc", "title": "Liver cancer immunotherapy", "text": "tumour"},
            ]
        )
    )
    return pool


def test_research_alerts_add_and_remove_in_process(tmp_path: Path, data_dir: Path) -> None:
    """``add`` makes the alert the Library makes (checked: name, collection, sources),
    ``remove`` deletes it with its results; every bad call is a coded error and leaves the
    alerts as they were."""
    pool = _pool(tmp_path)
    library = make_library()
    library.import_records(RECORDS)

    async def body(client: Client) -> dict[str, Any]:
        async def call(**args: Any) -> Any:
            return await client.call_tool("research_alerts", args)

        tools = {t.name: t for t in (await client.list_tools()).tools}
        out: dict[str, Any] = {"tool": tools["research_alerts"]}
        out["add"] = data(
            await call(
                action="add", name="t", collection="Software testing", sources=f"jsonl:{pool}"
            )
        )
        out["add_search"] = data(await call(action="add", name="s", search="mutation testing"))
        out["errors"] = [
            error(await call(**args))
            for args in (
                {"action": "add", "name": "bad name!", "search": "x"},
                {"action": "add", "name": "u", "collection": "Nowhere", "sources": "arxiv:cs.LG"},
                {"action": "add", "name": "u", "collection": "Software testing", "sources": "x:y"},
                {"action": "add", "name": "u", "collection": "Software testing"},
                {"action": "add", "name": "u", "search": "x", "collection": "Software testing"},
                {"action": "add", "name": "t", "search": "again"},
                {"action": "add", "search": "no name"},
                {"action": "show", "name": "t", "sources": "arxiv:cs.LG"},
                {"action": "remove"},
                {"action": "remove", "name": "nope"},
            )
        ]
        out["run"] = data(await call(action="run", name="t"))
        out["remove"] = data(await call(action="remove", name="t"))
        out["list"] = data(await call(action="list"))
        out["gone"] = error(await call(action="show", name="t"))
        return out

    out = with_client(library, body)
    schema = out["tool"].output_schema
    assert "removed" in schema["properties"]
    actions = out["tool"].input_schema["properties"]["action"]
    assert {"add", "remove"} <= set(json.dumps(actions).split('"'))
    assert out["tool"].annotations.destructive_hint is True
    made = out["add"]["alert"]
    assert (made["name"], made["collection"], made["owner"]) == ("t", "Software testing", None)
    assert made["sources"] == f"jsonl:{pool}" and made["results"] == [] and not made["last_run"]
    assert out["add_search"]["alert"]["sources"] == 'search:"mutation testing"'
    codes = [e.split(":", 1)[0] for e in out["errors"]]
    assert codes == [
        "invalid_request",  # the name
        "not_found",  # no such collection
        "invalid_request",  # a source kind that does not exist
        "invalid_request",  # a collection without sources
        "invalid_request",  # both a collection and a search
        "invalid_request",  # the name is taken
        "invalid_request",  # no name
        "invalid_request",  # add's arguments on show
        "invalid_request",  # remove without a name
        "not_found",
    ], out["errors"]
    assert "x:y" in out["errors"][2] and "exists already" in out["errors"][5]
    assert out["run"]["runs"][0]["ok"] and out["run"]["runs"][0]["results"] == 2
    assert out["remove"]["removed"] == "t" and out["remove"]["action"] == "remove"
    assert [a["name"] for a in out["list"]["alerts"]] == ["s"]
    assert out["gone"].startswith("not_found")


def test_research_alerts_roles_per_action(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Accounts mode, the real tool over a real library: a reader may list and show but
    neither add, run nor remove (``forbidden``, nothing done, nothing audited); a writer
    adds (the alert is its own), runs and removes, each audited; a writer's file source
    outside the import folders is not_found."""
    from types import SimpleNamespace

    from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
    from prioris.interfaces.mcp_server import build_server

    allowed = tmp_path / "imports"
    pool = _pool(allowed)
    outside = _pool(tmp_path / "elsewhere")
    monkeypatch.setenv("PRIORIS_MCP_ALLOWED_IMPORT_DIRS", str(allowed))
    library = make_library()
    library.import_records(RECORDS)
    library.add_account("rita", "reader")
    library.add_account("walt", "writer")
    accounts = {a.name: a for a in library.accounts()}
    server = build_server(lambda: library)
    server.prioris_accounts = True

    def call(who: str, **args: Any) -> Any:
        scope = {ACCOUNT_SCOPE_KEY: accounts[who]}
        context = SimpleNamespace(
            request_context=SimpleNamespace(request=SimpleNamespace(scope=scope))
        )
        return anyio.run(server.call_tool, "research_alerts", args, context)

    try:
        add = {"action": "add", "name": "w", "collection": "Software testing"}
        refused = call("rita", **add, sources=f"jsonl:{pool}")
        assert error(refused).startswith(
            "forbidden: account 'rita' (reader) may not call research_alerts with action 'add'"
        )
        assert library.alerts_list() == []
        made = call("walt", **add, sources=f"jsonl:{pool}")
        assert data(made)["alert"]["owner"] == "walt"
        far = error(call("walt", **{**add, "name": "far"}, sources=f"jsonl:{outside}"))
        assert far.startswith("not_found") and "import folders" in far
        assert data(call("rita", action="list"))["alerts"] == []  # a reader lists (its own)
        for action in ("run", "remove", "dismiss", "accept"):
            text = error(call("rita", action=action, name="w", candidate="c-mut"))
            assert text.startswith("forbidden") and "it needs the writer role" in text, text
        assert library.alerts_show("w")["last_run"] is None  # the reader's run did not run
        assert data(call("walt", action="run", name="w"))["runs"][0]["ok"]
        assert data(call("walt", action="show", name="w"))["alert"]["results"]
        assert data(call("walt", action="remove", name="w"))["removed"] == "w"
        assert library.alerts_list() == []
        logged = [(e["account"], e["action"]) for e in library.audit()]
        assert logged == [("walt", "research_alerts")] * 3  # add, run, remove; no reads
        targets = [e["target"] for e in library.audit()]
        assert targets[-1].startswith("action=add ") and targets[0] == "action=remove name=w"
    finally:
        server.prioris_state.close()
        library.close()


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
