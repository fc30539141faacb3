"""The HTTP transport off loopback: explicit opt-in, bearer token, Origin allowlist, warning.

The guard is tested as ASGI (httpx.ASGITransport, no socket), then a real ``prioris serve``
bound to 0.0.0.0 is reached over loopback: the non-loopback code path, for real.
"""

from __future__ import annotations

import hmac
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import ConfigurationError
from prioris.interfaces.http_guard import HttpGuard, is_loopback, plan_exposure, token_matches

TOKEN = "s3cret-token-of-some-length"


# -- bind policy --------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.8.9.10"])
def test_loopback_needs_nothing(host: str) -> None:
    exposure = plan_exposure(load_settings({}), host)
    assert is_loopback(host) and not exposure.remote and exposure.token is None
    assert not any("WARNING" in line for line in exposure.banner(8000, "/mcp"))


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "my-host.example"])
def test_other_hosts_need_the_opt_in(host: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        plan_exposure(load_settings({}), host)
    assert "--allow-remote" in info.value.message
    assert "PRIORIS_MCP_HTTP_ALLOW_REMOTE" in info.value.message


def test_opt_in_by_flag_generates_a_token_and_warns() -> None:
    exposure = plan_exposure(load_settings({}), "0.0.0.0", allow_remote=True)
    assert exposure.remote and exposure.token_generated
    assert exposure.token and len(exposure.token) >= 40
    other = plan_exposure(load_settings({}), "0.0.0.0", allow_remote=True)
    assert other.token != exposure.token  # random each start
    banner = "\n".join(exposure.banner(8000, "/mcp"))
    assert "WARNING" in banner and exposure.token in banner and "docs/security.md" in banner


def test_opt_in_by_setting_with_a_given_token_never_prints_it() -> None:
    settings = load_settings(
        {"PRIORIS_MCP_HTTP_ALLOW_REMOTE": "1", "PRIORIS_MCP_HTTP_TOKEN": TOKEN}
    )
    exposure = plan_exposure(settings, "0.0.0.0")
    assert exposure.token == TOKEN and not exposure.token_generated
    assert TOKEN not in "\n".join(exposure.banner(8000, "/mcp"))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PRIORIS_MCP_HTTP_TOKEN", "short"),
        ("PRIORIS_MCP_HTTP_TOKEN", "has a space in the middle!!"),
        ("PRIORIS_MCP_HTTP_ALLOW_REMOTE", "maybe"),
    ],
)
def test_bad_settings_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigurationError, match=name):
        load_settings({name: value})


def test_token_comparison_is_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    assert token_matches(TOKEN, TOKEN) and not token_matches(TOKEN[:-1] + "x", TOKEN)
    assert len(calls) == 2


# -- the guard as ASGI ----------------------------------------------------------------------
async def _inner(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"reached"})


def _request(guard: HttpGuard, method: str = "POST", **headers: str) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=guard)
        async with httpx.AsyncClient(transport=transport, base_url="http://0.0.0.0:8000") as c:
            return await c.request(method, "/mcp", headers=headers)

    return anyio.run(go)


def test_guard_requires_the_bearer_token() -> None:
    guard = HttpGuard(_inner, token=TOKEN)
    missing = _request(guard)
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    assert _request(guard, authorization=f"Bearer {TOKEN}x").status_code == 401
    assert _request(guard, authorization=f"Basic {TOKEN}").status_code == 401
    assert _request(guard, authorization=TOKEN).status_code == 401
    ok = _request(guard, authorization=f"Bearer {TOKEN}")
    assert ok.status_code == 200 and ok.text == "reached"
    assert _request(guard, authorization=f"bearer  {TOKEN} ").status_code == 200
    assert _request(guard, "OPTIONS").status_code == 200  # preflights carry no credentials


