"""Connections to a PostgreSQL library that speak the storage modules' SQL.

The storage modules write one SQL text for both backends: ``?`` placeholders, ``ON
CONFLICT``, ``RETURNING``, rows read by position or by column name, and explicit
``BEGIN IMMEDIATE`` / ``COMMIT`` / ``ROLLBACK``. :class:`PgConnection` wraps a psycopg 3
connection in autocommit mode so that text runs unchanged: placeholders become ``%s``
(once per distinct text, cached), ``BEGIN IMMEDIATE`` becomes ``BEGIN`` plus a
transaction-scoped advisory lock, so writers take turns exactly as on SQLite (one writer
at a time, readers never blocked), which is what keeps "find the work by alias, else
insert it" free of duplicates when several processes ingest at once.

Every connection gets the connect and statement timeouts of the settings; TLS and every
other libpq parameter come from the URL itself (``?sslmode=verify-full&sslrootcert=…``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import unquote

from prioris.config import is_postgres_url as config_is_postgres_url
from prioris.errors import ConfigurationError

WRITE_LOCK_KEY = 0x5052494F  # "PRIO": the advisory lock every writing transaction takes
MIGRATION_LOCK_KEY = 0x5052494D  # "PRIM": schema changes, one process at a time
DEFAULT_CONNECT_TIMEOUT = 10
DEFAULT_STATEMENT_TIMEOUT_MS = 300_000

_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?|%")
_SQL_CACHE: dict[tuple[str, bool], str] = {}
_SQL_CACHE_LOCK = threading.Lock()


class ServerUnreachable(ConfigurationError):
    """No connection to the server could be made (down, refused, timed out): a library
    with replicas still reads from them. ``reason``: the driver's words, secrets scrubbed."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and config_is_postgres_url(location)


_SECRET_KEYS = ("password", "sslpassword")


def _split_netloc(rest: str) -> tuple[str, str]:
    """``user:pw@hosts`` and what follows it (path and query). The userinfo ends at the
    last ``@`` before the query, so a password holding an unencoded ``/`` stays in it."""
    query = rest.find("?")
    at = rest.rfind("@", 0, query if query >= 0 else len(rest))
    start = at + 1
    ends = [i for i in (rest.find("/", start), rest.find("?", start)) if i >= 0]
    end = min(ends, default=len(rest))
    return rest[:end], rest[end:]


def _looks_like_userinfo(text: str) -> bool:
    """``user:...`` before any ``/`` or ``?``: the start of a userinfo, not a path."""
    colon = text.find(":")
    stops = [i for i in (text.find("/"), text.find("?")) if i >= 0]
    return colon > 0 and colon < min(stops, default=len(text))


def _secrets(url: str) -> list[str]:
    """The secret values a URL carries: the userinfo password and secret query values
    (raw and percent-decoded), longest first, so a message can be scrubbed of them."""
    found: list[str] = []
    netloc, _ = _split_netloc(url.split("://", 1)[-1])
    userinfo, at, _ = netloc.rpartition("@")
    if at and ":" in userinfo:
        found.append(userinfo.split(":", 1)[1])
    query = url.split("?", 1)[1] if "?" in url else ""
    for pair in query.split("&"):
        key, eq, value = pair.partition("=")
        if eq and unquote(key).strip().lower() in _SECRET_KEYS and value:
            found.append(value)
    decoded = [unquote(v) for v in found]
    return sorted({v for v in [*found, *decoded] if v}, key=len, reverse=True)


def redact(url: str) -> str:
    """The URL without its secrets, for messages and ``prioris status``: the password of
    its userinfo and the values of ``password`` and ``sslpassword`` in its query become
    ``***``. Read as text (no port parsing, any number of hosts), so it never raises
    on a URL libpq itself would refuse."""
    try:
        scheme, sep, rest = url.partition("://")
        if not sep:
            return url
        netloc, tail = _split_netloc(rest)
        userinfo, at, hosts = netloc.rpartition("@")
        if at and ":" in userinfo:
            netloc = f"{userinfo.split(':', 1)[0]}:***@{hosts}"
        elif not at and _looks_like_userinfo(rest.rpartition("@")[0]):
            # the password held a '?': hide everything up to the host
            return f"{scheme}://***@{rest.rpartition('@')[2]}"
        path, question, query = tail.partition("?")
        if question:
            pairs = []
            for pair in query.split("&"):
                key, eq, value = pair.partition("=")
                if eq and unquote(key).strip().lower() in _SECRET_KEYS:
                    value = "***"
                pairs.append(f"{key}{eq}{value}")
            query = "&".join(pairs)
        out = f"{scheme}://{netloc}{path}{question}{query}"
        for secret in _secrets(url):  # a password also written somewhere else
            if len(secret) >= 3:  # (a shorter one would blank out unrelated letters)
                out = out.replace(secret, "***")
        return out
    except Exception:  # pragma: no cover - text operations; never print the URL then
        return "postgresql://***"


