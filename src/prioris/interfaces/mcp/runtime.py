"""What every tool shares: the lazily opened Library, upload sessions, worker threads, errors.

* :class:`ServerState` opens the Library on first use (so ``initialize`` and
  ``tools/list`` answer at once even when the embedding model is slow to load) and owns
  the :class:`~prioris.ingest.uploads.UploadSessions`.
* :func:`blocking` runs a Library call in a worker thread, so the event loop keeps
  answering other requests while SQLite, ONNX or OCR work.
* :func:`prioris_tool` turns a :class:`PriorisError` into a tool error whose text starts
  with its code (``invalid_request: ...``); nothing else of the exception leaves.
* :class:`PriorisMCPServer` gives argument-validation failures the same shape, and
  refuses arguments a tool does not have (a misspelt name must not be silently ignored).
* In accounts mode (``prioris serve --transport http --allow-remote`` on a library with
  accounts), :meth:`PriorisMCPServer.call_tool` checks the caller's role against
  :mod:`prioris.interfaces.permissions` (a ``forbidden`` tool error, nothing run) and
  records each successful write in the audit log.
* :func:`one_of` takes an argument given under PriorisMCP's name or Prioris's shorter one.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedToolError,
)
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from prioris.errors import InvalidRequestError, PriorisError
from prioris.ingest.uploads import UploadSessions, upload_directory
from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
from prioris.interfaces.mcp.uris import fulltext_mime
from prioris.interfaces.permissions import MCP_ACTION_ROLES, tool_role
from prioris.services.accounts import role_allows

if TYPE_CHECKING:
    from prioris.library import Library

P = ParamSpec("P")
T = TypeVar("T")
LibraryFactory = Callable[[], "Library"]


class ServerState:
    """The Library (opened once, on first use) and the upload sessions of one server."""

    def __init__(self, library_factory: LibraryFactory, uploads: UploadSessions | None = None):
        self._factory = library_factory
        self._library: Library | None = None
        self._lock = threading.Lock()
        self._uploads = uploads

    def library(self) -> Library:
        """The shared Library; call from a worker thread (opening may load a model)."""
        with self._lock:
            if self._library is None:
                self._library = self._factory()
            return self._library

    def uploads(self) -> UploadSessions:
        """Upload sessions in ``uploads/`` beside the library file, sized by the PDF limit."""
        settings = self.library().settings
        with self._lock:
            if self._uploads is None:
                self._uploads = UploadSessions(
                    upload_directory(settings.db_path), max_total_bytes=settings.max_file_bytes
                )
            return self._uploads

    def close(self) -> None:
        with self._lock:
            if self._uploads is not None:
                self._uploads.close()
            if self._library is not None:
                self._library.close()
                self._library = None


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking call in a worker thread; the event loop stays responsive."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


def error_text(exc: PriorisError) -> str:
    return f"{exc.code}: {exc.message}"


def error_result(code: str, message: str) -> CallToolResult:
    """A tool error the model can read: ``code: message`` (and the pair as _meta)."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code}: {message}")],
        is_error=True,
        _meta={"prioris/error": {"code": code, "message": message}},
    )


