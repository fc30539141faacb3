"""The web app: a Starlette application over one Library, and ``prioris ui`` serving it.

:func:`build_app` wires the routes of :mod:`.pages` (HTML) and :mod:`.api` (actions, page
images, job progress) behind :class:`~.security.SecurityMiddleware`; what they share is
in :mod:`.state`. Blocking Library calls run in worker threads, so the event loop keeps
answering while an ingest, an OCR run or a re-index works in the job thread. :func:`serve`
binds 127.0.0.1 by default (no login: the machine's own user is the only one meant to
reach it); ``--allow-remote`` serves a library with accounts to other machines, every
request then behind a login (:mod:`.accounts_web`).
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from prioris.errors import ConfigurationError, PriorisError
from prioris.interfaces.http_guard import is_loopback
from prioris.interfaces.permissions import RateLimiter
from prioris.interfaces.web import (
    account_page,
    accounts_web,
    alerts_view,
    api,
    api_labels,
    edit,
    library_pages,
    pages,
    snowball_view,
    views,
)
from prioris.interfaces.web.accounts_web import AccountsMiddleware, Sessions
from prioris.interfaces.web.api_intake import sweep_uploads, upload_folder
from prioris.interfaces.web.jobs import JobRegistry
from prioris.interfaces.web.markdown_view import markdown_html
from prioris.interfaces.web.security import SecurityMiddleware, new_csrf_token
from prioris.interfaces.web.state import WebState, state_of

if TYPE_CHECKING:
    from prioris.config import Settings
    from prioris.library import Library

HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"
log = logging.getLogger(__name__)

STATUS_OF = {
    "not_found": 404,
    "invalid_request": 400,
    "file_too_large": 413,
    "configuration_error": 400,
    "format_unavailable": 404,
    "unsupported_provider": 400,
    "rate_limited": 429,
    "provider_unavailable": 502,
    "parse_error": 422,
    "ocr_unavailable": 422,
    "unauthorized": 401,
    "forbidden": 403,
    "damaged_library": 422,
    "quota_exceeded": 429,
}


def make_templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(["html", "svg"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        snippet=views.snippet_html,
        authors=views.authors_short,
        pages=views.pages_label,
        bytes=views.human_bytes,
        source=views.source_label,
    )
    env.globals.update(
        read_url=views.read_url,
        query_string=views.query_string,
        alias_links=views.alias_links,
        is_public_https=views.is_public_https,
        markdown_html=markdown_html,
    )
    return env


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get(
        "accept", ""
    )


async def prioris_error(request: Request, exc: Exception) -> Response:
    """An expected failure: its code and message, as JSON or as a page; never a traceback."""
    assert isinstance(exc, PriorisError)
    status = STATUS_OF.get(exc.code, 400)
    if wants_json(request):
        return JSONResponse({"error": exc.to_dict()}, status_code=status)
    return state_of(request).render(request, "error.html", status_code=status, error=exc.to_dict())


async def unexpected_error(request: Request, exc: Exception) -> Response:
    log.error("unexpected error on %s", request.url.path, exc_info=exc)
    error = {"code": "internal_error", "message": "something went wrong; see the server log"}
    if wants_json(request):
        return JSONResponse({"error": error}, status_code=500)
    return state_of(request).render(request, "error.html", status_code=500, error=error)


async def not_found(request: Request, exc: Exception) -> Response:
    error = {"code": "not_found", "message": f"no page at {request.url.path}"}
    if wants_json(request):
        return JSONResponse({"error": error}, status_code=404)
    return state_of(request).render(request, "error.html", status_code=404, error=error)


def build_app(
    library: Library,
    *,
    jobs: JobRegistry | None = None,
    csrf_token: str | None = None,
    accounts: bool = False,
    allowed_hosts: tuple[str, ...] = (),
    limiter: RateLimiter | None = None,
    sessions: Sessions | None = None,
) -> Starlette:
    """The ASGI app over ``library`` (which the caller opens and closes).

    With ``accounts`` every request needs a session of an account (``/login``), roles are
    enforced and writes audited (:mod:`.accounts_web`); ``allowed_hosts`` are the names
    besides loopback it answers to (``--allow-remote``)."""
    registry = jobs or JobRegistry()
    state = WebState(library, registry, make_templates(), csrf_token or new_csrf_token())
    routes = [
        *pages.ROUTES,
        *library_pages.ROUTES,
        *api.ROUTES,
        *edit.ROUTES,
        *api_labels.ROUTES,
        *snowball_view.ROUTES,
        *alerts_view.ROUTES,
        *account_page.ROUTES,
        *accounts_web.ROUTES,
        Mount("/static", app=StaticFiles(directory=HERE / "static"), name="static"),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            PriorisError: prioris_error,
            404: not_found,
            Exception: unexpected_error,
        },
    )
    app.state.web = state
    app.state.sessions = None
    app.state.login_limiter = RateLimiter(accounts_web.LOGINS_PER_MINUTE)
    if accounts:  # added first: inside the Host/Origin/CSRF checks, which run before it
        app.state.sessions = sessions or Sessions()
        app.add_middleware(
            AccountsMiddleware, sessions=app.state.sessions, library=library, limiter=limiter
        )
    app.add_middleware(SecurityMiddleware, csrf_token=state.csrf_token, allowed_hosts=allowed_hosts)
    return app


def bind(port: int, host: str = HOST) -> socket.socket:
    """A listening socket on ``host``:``port`` (127.0.0.1, 0: any free port); a clear error
    if taken."""
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted connections only when the
    # socket says it is TCP; without it Nagle holds each response body back by ~40 ms
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except OSError as exc:
        raise ConfigurationError(f"cannot listen on {host}:{port} ({exc})") from None
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ConfigurationError(
            f"cannot listen on {host}:{port} ({exc.strerror}); pass another --port "
            "or set PRIORIS_MCP_UI_PORT"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _warm_up(library: Library) -> None:
    """Load the embedding model and the vector copy now, so the first search is quick."""
    try:
        library.search("warm up", mode="hybrid", k=1)
    except Exception:  # an empty or odd library: the first real search will say why
        log.debug("warm-up search failed", exc_info=True)


def remote_policy(host: str, allow_remote: bool) -> bool:
    """Whether ``prioris ui`` runs in accounts mode: a host other than loopback needs
    ``--allow-remote`` (ConfigurationError otherwise), and ``--allow-remote`` needs
    accounts (checked once the library is open, :func:`check_accounts`)."""
    if not is_loopback(host) and not allow_remote:
        raise ConfigurationError(
            f"serving the web app on {host!r} exposes the library to the network; pass "
            "--allow-remote to confirm (it then needs accounts: prioris users add NAME "
            "--role admin). Use 127.0.0.1 to stay local."
        )
    return allow_remote


def check_accounts(library: Library) -> None:
    """``--allow-remote`` without an active account would serve everyone: refused."""
    if library.active_accounts() == 0:
        raise ConfigurationError(
            "prioris ui --allow-remote needs at least one account: create one with "
            "prioris users add NAME --role admin (see docs/security.md)"
        )


def serve(
    settings: Settings,
    port: int | None = None,
    *,
    open_browser: bool = True,
    library: Library | None = None,
    log_line: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True),
    host: str = HOST,
    allow_remote: bool = False,
) -> None:
    """Serve the app on ``host`` (127.0.0.1) until interrupted; open the browser once it
    listens. ``allow_remote``: accounts mode, any host (docs/security.md)."""
    import uvicorn

    accounts = remote_policy(host, allow_remote)
    sock = bind(settings.ui_port if port is None else port, host)
    url = f"http://{host if ':' not in host else f'[{host}]'}:{sock.getsockname()[1]}/"
    own_library = library is None
    try:
        if library is None:
            from prioris.library import Library

            library = Library.open(settings)
        if accounts:
            check_accounts(library)
    except BaseException:
        sock.close()
        if own_library and library is not None:
            library.close()
        raise
    sweep_uploads(upload_folder(settings.db_path))
    threading.Thread(target=_warm_up, args=(library,), daemon=True).start()
    registry = JobRegistry()
    extra_hosts = (host,) if accounts and not is_loopback(host) else ()
    limiter = RateLimiter(
        settings.account_requests_per_minute, settings.account_upload_bytes_per_hour
    )
    app = build_app(
        library, jobs=registry, accounts=accounts, allowed_hosts=extra_hosts, limiter=limiter
    )
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    where = library.storage.display()  # a PostgreSQL URL without its password
    log_line(f"prioris: the web app is at {url} (library {where}); Ctrl-C stops it")
    if accounts:
        log_line(
            "prioris: accounts mode: every request needs a login (/login) with an account's "
            "token; serve it through a TLS reverse proxy (docs/security.md)"
        )
    if library.stale_on_open:
        log_line(
            f"note: {library.stale_on_open} chunks are stale; re-index them on the Status page"
        )
    elif library.work_vectors_pending:
        log_line("note: works have no vectors of their own yet; re-index on the Status page")
    if open_browser:

        def open_when_ready() -> None:
            while not server.started and not server.should_exit:
                threading.Event().wait(0.05)
            if server.started:
                webbrowser.open(url)

        threading.Thread(target=open_when_ready, daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        registry.close()
        sock.close()
        if own_library:
            library.close()
