"""The web app's request guards and body bounds, exercised directly (no server).

The end-to-end tests (test_web_app.py) send real requests through the app; these pin the
exact edges those cannot reach cheaply: a body of exactly the limit, a declared length
that is not a number, the host names of IPv6 and ports, and each refusal's status.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request

from prioris.errors import FileTooLargeError, InvalidRequestError
from prioris.interfaces.web.security import (
    CSP,
    SECURITY_HEADERS,
    SecurityMiddleware,
    host_name,
    new_csrf_token,
    read_body,
    read_json,
    save_body,
)

TOKEN = "t0ken"


def _request(pieces: list[bytes], *, declared: int | str | None = None) -> Request:
    """A POST whose body arrives in ``pieces``, with a Content-Length when ``declared``."""
    headers = [] if declared is None else [(b"content-length", str(declared).encode())]
    queue = list(pieces) or [b""]

    async def receive() -> dict[str, Any]:
        body = queue.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(queue)}

    scope = {"type": "http", "method": "POST", "headers": headers, "path": "/", "query_string": b""}
    return Request(scope, receive)


def _run(step: Awaitable[Any]) -> Any:
    """``asyncio.run``, in a thread of its own when an event loop already runs in this one
    (pytest-playwright's session keeps one running once a browser test has run)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(step)  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, step).result()  # type: ignore[arg-type]


def test_host_names_without_their_port() -> None:
    assert host_name("127.0.0.1:8765") == "127.0.0.1"
    assert host_name(" LocalHost:9 ") == "localhost"
    assert host_name("[::1]:8765") == "[::1]"
    assert host_name("[::1]") == "[::1]"
    assert host_name("[::1") == "[::1"  # no closing bracket: left as it is
    assert host_name("::1") == "::1"  # several colons and no brackets: not a port
    assert host_name("localhost") == "localhost"


def test_each_refusal_and_its_status() -> None:
    guard = SecurityMiddleware(app=None, csrf_token=TOKEN)  # type: ignore[arg-type]
    ok = {"host": "127.0.0.1:8765", "x-csrf-token": TOKEN}
    assert guard.refusal("GET", {"host": "evil.example"}) == (
        421,
        "invalid_request",
        "this app answers only on 127.0.0.1 or localhost",
    )
    assert guard.refusal("GET", {}) is not None  # no Host at all
    for method in ("GET", "head", "OPTIONS"):  # reading needs no token
        assert guard.refusal(method, {"host": "localhost"}) is None
    assert guard.refusal("POST", ok) is None
    assert guard.refusal("POST", {**ok, "origin": "HTTP://127.0.0.1:8765"}) is None
    # a host name in letters, any case, is its own origin (over http and https)
    for origin in ("http://localhost:8765", "https://localhost:8765"):
        own = {**ok, "host": "LocalHost:8765", "origin": origin}
        assert guard.refusal("POST", own) is None
    assert guard.refusal("POST", {**ok, "origin": "http://127.0.0.1:9999"}) == (
        403,
        "invalid_request",
        "cross-site request refused",
    )
    assert guard.refusal("POST", {**ok, "sec-fetch-site": "same-origin"}) is None
    assert guard.refusal("POST", {**ok, "sec-fetch-site": "none"}) is None
    assert guard.refusal("POST", {**ok, "sec-fetch-site": "same-site"}) == (
        403,
        "invalid_request",
        "cross-site request refused",
    )
    for token in ("", "guess", TOKEN + "x"):
        assert guard.refusal("POST", {**ok, "x-csrf-token": token}) == (
            403,
            "invalid_request",
            "missing or wrong CSRF token; reload the page",
        )
    assert guard.refusal("DELETE", {"host": "localhost"}) is not None  # no token at all


def _call(guard: SecurityMiddleware, scope: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    _run(guard(scope, receive, send))
    return sent


def _answering(calls: list[str]) -> Callable[..., Awaitable[None]]:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        calls.append(scope["type"])
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"a", b"b")]})
            await send({"type": "http.response.body", "body": b"ok"})

    return app