def prioris_tool(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Wrap an async tool so an expected failure becomes ``code: message``, never a trace."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(*args, **kwargs)
        except PriorisError as exc:
            return error_result(exc.code, exc.message)  # type: ignore[return-value]

    return wrapper


def one_of(reference: str, value: T | None, alias: str, alias_value: T | None) -> T:
    """The value given under PriorisMCP's name ``reference`` or Prioris's ``alias``.

    Both names are accepted (PriorisMCP clients use the first); giving neither, or two
    different values, is invalid_request naming the reference name.
    """
    if value is not None and alias_value is not None and value != alias_value:
        raise InvalidRequestError(f"give {reference} or its alias {alias}, not both")
    chosen = value if value is not None else alias_value
    if chosen is None:
        raise InvalidRequestError(f"{reference} is required (Prioris also accepts {alias})")
    return chosen


def resource_error(exc: PriorisError) -> ResourceError:
    """The protocol error a resource read raises for a PriorisError (message keeps the code)."""
    if exc.code == "not_found":
        return ResourceNotFoundError(error_text(exc))
    return ResourceError(error_text(exc))


AUDIT_SKIPPED_ARGUMENTS = frozenset(("data", "chunk", "content", "content_base64", "text"))


def audit_target(arguments: dict[str, Any] | None) -> str:
    """What a write acted on, for the audit log: its arguments but bulky payloads, bounded."""
    if not arguments:
        return ""
    parts = [
        f"{key}={value}"
        for key, value in sorted(arguments.items())
        if key not in AUDIT_SKIPPED_ARGUMENTS and value is not None
    ]
    return " ".join(parts)[:500]


CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar("prioris_caller", default=None)
"""The account name of the tool call being served (accounts mode), else None: what a tool
hands the library where an allowance is counted per person (OpenAlex's daily requests)."""


def account_of(context: Any) -> Any:
    """The account :class:`~prioris.interfaces.http_guard.HttpGuard` put in this request's
    ASGI scope, or None (stdio, no HTTP request, or no account)."""
    try:
        request = context.request_context.request
    except (AttributeError, ValueError):
        return None
    scope = getattr(request, "scope", None)
    return scope.get(ACCOUNT_SCOPE_KEY) if isinstance(scope, dict) else None


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


class PriorisMCPServer(MCPServer):
    """MCPServer whose argument errors read ``invalid_request: field: problem``.

    The SDK reports a schema violation as ``Error executing tool X: <pydantic dump>``;
    callers of Prioris rely on the code prefix instead, so it is rewritten here. Reads of
    ``.../{format}/fulltext`` get the MIME type of their format (a template has only one).
    """

    prioris_accounts: bool = False
    """Accounts mode: every tool call needs an account whose role allows the tool."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if not self.prioris_accounts:
            return await self._call_tool(name, arguments, context)
        account = account_of(context)
        if account is None:
            return error_result("unauthorized", "this server needs an account's bearer token")
        needed = tool_role(name, arguments)  # per action for research_alerts
        if not role_allows(account.role, needed):
            action = (arguments or {}).get("action") if name in MCP_ACTION_ROLES else None
            what = f"{name} with action {action!r}" if isinstance(action, str) else name
            return error_result(
                "forbidden",
                f"account {account.name!r} ({account.role}) may not call {what}: "
                f"it needs the {needed} role",
            )
        caller = CALLER.set(account.name)
        try:
            result = await self._call_tool(name, arguments, context)
        finally:
            CALLER.reset(caller)
        if needed != "reader" and not getattr(result, "is_error", False):
            library = self.prioris_state.library()  # type: ignore[attr-defined]
            await blocking(library.record_audit, account.name, name, audit_target(arguments), "mcp")
        return result

    async def _call_tool(self, name: str, arguments: dict[str, Any], context: Any) -> Any:
        unknown = self.unknown_arguments(name, arguments)
        if unknown:
            return error_result("invalid_request", unknown)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                return error_result("invalid_request", _validation_message(cause))
            if name not in {tool.name for tool in self._tool_manager.list_tools()}:
                return error_result("invalid_request", f"unknown tool {name!r}")
            raise

    def unknown_arguments(self, name: str, arguments: dict[str, Any] | None) -> str | None:
        """Why ``arguments`` has names ``name`` does not take, or None when it has none."""
        tool = self._tool_manager.get_tool(name)
        if tool is None or not arguments:
            return None
        known = set(tool.parameters.get("properties", {}))
        unknown = sorted(set(arguments) - known)
        if not unknown:
            return None
        names = ", ".join(repr(u) for u in unknown)
        plural = "s" if len(unknown) > 1 else ""
        return f"unknown argument{plural} {names} for {name}; accepted: {', '.join(sorted(known))}"

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        results = await super().read_resource(uri, context)
        mime = fulltext_mime(str(uri))
        if mime is None or not isinstance(results, list):
            return results
        return [dataclasses.replace(item, mime_type=mime) for item in results]
