"""Who may talk to the streamable HTTP transport: bind policy, bearer token, Origin allowlist.

On loopback (the default) the server is reachable only from this machine; the MCP SDK's
Host/Origin checks stop DNS-rebinding pages, and that is all it needs. Binding anywhere
else makes the library (read, add, delete) reachable from the network, so:

* it must be asked for explicitly: ``--allow-remote`` or ``PRIORIS_MCP_HTTP_ALLOW_REMOTE=1``,
  else :func:`plan_exposure` raises ConfigurationError naming both;
* every request must carry ``Authorization: Bearer <token>``: the token comes from
  ``PRIORIS_MCP_HTTP_TOKEN`` or is generated (and printed once, to stderr, by the caller);
  it is compared in constant time (:func:`hmac.compare_digest`);
* a browser ``Origin`` must still be on the allowlist (localhost origins plus
  ``PRIORIS_MCP_CORS_ORIGINS``), whatever Host the server is reached under;
* the caller prints a warning saying all this and pointing at docs/security.md.

A token set on loopback is enforced there too (useful behind a local reverse proxy).

Accounts mode (issue 24): when the library has accounts and the remote opt-in is given,
the single token is replaced by each account's own: :class:`HttpGuard` is given
``authenticate`` (token -> account or None), answers 401 to a missing, unknown or revoked
token and 429 (with ``Retry-After``) to an account over its requests per minute, and puts
the account in the ASGI scope under :data:`ACCOUNT_SCOPE_KEY`, where the MCP server reads
it to check the tool's role (:mod:`prioris.interfaces.permissions`) and audit writes.
:class:`HttpGuard` is plain ASGI middleware, so it is tested without a socket.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from prioris.config import Settings
from prioris.errors import ConfigurationError
from prioris.interfaces.permissions import RateLimiter, declared_length

LOCALHOST_ORIGIN = r"^https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$"
TOKEN_BYTES = 32
ACCOUNT_SCOPE_KEY = "prioris.account"


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


@dataclass(frozen=True)
class Exposure:
    """How the HTTP transport will be reachable, decided before anything is bound."""

    host: str
    remote: bool
    token: str | None
    token_generated: bool = False
    accounts: bool = False
    """Accounts mode: each request carries its account's own token (``prioris users``)."""

    def banner(self, port: int, path: str) -> list[str]:
        """Lines for stderr at start: where it listens, and for a remote bind the warning."""
        lines = [f"prioris: MCP server on http://{_url_host(self.host)}:{port}{path}"]
        if self.remote:
            lines += [
                f"prioris: WARNING: listening on {self.host}, reachable from other machines. "
                "Anyone who can reach this port and holds the token can read, add and delete "
                "works. Serve it through a TLS reverse proxy (see docs/security.md).",
                "prioris: every request needs the header 'Authorization: Bearer <token>'",
            ]
        if self.accounts:
            lines.append(
                "prioris: accounts mode: each request needs an account's token "
                "(prioris users add NAME --role reader|writer|admin); roles are enforced"
            )
        if self.token_generated:
            lines.append(
                f"prioris: generated token (set PRIORIS_MCP_HTTP_TOKEN to choose one): {self.token}"
            )
        return lines


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def plan_exposure(settings: Settings, host: str, *, allow_remote: bool = False) -> Exposure:
    """Check the bind address against the opt-in and settle the token (generated if need be)."""
    if is_loopback(host):
        return Exposure(host=host, remote=False, token=settings.http_token)
    if not (allow_remote or settings.http_allow_remote):
        raise ConfigurationError(
            f"binding the HTTP transport to {host!r} exposes the library to the network; "
            "pass --allow-remote (or set PRIORIS_MCP_HTTP_ALLOW_REMOTE=1) to confirm. "
            "Requests will then need a bearer token (PRIORIS_MCP_HTTP_TOKEN, or one is "
            "generated and printed). Use 127.0.0.1 to stay local."
        )
    if settings.http_token:
        return Exposure(host=host, remote=True, token=settings.http_token)
    return Exposure(
        host=host, remote=True, token=secrets.token_urlsafe(TOKEN_BYTES), token_generated=True
    )