def test_guard_keeps_the_origin_allowlist() -> None:
    guard = HttpGuard(_inner, token=TOKEN, extra_origins=("https://app.example",))
    auth = f"Bearer {TOKEN}"
    assert _request(guard, authorization=auth, origin="https://evil.example").status_code == 403
    assert _request(guard, "OPTIONS", origin="https://evil.example").status_code == 403
    assert _request(guard, authorization=auth, origin="https://app.example").status_code == 200
    assert _request(guard, authorization=auth, origin="http://localhost:5173").status_code == 200
    no_token = HttpGuard(_inner, token=None)  # loopback default: Origin still checked
    assert _request(no_token, origin="https://evil.example").status_code == 403
    assert _request(no_token).status_code == 200


# -- a real server bound to 0.0.0.0 ---------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return sock.getsockname()[1]


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update({"PRIORIS_MCP_DATA_DIR": str(data_dir), **extra})
    return env


def test_remote_bind_without_opt_in_is_a_clear_error(data_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "prioris", "serve", "--transport", "http", "--host", "0.0.0.0"],
        env=_env(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error [configuration_error]: binding the HTTP transport")
    assert "Traceback" not in result.stderr


@pytest.fixture
def remote_server(data_dir: Path) -> Iterator[tuple[str, str, str]]:
    """(base URL over loopback, generated token, stderr so far) of a server on 0.0.0.0."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "prioris", "serve", "--transport", "http"),
            *("--host", "0.0.0.0", "--port", str(port), "--allow-remote"),
        ],
        env=_env(data_dir, PRIORIS_MCP_CORS_ORIGINS="https://app.example"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 60
        while not any("generated token" in line for line in lines):
            line = proc.stderr.readline()
            if not line or time.monotonic() > deadline:
                raise AssertionError("no token printed: " + "".join(lines))
            lines.append(line)
        token = lines[-1].rsplit(": ", 1)[1].strip()
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", token, "".join(lines)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = "application/json, text/event-stream"


def _json_of(response: httpx.Response) -> dict:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [ln[5:].strip() for ln in response.text.splitlines() if ln.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def test_remote_server_needs_the_token_and_keeps_origin_checks(
    remote_server: tuple[str, str, str],
) -> None:
    base, token, stderr = remote_server
    assert "WARNING: listening on 0.0.0.0" in stderr
    with httpx.Client(base_url=base, timeout=30, headers={"Accept": ACCEPT}) as http:
        refused = http.post("/mcp", json=INITIALIZE)
        assert refused.status_code == 401
        wrong = http.post("/mcp", json=INITIALIZE, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        evil = http.post(
            "/mcp", json=INITIALIZE, headers={**auth, "Origin": "https://evil.example"}
        )
        assert evil.status_code == 403
        # reached under a name the server was not bound to: the token, not Host, decides
        ok = http.post("/mcp", json=INITIALIZE, headers={**auth, "Host": "prioris.lan:443"})
        assert ok.status_code == 200, ok.text
        assert _json_of(ok)["result"]["serverInfo"]["name"] == "prioris"
        listed = http.post(
            "/mcp",
            json=INITIALIZE,
            headers={**auth, "Origin": "https://app.example"},
        )
        assert listed.status_code == 200


def _echo_app() -> tuple[HttpGuard, list[int]]:
    """A guarded app that reads its whole body and answers its length."""
    read: list[int] = []

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        read.append(len(body))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(len(body)).encode()})

    return HttpGuard(app, token=None, max_body_bytes=1000), read


def test_a_request_body_past_the_limit_is_refused_declared_or_chunked() -> None:
    from prioris.interfaces.http_guard import request_body_limit

    guard, read = _echo_app()
    transport = httpx.ASGITransport(app=guard)

    async def calls() -> list[httpx.Response]:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            small = await c.post("/", content=b"x" * 1000)
            declared = await c.post("/", content=b"x" * 1001)

            async def pieces():  # type: ignore[no-untyped-def]
                for _ in range(100):
                    yield b"y" * 100

            chunked = await c.post("/", content=pieces())
            return [small, declared, chunked]

    small, declared, chunked = anyio.run(calls)
    assert small.status_code == 200 and small.text == "1000"
    assert declared.status_code == 413 and "file_too_large" in declared.text
    assert chunked.status_code == 413
    assert read == [1000]  # the app never saw a body past the limit
    # an upload of the largest file, base64 in JSON, fits the limit the server sets
    assert request_body_limit(3000) >= 4000 + 1024
