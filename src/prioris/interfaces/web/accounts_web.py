"""Accounts in the web app (``prioris ui --allow-remote`` on a library with accounts).

* ``GET /login`` shows a form; ``POST /login`` (JSON ``{"token"}``, CSRF as every POST)
  exchanges an account's token for a session: a random id kept in memory on the server
  (:class:`Sessions`, expiring), sent as a cookie that is ``HttpOnly``, ``SameSite=Strict``
  and ``Secure`` when the request came over https, as uvicorn reports the scheme: it
  takes ``X-Forwarded-Proto`` from the addresses in ``FORWARDED_ALLOW_IPS`` (default
  127.0.0.1 and ::1), so a TLS proxy on the same machine suffices (docs/deploy.md).
  ``POST /logout`` ends it.
* :class:`AccountsMiddleware` asks every other request for a live session whose account
  is still active: an API call without one gets 401 JSON, a page a redirect to ``/login``;
  a role below what :func:`~prioris.interfaces.permissions.web_role` names gets 403 and the
  route never runs; an account over its requests per minute gets 429 with ``Retry-After``.
  Each successful write is recorded in the audit log (who, method and path, the JSON body
  as target, bounded).
* ``GET /audit`` (admins) shows the audit log.
* A feed reader cannot log in: ``GET /alerts/NAME.atom?token=…`` with a feed token
  (``prioris users feed-token add``, or the account page) reads the feed as the token's
  account, and a feed token opens no other page or call. Without a session, a feed
  asked with a missing, unknown or revoked token gets 401 (never a redirect: a feed
  reader would not follow it to a login form).

Without accounts mode none of this is installed: loopback use stays without login.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from prioris.errors import InvalidRequestError, PriorisError, UnauthorizedError
from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
from prioris.interfaces.permissions import RateLimiter, declared_length, web_role
from prioris.interfaces.web.security import SECURITY_HEADERS, read_json
from prioris.interfaces.web.state import state_of
from prioris.services.accounts import role_allows

COOKIE = "prioris_session"
LOGINS_PER_MINUTE = 10
"""Login attempts per client address and minute: each costs a scrypt, so they are bounded."""
SESSION_SECONDS = 12 * 3600
AUDIT_BODY_LIMIT = 64 * 1024
FEED_PATH = re.compile(r"/alerts/[^/]+\.atom")
"""The only paths a feed token opens: an alert's Atom feed."""


