"""``prioris serve`` start and stop, for real: uploads live beside the library, stale parts
are removed at start, and SIGTERM shuts down cleanly (no ``.part`` file left behind)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import anyio
from mcp import Client

STALE_AGE = 2 * 3600  # seconds: older than any idle timeout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env["PRIORIS_MCP_DATA_DIR"] = str(data_dir)
    return env


def _wait_port(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                stderr = proc.communicate(timeout=5)[1] or b""
                raise AssertionError(f"server did not start: {stderr.decode()}") from None
            time.sleep(0.1)


def _stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
        raise AssertionError("serve did not stop within 30 s of SIGTERM") from None


def _parts(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.part")) if folder.exists() else []


def test_http_uploads_beside_the_library_and_sigterm_cleans_up(tmp_path: Path) -> None:
    data_dir, library_dir = tmp_path / "data", tmp_path / "elsewhere"
    uploads = library_dir / "uploads"
    uploads.mkdir(parents=True)
    stale, fresh = uploads / "upload-0000stale.part", uploads / "upload-0000fresh.part"
    stale.write_bytes(b"left by a killed server")
    fresh.write_bytes(b"maybe another live server's")
    old = time.time() - STALE_AGE
    os.utime(stale, (old, old))
    port = _free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "prioris", "--db", str(library_dir / "lib.sqlite")),
            *("serve", "--transport", "http", "--port", str(port)),
        ],
        env=_env(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_port(proc, port)
        assert _parts(uploads) == [fresh.name]  # the stale part went at start, before any call

        async def begin() -> None:
            with anyio.fail_after(60):
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    result = await client.call_tool("research_localfile_begin_upload", {})
                    assert not result.is_error, result

        anyio.run(begin)
        assert len(_parts(uploads)) == 2  # our session's part, beside the library
        assert not (data_dir / "uploads").exists()
    finally:
        code = _stop(proc)
    stderr = (proc.stderr.read() if proc.stderr else b"").decode()
    assert "Traceback" not in stderr, stderr
    assert code == 0, stderr
    assert _parts(uploads) == [fresh.name]  # ours removed on SIGTERM; not another's


def _rpc(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write((json.dumps(message) + "\n").encode())
    stream.flush()


def _read_reply(stream: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stream.readline()
        if not line:
            raise AssertionError("the server closed stdout")
        message = json.loads(line)
        if message.get("id") == request_id:
            return message


def test_stdio_sigterm_cleans_up(tmp_path: Path) -> None:
    """What desktop clients do on quit: SIGTERM to the stdio server."""
    data_dir = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "prioris", "serve"],
        env=_env(data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        _rpc(
            proc.stdin,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            },
        )
        assert "result" in _read_reply(proc.stdout, 1)
        _rpc(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _rpc(
            proc.stdin,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "research_localfile_begin_upload", "arguments": {}},
            },
        )
        reply = _read_reply(proc.stdout, 2)
        assert not reply["result"].get("isError"), reply
        assert len(_parts(data_dir / "uploads")) == 1
    finally:
        code = _stop(proc)
    stderr = (proc.stderr.read() if proc.stderr else b"").decode()
    assert "Traceback" not in stderr, stderr
    assert code == 0, stderr
    assert _parts(data_dir / "uploads") == []


def test_http_on_a_busy_port_says_so_in_one_line_before_any_banner(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [
                *(sys.executable, "-m", "prioris", "--db", str(tmp_path / "lib.sqlite")),
                *("serve", "--transport", "http", "--port", str(port)),
            ],
            env=_env(tmp_path / "data"),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"error [configuration_error]: cannot listen on 127.0.0.1:{port} (Address already in "
        "use); pass another --port or set PRIORIS_MCP_PORT"
    ], done.stderr
