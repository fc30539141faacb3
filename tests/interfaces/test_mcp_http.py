"""The streamable HTTP transport on loopback: a real ``prioris serve --transport http``
process, a tool call through the SDK client, and the CORS allowlist."""

from __future__ import annotations

import base64
import json
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
import pytest
from mcp import Client

from interfaces.mcp_helpers import data
from prioris.interfaces.mcp_server import cors_allowed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_server(data_dir: Path) -> Iterator[str]:
    yield from _serve(data_dir, {"PRIORIS_MCP_CORS_ORIGINS": "https://app.example"})


@pytest.fixture
def small_limit_server(data_dir: Path) -> Iterator[str]:
    """A server whose files may be at most 1000 bytes."""
    yield from _serve(data_dir, {"PRIORIS_MCP_MAX_FILE_BYTES": "1000"})


def _serve(data_dir: Path, settings: dict[str, str]) -> Iterator[str]:
    """A real ``prioris serve --transport http`` on a free loopback port, stopped after."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update({"PRIORIS_MCP_DATA_DIR": str(data_dir), **settings})
    proc = subprocess.Popen(
        [sys.executable, "-m", "prioris", "serve", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    stderr = proc.communicate(timeout=5)[1] or b""
                    raise AssertionError(f"server did not start: {stderr.decode()}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_tool_call_over_streamable_http(http_server: str) -> None:
    async def main() -> dict:
        with anyio.fail_after(60):
            async with Client(f"{http_server}/mcp", read_timeout_seconds=30) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                assert "research_search_fetched" in names
                return data(await client.call_tool("research_list_fetched", {}))

    listed = anyio.run(main)
    assert listed == {"entries": [], "total": 0, "offset": 0, "limit": 50, "results": []}


def test_cors_grants_only_localhost_and_listed_origins(http_server: str) -> None:
    def preflight(origin: str) -> httpx.Response:
        return httpx.options(
            f"{http_server}/mcp",
            timeout=10,
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, mcp-session-id",
            },
        )

    evil = preflight("https://evil.example")
    assert "access-control-allow-origin" not in evil.headers
    local = preflight("http://localhost:3000")
    assert local.status_code == 200
    assert local.headers["access-control-allow-origin"] == "http://localhost:3000"
    listed = preflight("https://app.example")
    assert listed.headers["access-control-allow-origin"] == "https://app.example"
    # a cross-site POST is refused by the transport too, not only by the browser
    post = httpx.post(
        f"{http_server}/mcp",
        timeout=10,
        json={},
        headers={"Origin": "https://evil.example", "Accept": "application/json, text/event-stream"},
    )
    assert post.status_code == 403
    assert "access-control-allow-origin" not in post.headers


def test_cors_allowed_rule() -> None:
    assert cors_allowed("http://127.0.0.1:8080") and cors_allowed("https://localhost")
    assert cors_allowed("http://[::1]:5173")
    assert not cors_allowed("http://localhost.evil.example")
    assert not cors_allowed("https://evil.example")
    assert cors_allowed("https://app.example", ("https://app.example",))


def _rpc_result(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a reply, sent as JSON or as one server-sent event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        lines = [x for x in response.text.splitlines() if x.startswith("data:")]
        return json.loads(lines[-1][5:])
    return response.json()


def test_a_chunked_upload_over_the_limit_is_refused_and_nothing_kept(
    small_limit_server: str, data_dir: Path
) -> None:
    """A tools/call whose body comes chunked (no Content-Length) carrying a file over the
    limit: file_too_large, and neither a work nor an upload part stays behind."""
    url = f"{small_limit_server}/mcp"
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=60, headers=headers) as client:
        init = client.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "chunked-test", "version": "0"},
                },
            },
        )
        assert init.status_code == 200, init.text
        session = {"mcp-session-id": init.headers["mcp-session-id"]}
        version = _rpc_result(init)["result"]["protocolVersion"]
        session["mcp-protocol-version"] = version
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert client.post(url, json=note, headers=session).status_code == 202

        def call(tool: str, arguments: dict[str, Any], number: int) -> httpx.Response:
            message = {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
            body = json.dumps(message).encode()
            pieces = (body[i : i + 512] for i in range(0, len(body), 512))
            return client.post(
                url, content=pieces, headers={**session, "Content-Type": "application/json"}
            )

        pdf = b"%PDF-1.7\n" + b"0" * 5000
        refused = call(
            "research_localfile_fetch_full_text",
            {"content_base64": base64.b64encode(pdf).decode(), "filename": "big.pdf"},
            2,
        )
        assert "content-length" not in refused.request.headers
        assert refused.request.headers["transfer-encoding"] == "chunked"
        assert refused.status_code == 200, refused.text
        result = _rpc_result(refused)["result"]
        assert result["isError"] and result["content"][0]["text"].startswith("file_too_large:")
        listed = _rpc_result(call("research_list_fetched", {}, 3))["result"]
        assert listed["structuredContent"]["total"] == 0  # nothing stored
    uploads = list(data_dir.glob("uploads/**/*"))
    assert [p for p in uploads if p.is_file()] == []  # and no part of it kept


def test_a_pdf_larger_than_the_sdks_default_body_limit_is_ingested(http_server: str) -> None:
    """The MCP SDK refuses request bodies past 4 MiB unless told otherwise; a 5 MB PDF (7
    MB as base64) is well inside the file limit and must be ingested over HTTP."""
    import pymupdf as fitz

    doc = fitz.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Sphagnum peat stores carbon for millennia.")
    doc.embfile_add("data.bin", os.urandom(5_000_000))  # incompressible bulk
    pdf = doc.tobytes()
    doc.close()
    assert len(base64.b64encode(pdf)) > 4 * 1024 * 1024

    async def upload() -> dict[str, Any]:
        with anyio.fail_after(120):
            async with Client(f"{http_server}/mcp", read_timeout_seconds=90) as client:
                result = await client.call_tool(
                    "research_localfile_fetch_full_text",
                    {"content_base64": base64.b64encode(pdf).decode(), "filename": "big.pdf"},
                )
                assert not result.is_error, result.content
                return data(await client.call_tool("research_list_fetched", {}))

    listed = anyio.run(upload)
    assert listed["total"] == 1


def test_a_chunked_body_far_past_any_limit_is_refused_while_it_arrives(
    small_limit_server: str,
) -> None:
    """1 MiB of JSON, chunked, to a server whose files may be 1000 bytes: a 413 before the
    body is read whole, as the web app's uploads do."""
    pieces = b'{"padding": "' + b"x" * 1024 * 1024 + b'"}'
    response = httpx.post(
        f"{small_limit_server}/mcp",
        content=(pieces[i : i + 4096] for i in range(0, len(pieces), 4096)),
        headers={
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        timeout=60,
    )
    assert response.status_code == 413, (response.status_code, response.text[:200])