def origin_allowed(origin: str, extra_origins: Iterable[str] = ()) -> bool:
    """Whether a browser ``Origin`` may use the server (localhost, or listed)."""
    return bool(re.match(LOCALHOST_ORIGIN, origin)) or origin in tuple(extra_origins)


def token_matches(presented: str, expected: str) -> bool:
    """Constant-time comparison of a presented bearer token with the expected one."""
    return hmac.compare_digest(presented.encode("utf-8"), expected.encode("utf-8"))


class HttpGuard:
    """ASGI middleware: Origin allowlist, then the bearer token when one is set.

    CORS preflights (``OPTIONS``) carry no credentials by design, so they pass the token
    check; the CORS middleware outside this one answers them, and a preflight grants
    nothing by itself.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        extra_origins: Iterable[str] = (),
        max_body_bytes: int | None = None,
        authenticate: Callable[[str], Any] | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.app = app
        self.token = token
        self.authenticate = authenticate  # accounts mode: replaces the single token
        self.limiter = limiter
        self.extra_origins = tuple(extra_origins)
        self.max_body_bytes = max_body_bytes  # None: the app alone bounds what it reads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(origin, self.extra_origins):
            await _reply(send, 403, "forbidden: this Origin is not allowed")
            return
        if self.authenticate is not None and scope.get("method") != "OPTIONS":
            if not await self._account(scope, send, headers):
                return
        elif self.token is not None and scope.get("method") != "OPTIONS":
            scheme, _, presented = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not token_matches(presented.strip(), self.token):
                await _reply(
                    send,
                    401,
                    "unauthorized: send 'Authorization: Bearer <token>'",
                    [(b"www-authenticate", b'Bearer realm="prioris"')],
                )
                return
        if self.max_body_bytes is None:
            await self.app(scope, receive, send)
            return
        await self._bounded(scope, receive, send, headers.get("content-length"))

    async def _account(self, scope: Scope, send: Send, headers: dict[str, str]) -> bool:
        """Accounts mode: the request's account into the scope, or a 401/411/429 sent."""
        assert self.authenticate is not None
        scheme, _, presented = headers.get("authorization", "").partition(" ")
        account = None
        if scheme.lower() == "bearer" and presented.strip():
            account = await anyio.to_thread.run_sync(self.authenticate, presented.strip())
        if account is None:
            await _reply(
                send,
                401,
                "unauthorized: send 'Authorization: Bearer <token>' with an account's token",
                [(b"www-authenticate", b'Bearer realm="prioris"')],
            )
            return False
        size = declared_length(headers, scope.get("method", "GET"))
        if size is None:
            await _reply(send, 411, "invalid_request: send the body with a Content-Length")
            return False
        wait = self.limiter.check(account.name, size) if self.limiter is not None else 0
        if wait:
            await _reply(
                send,
                429,
                f"rate_limited: account {account.name!r} is over its requests per minute "
                "or its upload bytes per hour",
                [(b"retry-after", str(wait).encode())],
            )
            return False
        scope[ACCOUNT_SCOPE_KEY] = account
        return True

    async def _bounded(
        self, scope: Scope, receive: Receive, send: Send, declared: str | None
    ) -> None:
        """The app with a request body of at most ``max_body_bytes``: a larger declared
        length is refused at once, a chunked body as soon as it passes the limit (413),
        before the transport has read it whole into memory."""
        limit = self.max_body_bytes
        assert limit is not None
        too_large = f"file_too_large: the request body is over {limit} bytes"
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            await _reply(send, 413, too_large)
            return
        received = 0
        refused = False

        async def bounded_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _reply(send, 413, too_large)
                    return {"type": "http.disconnect"}  # the app stops reading here
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:  # our 413 is the answer; nothing of the app's follows it
                await send(message)

        await self.app(scope, bounded_receive, guarded_send)


def request_body_limit(max_file_bytes: int) -> int:
    """The largest MCP request worth reading: a file of ``max_file_bytes`` as base64 (4
    bytes for every 3) in a JSON-RPC call, with room for its other arguments."""
    return -(-max_file_bytes // 3) * 4 + 64 * 1024


async def _reply(
    send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = (text + "\n").encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