def test_the_middleware_refuses_with_json_and_adds_headers_to_answers() -> None:
    calls: list[str] = []
    guard = SecurityMiddleware(_answering(calls), csrf_token=TOKEN)
    base = {"type": "http", "method": "GET", "path": "/", "query_string": b""}
    refused = _call(guard, {**base, "headers": [(b"host", b"evil.example")]})
    assert calls == []  # the app never saw it
    start, body = refused
    assert (start["type"], body["type"]) == ("http.response.start", "http.response.body")
    assert start["status"] == 421
    headers = dict(start["headers"])
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"content-length"] == str(len(body["body"])).encode()
    assert headers[b"content-security-policy"] == CSP.encode()
    assert body["body"] == (
        b'{"error": {"code": "invalid_request", "message": '
        b'"this app answers only on 127.0.0.1 or localhost"}}'
    )
    answered = _call(guard, {**base, "headers": [(b"host", b"localhost:1")]})
    assert calls == ["http"]
    headers = dict(answered[0]["headers"])
    assert headers[b"a"] == b"b"  # the app's own headers kept
    assert headers[b"x-frame-options"] == b"DENY"
    assert headers[b"referrer-policy"] == b"no-referrer"
    assert answered[1]["body"] == b"ok"
    _call(guard, {"type": "lifespan"})  # not HTTP: passed through untouched
    assert calls == ["http", "lifespan"]


def test_the_headers_are_added_to_an_answer_that_declares_none() -> None:
    """ASGI makes a response start's ``headers`` optional: an app leaving them out still
    gets the security headers (and its answer through)."""

    async def bare(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 204})
        await send({"type": "http.response.body", "body": b""})

    guard = SecurityMiddleware(bare, csrf_token=TOKEN)
    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b""}
    start, _ = _call(guard, {**scope, "headers": [(b"host", b"127.0.0.1:8765")]})
    assert start["status"] == 204
    assert start["headers"] == SECURITY_HEADERS


def test_csrf_tokens_are_long_and_new_each_time() -> None:
    first, second = new_csrf_token(), new_csrf_token()
    assert first != second
    # 32 random bytes (256 bits), URL-safe base64 without padding: 43 characters
    assert len(base64.urlsafe_b64decode(first + "=")) == 32 and len(first) == 43


def test_a_body_of_exactly_the_limit_is_read_one_byte_more_is_not() -> None:
    assert _run(read_body(_request([b"abc", b"de"]), 5)) == b"abcde"
    assert _run(read_body(_request([b"abcde"], declared=5), 5)) == b"abcde"
    with pytest.raises(FileTooLargeError) as streamed:
        _run(read_body(_request([b"abc", b"def"]), 5, "the file"))
    assert streamed.value.message == (
        "the file is over the limit of 5 bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
    )
    with pytest.raises(FileTooLargeError) as declared:  # refused before any byte is read
        _run(read_body(_request([b"x"], declared=6), 5, "the file"))
    assert declared.value.message == (
        "the file is 6 bytes, over the limit of 5 bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
    )
    with pytest.raises(FileTooLargeError) as unnamed:  # the body's name by default
        _run(read_body(_request([b"abcdef"]), 5))
    assert unnamed.value.message.startswith("the request is over the limit of 5 bytes")
    with pytest.raises(InvalidRequestError) as invalid:
        _run(read_body(_request([b"x"], declared="lots"), 5))
    assert invalid.value.message == "invalid Content-Length"


def test_json_bodies() -> None:
    assert _run(read_json(_request([b'{"a": ', b"1}"]))) == {"a": 1}
    assert _run(read_json(_request([]))) == {}  # no body: no fields
    with pytest.raises(InvalidRequestError) as not_json:
        _run(read_json(_request([b"{nope"])))
    assert not_json.value.message == "the request body is not JSON"
    with pytest.raises(InvalidRequestError) as not_object:
        _run(read_json(_request([b"[1, 2]"])))
    assert not_object.value.message == "the request body must be a JSON object"
    with pytest.raises(FileTooLargeError, match="the request is over the limit of 4 bytes"):
        _run(read_json(_request([b'{"a": 1}']), limit=4))


def test_save_body_streams_to_the_file_and_deletes_it_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "upload.bin"
    assert _run(save_body(_request([b"ab", b"cd", b"e"]), path, 5)) == 5
    assert path.read_bytes() == b"abcde"
    with pytest.raises(FileTooLargeError) as caught:
        _run(save_body(_request([b"abc", b"def"]), path, 5))
    assert caught.value.message == (
        "the upload is over the limit of 5 bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
    )
    assert not path.exists()  # the part written so far is gone
    with pytest.raises(FileTooLargeError) as declared:
        _run(save_body(_request([b"x"], declared=9), path, 5))
    assert declared.value.message.startswith("the upload is 9 bytes, over the limit of 5")
    assert not path.exists()
