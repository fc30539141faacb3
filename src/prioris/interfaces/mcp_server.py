"""The MCP server: tools and resources over the Library, on stdio or streamable HTTP.

:func:`build_server` assembles a :class:`PriorisMCPServer` from the tool and resource
modules in ``prioris.interfaces.mcp``; it holds no business logic, only calls into the
Library (opened lazily by ``library_factory``). :func:`serve` runs it:

* ``stdio`` (default): what desktop MCP clients launch as ``prioris serve``;
* ``http``: streamable HTTP at ``http://HOST:PORT/mcp``, bound to 127.0.0.1 by default,
  with DNS-rebinding protection and a CORS allowlist of localhost origins plus
  ``PRIORIS_MCP_CORS_ORIGINS``. Any other origin gets no ``Access-Control-Allow-Origin``
  and its requests are refused. Any other bind address needs an explicit opt-in and a
  bearer token (:mod:`prioris.interfaces.http_guard`).

Upload sessions are created at start, beside the library file (stale parts of a server
that was killed are removed then), and SIGTERM stops either transport cleanly: the same
shutdown as the end of stdin or Ctrl-C, so no upload part is left behind.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import socket
import sys
from typing import TYPE_CHECKING, Any

from prioris.interfaces.http_guard import (
    LOCALHOST_ORIGIN,
    Exposure,
    HttpGuard,
    origin_allowed,
    plan_exposure,
    request_body_limit,
)
from prioris.interfaces.mcp.resources import register_resources
from prioris.interfaces.mcp.runtime import LibraryFactory, PriorisMCPServer, ServerState
from prioris.interfaces.mcp.tools_alerts import register_alert_tools
from prioris.interfaces.mcp.tools_citations import register_citation_tools
from prioris.interfaces.mcp.tools_cite import register_cite_tools
from prioris.interfaces.mcp.tools_edit import register_edit_tools
from prioris.interfaces.mcp.tools_evidence import register_evidence_tools
from prioris.interfaces.mcp.tools_labels import register_label_tools
from prioris.interfaces.mcp.tools_library import register_library_tools
from prioris.interfaces.mcp.tools_lookup import register_lookup_tools
from prioris.interfaces.mcp.tools_parse import register_parse_tools
from prioris.interfaces.mcp.tools_refman import register_refman_tools
from prioris.interfaces.mcp.tools_remote import register_remote_tools
from prioris.interfaces.mcp.tools_snowball import register_snowball_tools
from prioris.interfaces.mcp.tools_upload import register_upload_tools
from prioris.interfaces.permissions import RateLimiter
from prioris.interfaces.serve_lifecycle import serve_stdio, sigterm_exits

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from prioris.config import Settings
    from prioris.ingest.uploads import UploadSessions

INSTRUCTIONS = """Prioris is a local research library, a drop-in for PriorisMCP 0.1.1's
tools. Typical flow: find papers with research_arxiv_search / research_europepmc_search /
research_openalex_search or, from a description, research_discovery; store them with
research_*_fetch_full_text (or upload a PDF with research_localfile_*); then search what is
stored with research_search_fetched (FTS5 syntax; mode vector or hybrid for meaning) and
read passages with research_*_parse_full_text (pass a match's identifier and offset).
Errors start with a stable code such as invalid_request, not_found, format_unavailable."""

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MCP_PATH = "/mcp"


def _version() -> str:
    try:
        return importlib.metadata.version("prioris")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def build_server(
    library_factory: LibraryFactory, *, uploads: UploadSessions | None = None
) -> PriorisMCPServer:
    """An MCP server over the Library that ``library_factory`` opens on first use."""
    server = PriorisMCPServer(
        "prioris",
        title="Prioris research library",
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
    )
    state = ServerState(library_factory, uploads)
    server.prioris_state = state  # type: ignore[attr-defined]
    # tools/list shows the tools in the order they are registered
    register_remote_tools(server, state)
    register_lookup_tools(server, state)
    register_parse_tools(server, state)
    register_upload_tools(server, state)
    register_library_tools(server, state)
    register_cite_tools(server, state)
    register_citation_tools(server, state)
    register_evidence_tools(server, state)
    register_edit_tools(server, state)
    register_label_tools(server, state)
    register_refman_tools(server, state)
    register_alert_tools(server, state)
    register_snowball_tools(server, state)
    register_resources(server, state)
    return server


def cors_allowed(origin: str, extra_origins: tuple[str, ...] = ()) -> bool:
    """Whether the HTTP transport grants CORS to ``origin`` (localhost, or listed)."""
    return origin_allowed(origin, extra_origins)


def http_app(
    server: PriorisMCPServer,
    settings: Settings,
    host: str,
    *,
    token: str | None = None,
    accounts: bool = False,
    limiter: RateLimiter | None = None,
) -> ASGIApp:
    """The streamable HTTP ASGI app behind the Origin/token guard and the CORS allowlist.

    With ``accounts``, each request needs an account's token instead of ``token``, and
    the server enforces roles and audits writes (docs/security.md, "Accounts and roles")."""
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.middleware.cors import CORSMiddleware

    extra = tuple(settings.cors_origins)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    if host not in LOOPBACK_HOSTS:
        hosts += [host, f"{host}:*"]
    origins = [
        f"{scheme}://{name}:*"
        for scheme in ("http", "https")
        for name in ("127.0.0.1", "localhost", "[::1]")
    ]
    origins += [
        f"{scheme}://{name}"
        for scheme in ("http", "https")
        for name in ("127.0.0.1", "localhost", "[::1]")
    ]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=host not in ("0.0.0.0", "::"),
        allowed_hosts=hosts,
        allowed_origins=origins + list(extra),
    )
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security,
        host=host,
        # the SDK refuses bodies past 4 MiB by default: a PDF sent as base64 may be as
        # large as the file limit allows (HttpGuard enforces the same bound first)
        max_request_body_size=request_body_limit(settings.max_file_bytes),
    )
    authenticate = None
    if accounts:
        state: ServerState = server.prioris_state  # type: ignore[attr-defined]
        server.prioris_accounts = True

        def authenticate(presented: str) -> Any:
            return state.library().authenticate(presented)

    return CORSMiddleware(
        HttpGuard(
            app,
            token=None if accounts else token,
            extra_origins=extra,
            max_body_bytes=request_body_limit(settings.max_file_bytes),
            authenticate=authenticate,
            limiter=(limiter or account_limiter(settings)) if accounts else None,
        ),
        allow_origins=list(extra),
        allow_origin_regex=LOCALHOST_ORIGIN,
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=[
            "content-type",
            "accept",
            "authorization",
            "mcp-session-id",
            "mcp-protocol-version",
            "last-event-id",
        ],
        expose_headers=["mcp-session-id", "mcp-protocol-version"],
    )


async def _serve_http(
    server: PriorisMCPServer, settings: Settings, exposure: Exposure, port: int
) -> None:
    import uvicorn

    sock = bind_http(exposure.host, port)  # before the banner: a busy port says only that
    port = sock.getsockname()[1]
    app = http_app(
        server, settings, exposure.host, token=exposure.token, accounts=exposure.accounts
    )
    config = uvicorn.Config(app, host=exposure.host, port=port, log_level="warning", lifespan="on")
    sys.stderr.write("".join(line + "\n" for line in exposure.banner(port, MCP_PATH)))
    sys.stderr.flush()
    await uvicorn.Server(config).serve(sockets=[sock])


def account_limiter(settings: Settings) -> RateLimiter:
    """Each account's requests per minute and upload bytes per hour, from the settings."""
    return RateLimiter(settings.account_requests_per_minute, settings.account_upload_bytes_per_hour)


def with_accounts(exposure: Exposure, state: ServerState) -> Exposure:
    """Accounts mode when the library has an active account: each request then needs its
    account's token (the single token is not used). Decided at start: an account added
    later takes effect at the next start; revoking every account refuses every request."""
    if state.library().active_accounts() == 0:
        return exposure
    return dataclasses.replace(exposure, token=None, token_generated=False, accounts=True)


def bind_http(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``, or a one-line ConfigurationError saying why
    not (a port in use, an address this machine does not have)."""
    from prioris.errors import ConfigurationError

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as exc:
        raise ConfigurationError(f"cannot listen on {host}:{port} ({exc})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigurationError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}); pass another --port "
            "or set PRIORIS_MCP_PORT"
        ) from None
    sock.set_inheritable(True)
    return sock


def serve(
    settings: Settings,
    transport: str | None = None,
    host: str | None = None,
    port: int | None = None,
    *,
    library_factory: LibraryFactory | None = None,
    allow_remote: bool = False,
) -> None:
    """Run the MCP server until the client disconnects (stdio) or it is stopped (Ctrl-C,
    SIGTERM). A non-loopback ``host`` needs ``allow_remote`` (or its setting)."""
    import anyio

    from prioris.errors import ConfigurationError
    from prioris.ingest.uploads import UploadSessions, upload_directory

    transport = transport or settings.transport
    if transport not in ("stdio", "http"):
        raise ConfigurationError(f"transport {transport!r} is invalid; accepted: stdio, http")
    exposure = None
    if transport == "http":  # refused before anything is opened or bound
        exposure = plan_exposure(settings, host or settings.host, allow_remote=allow_remote)
    if library_factory is None:
        from prioris.library import Library

        def library_factory() -> Any:
            return Library.open(settings)

    uploads = UploadSessions(  # removes parts that a killed server left behind
        upload_directory(settings.db_path), max_total_bytes=settings.max_file_bytes
    )
    server = build_server(library_factory, uploads=uploads)
    if exposure is not None and (allow_remote or settings.http_allow_remote or exposure.remote):
        exposure = with_accounts(exposure, server.prioris_state)  # type: ignore[attr-defined]
    with sigterm_exits():
        try:
            if exposure is None:
                anyio.run(serve_stdio, server)
            else:
                port = settings.port if port is None else port
                anyio.run(_serve_http, server, settings, exposure, port)
        finally:
            server.prioris_state.close()  # type: ignore[attr-defined]
