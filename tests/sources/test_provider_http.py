"""ProviderHttp: spacing, 429 backoff, error mapping; FakeClock so nothing really sleeps."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import (
    FileTooLargeError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitedError,
)
from prioris.sources.http import USER_AGENT, ProviderHttp, _parse_retry_after, make_client


class FakeClock:
    """Time advances only when the code under test sleeps (or the test says so)."""

    def __init__(self, *, advance: bool = True) -> None:
        self.now = 1000.0
        self.advance = advance
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            if self.advance:
                self.now += seconds


def _http(
    handler: Callable[[httpx.Request], httpx.Response],
    *,
    clock: FakeClock | None = None,
    min_interval: float = 0.0,
    budget: float = 60.0,
) -> ProviderHttp:
    client = make_client(load_settings(), httpx.MockTransport(handler))
    return ProviderHttp(
        "arxiv",
        client,
        min_interval=min_interval,
        backoff_budget=budget,
        clock=clock or FakeClock(),
    )


def test_client_defaults() -> None:
    settings = load_settings({"PRIORIS_MCP_HTTP_TIMEOUT_SECONDS": "7"})
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(302, headers={"Location": "https://elsewhere.example/"})

    client = make_client(settings, httpx.MockTransport(handler))
    assert client.timeout.read == 7
    assert client.follow_redirects is False
    response = client.get("https://arxiv.org/x")
    assert response.status_code == 302 and len(seen) == 1  # redirect not followed
    assert seen[0].headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith("Prioris/")


def test_429_then_200_honours_retry_after() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            return httpx.Response(429, headers={"Retry-After": "2"})
        return httpx.Response(200, json={"ok": True})

    clock = FakeClock()
    http = _http(handler, clock=clock)
    assert http.get_json("https://api.example/q", params={"a": 1}) == {"ok": True}
    assert len(calls) == 3
    assert clock.sleeps == [2.0, 2.0]


def test_429_exponential_backoff_without_retry_after() -> None:
    responses = iter([429, 429, 429, 200])

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(responses), text="x")

    clock = FakeClock()
    _http(handler, clock=clock).get("https://api.example/q")
    assert clock.sleeps == [1.0, 2.0, 4.0]


def test_429_until_budget_spent_raises_rate_limited() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(429)

    clock = FakeClock()
    http = _http(handler, clock=clock, budget=10.0)
    with pytest.raises(RateLimitedError) as info:
        http.get("https://api.example/q?api_key=SECRET")
    assert info.value.code == "rate_limited"
    assert "arxiv" in info.value.message and "SECRET" not in info.value.message
    assert sum(clock.sleeps) <= 10.0
    assert clock.sleeps == [1.0, 2.0, 4.0]  # the next (8s) would exceed the budget
    assert len(calls) == 4


def test_retry_after_beyond_budget_fails_at_once() -> None:
    clock = FakeClock()
    http = _http(lambda r: httpx.Response(429, headers={"Retry-After": "3600"}), clock=clock)
    with pytest.raises(RateLimitedError):
        http.get("https://api.example/q")
    assert clock.sleeps == []


def test_retry_after_http_date() -> None:
    from datetime import UTC, datetime

    now = datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert _parse_retry_after("Mon, 01 Jan 2024 12:00:30 GMT", now) == 30.0
    assert _parse_retry_after("5", now) == 5.0
    assert _parse_retry_after("garbage", now) is None
    assert _parse_retry_after(None, now) is None


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (500, ProviderUnavailableError),
        (502, ProviderUnavailableError),
        (503, ProviderUnavailableError),
        (404, NotFoundError),
        (400, InvalidRequestError),
        (403, InvalidRequestError),
        (301, ProviderUnavailableError),
    ],
)
def test_status_mapping(status: int, error: type[Exception]) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(status, text="bad query syntax")

    with pytest.raises(error) as info:
        _http(handler).get("https://api.example/q")
    assert len(calls) == 1  # no retry on anything but 429
    assert "arxiv" in str(info.value)


def test_redirect_returned_when_allowed() -> None:
    http = _http(lambda r: httpx.Response(302, headers={"Location": "https://arxiv.org/abs/1"}))
    response = http.get("https://doi.org/10.1/x", allow_redirect_status=True)
    assert response.headers["Location"] == "https://arxiv.org/abs/1"


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ReadTimeout("slow"),
        httpx.ConnectTimeout("slow"),
        httpx.ConnectError("refused"),
        httpx.RemoteProtocolError("eof"),
    ],
)
def test_transport_failures_become_provider_unavailable(exc: Exception) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise exc

    with pytest.raises(ProviderUnavailableError) as info:
        _http(handler).get("https://api.example/q")
    assert info.value.code == "provider_unavailable"
    assert "arxiv" in info.value.message and type(exc).__name__ in info.value.message
    assert isinstance(info.value.__cause__, httpx.HTTPError)
    assert len(calls) == 1


def test_malformed_json() -> None:
    http = _http(lambda r: httpx.Response(200, text="{not json"))
    with pytest.raises(ProviderUnavailableError, match="malformed JSON"):
        http.get_json("https://api.example/q")


def test_max_bytes_bounds_the_body() -> None:
    http = _http(lambda r: httpx.Response(200, content=b"x" * 5000))
    assert http.get("https://a.example/f", max_bytes=5000).content == b"x" * 5000
    with pytest.raises(FileTooLargeError):
        http.get("https://a.example/f", max_bytes=4999)
    with pytest.raises(NotFoundError):
        _http(lambda r: httpx.Response(404)).get("https://a.example/f", max_bytes=10)


def test_max_bytes_with_a_compressed_body() -> None:
    """A gzip-encoded download comes back decoded, counted after decoding."""
    import gzip

    body = b"%PDF-1.7 " + b"y" * 3000
    wire = gzip.compress(body)
    http = _http(lambda r: httpx.Response(200, content=wire, headers={"Content-Encoding": "gzip"}))
    response = http.get("https://a.example/f.pdf", max_bytes=len(body))
    assert response.content == body
    with pytest.raises(FileTooLargeError):
        http.get("https://a.example/f.pdf", max_bytes=len(body) - 1)


def test_spacing_sequential() -> None:
    clock = FakeClock(advance=True)
    http = _http(lambda r: httpx.Response(200), clock=clock, min_interval=3.0)
    http.get("https://a.example/1")
    assert clock.sleeps == []
    clock.now += 1.0  # the caller did other work for one second
    http.get("https://a.example/2")
    assert clock.sleeps == [2.0]
    clock.now += 10.0
    http.get("https://a.example/3")
    assert clock.sleeps == [2.0]


def test_spacing_holds_under_concurrent_callers() -> None:
    """Time frozen: N threads at once must be spread into slots exactly interval apart."""
    clock = FakeClock(advance=False)
    http = _http(lambda r: httpx.Response(200), clock=clock, min_interval=1.5)
    threads = [
        threading.Thread(target=http.get, args=(f"https://a.example/{i}",)) for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(clock.sleeps) == [1.5 * k for k in range(1, 8)]


def test_real_http_over_loopback() -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/missing"):
                self.send_response(404)
                self.end_headers()
                return
            body = json.dumps({"ua": self.headers["User-Agent"], "path": self.path})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        http = ProviderHttp(
            "europepmc", make_client(load_settings()), min_interval=0, backoff_budget=1
        )
        data = http.get_json(f"{base}/search", params={"query": "a b"})
        assert data["ua"] == USER_AGENT
        assert data["path"] == "/search?query=a+b"
        with pytest.raises(NotFoundError):
            http.get(f"{base}/missing")
    finally:
        server.shutdown()
        server.server_close()


def test_connection_refused_over_loopback() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    server.server_close()  # nothing listens there now
    http = ProviderHttp("arxiv", make_client(load_settings()), min_interval=0, backoff_budget=1)
    with pytest.raises(ProviderUnavailableError, match="could not reach"):
        http.get(f"http://127.0.0.1:{port}/q")


def test_retry_after_edges() -> None:
    from datetime import UTC, datetime

    now = datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert _parse_retry_after("0", now) == 0.0  # no extra wait is invented
    assert _parse_retry_after(" 2.5 ", now) == 2.5
    assert _parse_retry_after("-3", now) == 0.0
    assert _parse_retry_after("Mon, 01 Jan 2024 11:59:00 GMT", now) == 0.0  # in the past
    # a date without a zone ("-0000") is read as UTC
    assert _parse_retry_after("Mon, 01 Jan 2024 12:00:10 -0000", now) == 10.0
    assert _parse_retry_after("", now) is None
    later = _parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT")  # against the real clock
    assert later is not None and later > 10**9


def test_client_settings_and_user_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    from prioris.sources import http as http_module

    client = make_client(load_settings())
    assert client.trust_env is True and client.follow_redirects is False
    assert client.headers["User-Agent"] == USER_AGENT
    assert f"Prioris/{metadata.version('prioris')} (+https://github.com/prioris)" == USER_AGENT

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(http_module.metadata, "version", missing)
    assert http_module._version() == "0.0.0"


def test_system_clock_sleeps_only_for_positive_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    from prioris.sources import http as http_module

    slept: list[float] = []
    monkeypatch.setattr(http_module.time, "sleep", slept.append)
    clock = http_module.SystemClock()
    clock.sleep(0)
    clock.sleep(-1)
    clock.sleep(0.5)
    assert slept == [0.5]
    monkeypatch.setattr(http_module.time, "monotonic", lambda: 1234.5)
    assert clock.monotonic() == 1234.5  # the system's monotonic clock


def test_a_bounded_get_sends_what_a_plain_get_sends_and_checks_the_size() -> None:
    seen: list[httpx.Request] = []
    bodies = {
        "/small": httpx.Response(200, content=b"%PDF-ok"),
        "/declared": httpx.Response(200, content=b"tiny", headers={"Content-Length": "999"}),
        "/streamed": None,  # no Content-Length: counted while streaming
        "/gone": httpx.Response(404, content=b"no"),
    }

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = bodies[request.url.path]
        return answer or httpx.Response(200, content=iter([b"x" * 25, b"x" * 25]))

    http = _http(handler)
    response = http.get(
        "https://files.test/small?key=secret",
        params={"page": "2"},
        headers={"X-Probe": "yes"},
        max_bytes=10,
    )
    assert response.content == b"%PDF-ok" and response.status_code == 200
    request = seen[-1]
    assert request.method == "GET" and request.url.params["page"] == "2"
    assert request.headers["X-Probe"] == "yes" and request.headers["User-Agent"] == USER_AGENT
    with pytest.raises(FileTooLargeError) as info:
        http.get("https://files.test/declared?key=secret", max_bytes=10)
    assert info.value.message == (
        "arxiv: https://files.test/declared is 999 bytes, more than the limit of 10 bytes "
        "(PRIORIS_MCP_MAX_FILE_BYTES)"
    )
    with pytest.raises(FileTooLargeError) as info:
        http.get("https://files.test/streamed", max_bytes=10)
    assert info.value.message == (
        "arxiv: https://files.test/streamed exceeds the limit of 10 bytes "
        "(PRIORIS_MCP_MAX_FILE_BYTES)"
    )
    assert http.get("https://files.test/streamed", max_bytes=50).content == b"x" * 50
    with pytest.raises(NotFoundError):
        http.get("https://files.test/gone", max_bytes=10)


def test_error_messages_name_the_url_and_the_body() -> None:
    answers = {
        "/bad": httpx.Response(400, text="  query syntax: unexpected ')'  "),
        "/empty": httpx.Response(403),
        "/boom": httpx.Response(503),
        "/moved": httpx.Response(301, headers={"Location": "https://elsewhere.test/"}),
        "/pdf": httpx.Response(200, content=b"%PDF-1", headers={"Content-Type": "application/pdf"}),
        "/json": httpx.Response(200, json={"ok": True}),
    }
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers[request.url.path]

    http = _http(handler)
    with pytest.raises(InvalidRequestError) as info:
        http.get("https://api.test/bad?api_key=secret")
    assert info.value.message == (
        "arxiv: request rejected (HTTP 400) by https://api.test/bad: query syntax: unexpected ')'"
    )
    with pytest.raises(InvalidRequestError) as info:
        http.get("https://api.test/empty")
    assert info.value.message == "arxiv: request rejected (HTTP 403) by https://api.test/empty"
    with pytest.raises(ProviderUnavailableError) as info:
        http.get("https://api.test/boom")
    assert info.value.message == "arxiv: server error (HTTP 503) from https://api.test/boom"
    with pytest.raises(ProviderUnavailableError) as info:
        http.get("https://api.test/moved")
    assert info.value.message == (
        "arxiv: unexpected redirect (HTTP 301) from https://api.test/moved"
    )
    bounded = http.get("https://api.test/pdf", max_bytes=100)
    assert bounded.headers["Content-Type"] == "application/pdf"  # headers kept
    assert http.get_json("https://api.test/json", headers={"X-Key": "k"}) == {"ok": True}
    assert seen[-1].headers["X-Key"] == "k"