class Sessions:
    """Session id -> (account name, expiry), in memory: a restart logs everyone out."""

    def __init__(
        self, ttl: float = SESSION_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self._sessions: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def open(self, account: str) -> str:
        session_id = secrets.token_urlsafe(32)
        with self._lock:
            now = self.clock()
            self._sessions = {k: v for k, v in self._sessions.items() if v[1] > now}
            self._sessions[session_id] = (account, now + self.ttl)
        return session_id

    def account(self, session_id: str | None) -> str | None:
        if not session_id:
            return None
        with self._lock:
            found = self._sessions.get(session_id)
            if found is None:
                return None
            if found[1] <= self.clock():
                del self._sessions[session_id]
                return None
            return found[0]

    def close(self, session_id: str | None) -> None:
        with self._lock:
            self._sessions.pop(session_id or "", None)


def _cookie_of(headers: dict[str, str]) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return None


def _feed_token(scope: Scope) -> str | None:
    """The ``token`` of a feed's query string (the first, when repeated)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    found = query.get("token") or [None]
    return found[0]


def _is_api(path: str, headers: dict[str, str]) -> bool:
    return path.startswith("/api/") or "application/json" in headers.get("accept", "")


async def _send(send: Send, response: Response) -> None:
    headers = [*response.raw_headers, *SECURITY_HEADERS]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


def _error(status: int, code: str, message: str, extra: dict[str, str] | None = None) -> Response:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=extra
    )


class AccountsMiddleware:
    """Sessions, roles, per-account limits and the audit of writes (module docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        sessions: Sessions,
        library: Any,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.app = app
        self.sessions = sessions
        self.library = library
        self.limiter = limiter or RateLimiter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"].upper(), scope["path"]
        needed = web_role(method, path)
        if needed == "none":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        name = self.sessions.account(_cookie_of(headers))
        account = await anyio.to_thread.run_sync(self._active, name) if name else None
        is_feed = method in ("GET", "HEAD") and FEED_PATH.fullmatch(path) is not None
        if account is None and is_feed:
            token = _feed_token(scope)
            if token:
                account = await anyio.to_thread.run_sync(self.library.feed_account, token)
            if account is None:
                await _send(send, _error(401, "unauthorized", "unknown or revoked feed token"))
                return
        if account is None:
            if _is_api(path, headers):
                await _send(send, _error(401, "unauthorized", "log in first (/login)"))
            else:
                await _send(send, Response(status_code=303, headers={"location": "/login"}))
            return
        if not role_allows(account.role, needed):
            message = f"account {account.name!r} ({account.role}) may not do this: needs {needed}"
            await _send(send, _error(403, "forbidden", message))
            return
        size = declared_length(headers, method)
        if size is None:
            await _send(send, _error(411, "invalid_request", "send a body with Content-Length"))
            return
        wait = self.limiter.check(account.name, size)
        if wait:
            message = (
                f"account {account.name!r} is over its requests per minute "
                "or its upload bytes per hour"
            )
            await _send(send, _error(429, "rate_limited", message, {"retry-after": str(wait)}))
            return
        scope[ACCOUNT_SCOPE_KEY] = account
        if needed == "reader" or method in ("GET", "HEAD"):  # reads are not audited
            await self.app(scope, receive, send)
            return
        await self._audited(scope, receive, send, headers, account.name)

    def _active(self, name: str) -> Any:
        """The account of a session, if it still exists and is not revoked."""
        for account in self.library.accounts():
            if account.name == name and account.active:
                return account
        return None

    async def _audited(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], name: str
    ) -> None:
        """Run a write; when it succeeded, record who did what (a small JSON body as target)."""
        target = scope.get("query_string", b"").decode("latin-1")
        declared = headers.get("content-length", "")
        small = declared.isdigit() and int(declared) <= AUDIT_BODY_LIMIT
        if small and "json" in headers.get("content-type", ""):
            body = await _read_all(receive)
            target = body.decode("utf-8", "replace")
            receive = _replay(body)
        status = [500]

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        await self.app(scope, receive, watched)
        if status[0] < 400:
            action = f"{scope['method'].upper()} {scope['path']}"
            await anyio.to_thread.run_sync(
                lambda: self.library.record_audit(name, action, target[:500], "web")
            )


async def _read_all(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


# -- routes ----------------------------------------------------------------------------
def _sessions(request: Request) -> Sessions:
    sessions = getattr(request.app.state, "sessions", None)
    if sessions is None:
        raise InvalidRequestError("this server has no accounts: there is nothing to log in to")
    return sessions


async def login_page(request: Request) -> Response:
    _sessions(request)
    return state_of(request).render(request, "login.html", page="login")


async def login(request: Request) -> Response:
    """A token for a session cookie: 401 (unauthorized) for a wrong or revoked token.
    Errors are JSON (the login page's script shows them), whatever the Accept header."""
    limiter: RateLimiter = request.app.state.login_limiter
    wait = limiter.check(request.client.host if request.client else "unknown")
    if wait:
        return _error(429, "rate_limited", "too many login attempts", {"retry-after": str(wait)})
    try:
        sessions = _sessions(request)
        token = (await read_json(request)).get("token")
        if not isinstance(token, str) or not token.strip():
            raise InvalidRequestError("give the account's token")
        library = state_of(request).library
        account = await anyio.to_thread.run_sync(library.authenticate, token.strip())
        if account is None:
            raise UnauthorizedError("unknown or revoked token")
    except PriorisError as exc:
        return _error(401 if exc.code == "unauthorized" else 400, exc.code, exc.message)
    response = JSONResponse({"account": account.name, "role": account.role})
    response.set_cookie(
        COOKIE,
        sessions.open(account.name),
        max_age=int(sessions.ttl),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


async def logout(request: Request) -> Response:
    _sessions(request).close(request.cookies.get(COOKIE))
    response = JSONResponse({"logged_out": True})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


async def audit_page(request: Request) -> Response:
    """The audit log, newest first (admins: the middleware checks the role)."""
    try:
        offset = max(0, int(request.query_params.get("offset", "0")))
    except ValueError:
        raise InvalidRequestError("offset must be a whole number") from None
    library = state_of(request).library
    entries = await anyio.to_thread.run_sync(lambda: library.audit(limit=100, offset=offset))
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"entries": entries, "count": len(entries), "offset": offset})
    return state_of(request).render(
        request, "audit.html", page="audit", entries=entries, offset=offset
    )


ROUTES = [
    Route("/login", login_page),
    Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/audit", audit_page),
]
