"""MCP over HTTP in accounts mode: each client's own token, roles enforced, writes audited.

The guard is tested as ASGI first (401, 429, the account put in the scope); then a real
``prioris serve --transport http --host 0.0.0.0 --allow-remote`` over a library with
accounts is reached by SDK clients holding different tokens.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from interfaces.mcp_helpers import data, error
from interfaces.roles_from_docs import MCP_ACTIONS, MCP_TOOLS, ORDER, below
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY, Exposure, HttpGuard
from prioris.interfaces.mcp.runtime import audit_target
from prioris.interfaces.mcp_server import build_server
from prioris.interfaces.permissions import (
    MCP_ACTION_ROLES,
    MCP_TOOL_ROLES,
    RateLimiter,
    tool_role,
)
from prioris.library import Library
from prioris.storage.accounts import Account


# -- the permission table --------------------------------------------------------------
def test_every_mcp_tool_has_a_role() -> None:
    server = build_server(lambda: None)  # type: ignore[arg-type,return-value]
    names = {tool.name for tool in server._tool_manager.list_tools()}
    assert names == set(MCP_TOOL_ROLES), (
        f"tools without a role: {sorted(names - set(MCP_TOOL_ROLES))}; "
        f"roles of no tool: {sorted(set(MCP_TOOL_ROLES) - names)}"
    )
    for tool in server._tool_manager.list_tools():
        hints = tool.annotations
        if hints is not None and hints.read_only_hint is False:
            writes = {MCP_TOOL_ROLES[tool.name], *MCP_ACTION_ROLES.get(tool.name, {}).values()}
            assert "writer" in writes, tool.name
    assert tool_role("research_tool_of_tomorrow") == "admin"  # fail closed
    # an action the table does not know, or none, needs the strictest of the tool's
    assert tool_role("research_alerts", {"action": "fly"}) == "writer"
    assert tool_role("research_alerts", {}) == tool_role("research_alerts") == "writer"
    assert tool_role("research_alerts", {"action": "list"}) == "reader"


def test_each_tool_refuses_the_role_below_the_docs_one_and_lets_that_role_call() -> None:
    """Tool by tool, in accounts mode: the role just below the one docs/security.md gives
    (no account below reader) is refused before the tool runs, the role itself and those
    above get through (the tool replaced by a recorder, so nothing reaches a provider),
    and a write is audited (tests/interfaces/roles_from_docs.py holds the table)."""
    from types import SimpleNamespace

    audits: list[tuple[str, ...]] = []
    library = SimpleNamespace(record_audit=lambda *a: audits.append(a))
    server = build_server(lambda: library)  # type: ignore[arg-type,return-value]
    server.prioris_accounts = True
    ran: list[str] = []

    async def recorder(name: str, arguments: dict[str, Any], context: Any) -> Any:
        ran.append(name)
        return SimpleNamespace(is_error=False)

    server._call_tool = recorder  # type: ignore[method-assign]

    def call(tool: str, role: str | None, arguments: dict[str, Any]) -> Any:
        account = None if role is None else Account(f"{role}1", role, "2026-01-01")
        scope = {ACCOUNT_SCOPE_KEY: account} if account else {}
        context = SimpleNamespace(
            request_context=SimpleNamespace(request=SimpleNamespace(scope=scope))
        )
        return anyio.run(server.call_tool, tool, arguments, context)

    calls = [  # (tool, arguments, role): per action for the tools whose role is per action
        (tool, {"action": action} if tool in MCP_ACTIONS else {}, needed)
        for tool, (tool_needs, _) in sorted(MCP_TOOLS.items())
        for action, (needed, _) in (
            MCP_ACTIONS[tool].items() if tool in MCP_ACTIONS else [("", (tool_needs, ""))]
        )
    ]
    assert ("research_alerts", {"action": "run"}, "writer") in calls
    assert ("research_alerts", {"action": "list"}, "reader") in calls
    for tool, arguments, needed in calls:
        ran.clear()
        audits.clear()
        lower = below(needed)
        refused = call(tool, None if lower == "none" else lower, arguments)
        assert refused.is_error and ran == [], (tool, arguments)
        code = refused.content[0].text.split(":", 1)[0]
        assert code == ("unauthorized" if lower == "none" else "forbidden"), (tool, code)
        if arguments and lower != "none":
            assert f"with action {arguments['action']!r}" in refused.content[0].text
        assert not call(tool, needed, arguments).is_error and ran == [tool], tool
        target = " ".join(f"{k}={v}" for k, v in arguments.items())
        expected = [] if needed == "reader" else [(f"{needed}1", tool, target, "mcp")]
        assert audits == expected, (tool, arguments)
        for higher in ORDER[ORDER.index(needed) + 1 :]:
            assert not call(tool, higher, arguments).is_error, (tool, higher)


def test_audit_target_leaves_payloads_out() -> None:
    target = audit_target({"ids": ["w1"], "data": "QUJD" * 1000, "upload_id": "u"})
    assert target == "ids=['w1'] upload_id=u"


# -- the guard as ASGI -------------------------------------------------------------------
READER = Account("rita", "reader", "2026-01-01T00:00:00+00:00")


def _guard(limiter: RateLimiter | None = None) -> tuple[HttpGuard, list[Any]]:
    seen: list[Any] = []

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        seen.append(scope.get(ACCOUNT_SCOPE_KEY))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard = HttpGuard(
        app,
        token="the-single-token",
        authenticate=lambda token: READER if token == "good.token" else None,
        limiter=limiter,
    )
    return guard, seen


def _post(guard: HttpGuard, **headers: str) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=guard)
        async with httpx.AsyncClient(transport=transport, base_url="http://0.0.0.0:8000") as c:
            return await c.post("/mcp", headers=headers)

    return anyio.run(go)


def test_accounts_guard_needs_an_account_token() -> None:
    guard, seen = _guard()
    assert _post(guard).status_code == 401
    assert _post(guard, Authorization="Bearer bad.token").status_code == 401
    single = _post(guard, Authorization="Bearer the-single-token")
    assert single.status_code == 401  # accounts mode replaces the single token
    assert single.headers["www-authenticate"].startswith("Bearer")
    assert _post(guard, Authorization="Basic good.token").status_code == 401
    assert seen == []
    assert _post(guard, Authorization="Bearer good.token").status_code == 200
    assert seen == [READER]


def test_accounts_guard_limits_requests_per_account() -> None:
    now = [100.0]
    guard, seen = _guard(RateLimiter(per_minute=2, clock=lambda: now[0]))
    auth = {"Authorization": "Bearer good.token"}
    assert [_post(guard, **auth).status_code for _ in range(2)] == [200, 200]
    refused = _post(guard, **auth)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
    assert refused.text.startswith("rate_limited")
    now[0] += 61
    assert _post(guard, **auth).status_code == 200
    assert len(seen) == 3


def test_rate_limiter_is_per_account() -> None:
    limiter = RateLimiter(per_minute=1, clock=lambda: 0.0)
    assert limiter.check("a") == 0 and limiter.check("b") == 0
    assert limiter.check("a") == 60


def test_upload_bytes_per_hour_per_account() -> None:
    now = [0.0]
    limiter = RateLimiter(per_minute=100, upload_bytes_per_hour=1000, clock=lambda: now[0])
    assert limiter.check("a", 600) == 0 and limiter.check("b", 600) == 0
    now[0] = 10.0
    assert limiter.check("a", 600) == 3590  # until the first 600 bytes leave the hour
    assert limiter.check("a", 400) == 0 and limiter.check("a") == 0  # a GET costs no bytes
    assert limiter.check("c", 5000) == 3600  # one body over the whole budget
    now[0] = 3601.0
    assert limiter.check("a", 600) == 0


def test_accounts_guard_counts_bodies_and_refuses_chunked_ones() -> None:
    guard, seen = _guard(RateLimiter(per_minute=100, upload_bytes_per_hour=10))
    auth = {"Authorization": "Bearer good.token"}

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=guard)
        async with httpx.AsyncClient(transport=transport, base_url="http://0.0.0.0:8000") as c:

            async def pieces():  # type: ignore[no-untyped-def]
                yield b"12345"

            return [
                await c.post("/mcp", headers=auth, content=b"0123456789"),
                await c.post("/mcp", headers=auth, content=b"x"),
                await c.post("/mcp", headers=auth, content=pieces()),
            ]

    fits, over, chunked = anyio.run(go)
    assert fits.status_code == 200
    assert over.status_code == 429 and over.text.startswith("rate_limited")
    assert chunked.status_code == 411
    assert len(seen) == 1


def test_banner_names_accounts_mode() -> None:
    lines = Exposure(host="0.0.0.0", remote=True, token=None, accounts=True).banner(8000, "/mcp")
    assert any("accounts mode" in line for line in lines)
    assert not any("generated token" in line for line in lines)


# -- a real server with accounts ---------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return sock.getsockname()[1]


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


@pytest.fixture
def accounts_server(data_dir: Path, settings: Any) -> Iterator[tuple[str, dict[str, str], str]]:
    """(URL, {role: token}, stderr) of a server on 0.0.0.0 over a library with accounts,
    on each engine."""
    with Library.open(settings, embedder=FakeEmbedder()) as library:
        tokens = {role: library.add_account(f"{role}1", role) for role in ("reader", "writer")}
        tokens["admin"] = library.add_account("admin1", "admin")
        tokens["revoked"] = library.add_account("gone", "writer")
        library.revoke_account("gone")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update(
        {
            "PRIORIS_MCP_DATA_DIR": str(data_dir),
            "PRIORIS_MCP_HTTP_TOKEN": "single-token-of-some-length",
        }
    )
    env["PRIORIS_MCP_ENRICH"] = "off"
    if settings.db_url:
        env["PRIORIS_MCP_DB"] = settings.db_url
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "prioris", "serve", "--transport", "http"),
            *("--host", "0.0.0.0", "--port", str(port), "--allow-remote"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 90
        while not any("accounts mode" in line for line in lines):
            line = proc.stderr.readline()
            if not line or time.monotonic() > deadline:
                raise AssertionError("no accounts-mode banner: " + "".join(lines))
            lines.append(line)
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", tokens, "".join(lines)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


async def _calls(url: str, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as h:
        transport = streamable_http_client(url, http_client=h)
        async with Client(transport, read_timeout_seconds=60) as client:  # type: ignore[arg-type]
            return [await client.call_tool(name, args) for name, args in calls]


def test_clients_with_different_tokens(
    accounts_server: tuple[str, dict[str, str], str], settings: Any
) -> None:
    url, tokens, stderr = accounts_server
    assert "generated token" not in stderr
    with httpx.Client(timeout=60) as http:
        accept = {"Accept": "application/json, text/event-stream"}
        for bad in (None, "single-token-of-some-length", tokens["revoked"], tokens["reader"] + "x"):
            headers = {**accept, **({"Authorization": f"Bearer {bad}"} if bad else {})}
            assert http.post(url, json={}, headers=headers).status_code == 401, bad

    dismiss = ("research_dismiss_candidate", {"key": "doi:10.1/x"})
    reader = anyio.run(_calls, url, tokens["reader"], [("research_list_fetched", {}), dismiss])
    assert data(reader[0])["total"] == 0
    assert error(reader[1]).startswith("forbidden: account 'reader1' (reader)")
    with Library.open(settings, embedder=FakeEmbedder()) as library:
        assert library.conn.execute("SELECT COUNT(*) FROM snowball_dismissed").fetchone()[0] == 0
        assert library.audit() == []

    writer = anyio.run(_calls, url, tokens["writer"], [dismiss])
    assert not writer[0].is_error, writer[0]
    admin = anyio.run(_calls, url, tokens["admin"], [("research_list_fetched", {})])
    assert data(admin[0])["total"] == 0
    with Library.open(settings, embedder=FakeEmbedder()) as library:
        assert library.conn.execute("SELECT COUNT(*) FROM snowball_dismissed").fetchone()[0] == 1
        entries = library.audit()
    assert len(entries) == 1  # reads are not audited
    assert entries[0]["account"] == "writer1"
    assert entries[0]["action"] == "research_dismiss_candidate"
    assert "key=doi:10.1/x" in entries[0]["target"] and entries[0]["detail"] == "mcp"