def scrub(message: str, url: str) -> str:
    """``message`` (a driver's error) with the URL's secrets replaced by ``***``."""
    for secret in _secrets(url):
        message = message.replace(secret, "***")
    return message


def translate(sql: str, has_params: bool) -> str:
    """``?`` -> ``%s`` outside string literals; every ``%`` doubled when psycopg formats."""
    key = (sql, has_params)
    found = _SQL_CACHE.get(key)
    if found is not None:
        return found

    def swap(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "?":
            return "%s"
        # psycopg reads every % as a placeholder when it formats, quoted or not
        return token.replace("%", "%%") if has_params else token

    out = _PLACEHOLDER.sub(swap, sql)
    with _SQL_CACHE_LOCK:
        if len(_SQL_CACHE) > 4096:
            _SQL_CACHE.clear()
        _SQL_CACHE[key] = out
    return out


class _RowBase(tuple):  # type: ignore[type-arg]
    """A row read by position or by column name, like ``sqlite3.Row``."""

    __slots__ = ()
    _names: dict[str, int] = {}  # noqa: RUF012 - set per result shape

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


_ROW_CLASSES: dict[tuple[str, ...], type] = {}


def _row_factory(cursor: Any) -> Any:
    description = cursor.description
    if description is None:
        return tuple
    names = tuple(column.name for column in description)
    row_class = _ROW_CLASSES.get(names)
    if row_class is None:
        index = {name: i for i, name in enumerate(names)}
        row_class = type("Row", (_RowBase,), {"__slots__": (), "_names": index})
        if len(_ROW_CLASSES) < 1024:
            _ROW_CLASSES[names] = row_class
    return row_class


def _storable(values: Sequence[Any]) -> list[Any]:
    """Parameters PostgreSQL can store: its text cannot hold NUL, SQLite's can (U+FFFD)."""
    return [
        v.replace("\x00", "\ufffd") if isinstance(v, str) and "\x00" in v else v for v in values
    ]


class PgConnection:
    """A psycopg connection with the SQLite connection's surface the storage code uses."""

    def __init__(self, raw: Any, url: str) -> None:
        self.raw = raw
        self.url = url

    @property
    def dialect(self) -> Any:
        from prioris.engines.postgres.index import POSTGRES_INDEX

        return POSTGRES_INDEX

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        statement = sql.strip().upper()
        if statement == "BEGIN IMMEDIATE":
            self.raw.execute("BEGIN")
            return self.raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))
        has_params = bool(params)
        values = _storable(params) if has_params else None
        return self.raw.execute(translate(sql, has_params), values)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        cursor = self.raw.cursor()
        batch = [_storable(row) for row in rows]
        if batch:
            cursor.executemany(translate(sql, True), batch)
        return cursor

    def close(self) -> None:
        self.raw.close()

    @property
    def closed(self) -> bool:
        return bool(self.raw.closed)


def connect_raw(
    url: str,
    *,
    connect_timeout: int = DEFAULT_CONNECT_TIMEOUT,
    statement_timeout_ms: int = DEFAULT_STATEMENT_TIMEOUT_MS,
) -> Any:
    """A psycopg connection in autocommit mode, or ConfigurationError saying why not."""
    try:
        import psycopg
    except ImportError as exc:
        raise ConfigurationError(
            "a postgresql:// library needs the PostgreSQL driver: pip install 'prioris[postgres]'"
        ) from exc
    kwargs: dict[str, Any] = {"autocommit": True, "row_factory": _row_factory}
    if "connect_timeout" not in url:
        kwargs["connect_timeout"] = connect_timeout
    try:
        raw = psycopg.connect(url, **kwargs)
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        reason = scrub(reason, url)  # libpq echoes a connection string it cannot parse
        message = (
            f"cannot reach the PostgreSQL library {redact(url)}: {reason} (--db, PRIORIS_MCP_DB)"
        )
        if isinstance(exc, psycopg.OperationalError):
            raise ServerUnreachable(message, reason) from None
        raise ConfigurationError(message) from None
    raw.execute(f"SET statement_timeout = {int(statement_timeout_ms)}")
    raw.execute("SET lock_timeout = 0")
    return raw
