"""The web app's guards, applied to every request before any route sees it.

* **Host check** (DNS rebinding): the app answers only to the loopback names it is bound
  to (``127.0.0.1``, ``localhost``, ``[::1]``, any port); a page on another site whose
  name was re-pointed at 127.0.0.1 gets 421 and can read nothing.
  With ``prioris ui --allow-remote``, the host it was asked to serve is allowed too.
* **Origin check**: a state-changing request (anything but GET/HEAD/OPTIONS) that names an
  origin must come from this app's own origin, and ``Sec-Fetch-Site``, when the browser
  sends it, must say ``same-origin``.
* **CSRF token**: every state-changing request must carry ``X-CSRF-Token`` equal to the
  token of this server process, which only the app's own pages contain (another origin
  cannot read them). Requests without it fail even with no ``Origin`` header (curl, old
  browsers, forms).
* **Headers**: a strict Content-Security-Policy (scripts, styles and images from the app
  only; no inline script; no framing), ``nosniff`` and ``no-referrer`` on every response.

Upload sizes are bounded where bodies are read (:func:`read_body`).
"""

from __future__ import annotations

import hmac
import json
import secrets
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from prioris.errors import FileTooLargeError, InvalidRequestError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
CSRF_HEADER = "x-csrf-token"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def host_name(host: str) -> str:
    """``127.0.0.1:8765`` -> ``127.0.0.1``; ``[::1]:8765`` -> ``[::1]``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class SecurityMiddleware:
    """Host, Origin and CSRF checks plus security headers (see the module docstring)."""

    def __init__(
        self, app: ASGIApp, *, csrf_token: str, allowed_hosts: tuple[str, ...] = ()
    ) -> None:
        self.app = app
        self.csrf_token = csrf_token
        self.allowed_hosts = tuple(host_name(h) for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope["method"], headers)
        if refusal is not None:
            status, code, message = refusal
            await _send_json(send, status, {"error": {"code": code, "message": message}})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def refusal(self, method: str, headers: dict[str, str]) -> tuple[int, str, str] | None:
        """``(status, code, message)`` when the request must be refused, else None."""
        host = headers.get("host", "")
        if host_name(host) not in LOOPBACK_NAMES + self.allowed_hosts:
            return 421, "invalid_request", "this app answers only on 127.0.0.1 or localhost"
        if method.upper() in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        own = (f"http://{host.lower()}", f"https://{host.lower()}")
        if origin is not None and origin.lower() not in own:
            return 403, "invalid_request", "cross-site request refused"
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return 403, "invalid_request", "cross-site request refused"
        token = headers.get(CSRF_HEADER, "")
        if not token or not hmac.compare_digest(token.encode(), self.csrf_token.encode()):
            return 403, "invalid_request", "missing or wrong CSRF token; reload the page"
        return None


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _check_declared(request: Request, limit: int, what: str) -> None:
    declared = request.headers.get("content-length")
    if declared is None:
        return
    try:
        size = int(declared)
    except ValueError:
        raise InvalidRequestError("invalid Content-Length") from None
    if size > limit:
        raise FileTooLargeError(
            f"{what} is {size} bytes, over the limit of {limit} bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
        )


def _too_large(limit: int, what: str) -> FileTooLargeError:
    return FileTooLargeError(
        f"{what} is over the limit of {limit} bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
    )


JSON_LIMIT = 1024 * 1024  # a JSON request body: identifiers, a record's fields


async def read_json(request: Request, limit: int = JSON_LIMIT) -> dict[str, Any]:
    """The request body as one JSON object (invalid_request otherwise), bounded."""
    body = await read_body(request, limit, "the request")
    try:
        data = json.loads(body or b"{}")
    except json.JSONDecodeError:
        raise InvalidRequestError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidRequestError("the request body must be a JSON object")
    return data


async def read_body(request: Request, limit: int, what: str = "the request") -> bytes:
    """The request body, refused as soon as it passes ``limit`` bytes (file_too_large)."""
    _check_declared(request, limit, what)
    parts: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise _too_large(limit, what)
        parts.append(chunk)
    return b"".join(parts)


async def save_body(request: Request, path: Path, limit: int, what: str = "the upload") -> int:
    """Stream the body into ``path`` (never whole in memory); over ``limit`` it is deleted
    and file_too_large raised. Returns the size."""
    received = 0
    try:
        _check_declared(request, limit, what)
        with path.open("wb") as handle:
            async for chunk in request.stream():
                received += len(chunk)
                if received > limit:
                    raise _too_large(limit, what)
                handle.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return received
