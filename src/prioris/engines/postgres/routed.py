"""The library's connection when it has read replicas: reads to a standby, writes to the
primary, on the one connection object the services already use.

The services read and write through one connection (``Composition.conn``) with the
storage modules' SQL, reads as autocommit ``SELECT`` statements and writes inside
``BEGIN IMMEDIATE`` ... ``COMMIT``. :class:`RoutedConnection` keeps that surface and
sends each statement where it belongs:

- a transaction runs where its ``BEGIN`` went: ``BEGIN IMMEDIATE`` (a write) and any other
  ``BEGIN`` to the primary, ``BEGIN ... READ ONLY`` (a snapshot read) to a replica; after a
  transaction on the primary commits, the primary's WAL position is remembered so this
  process's next reads wait for a replica that has replayed it
  (:class:`~prioris.engines.postgres.replicas.ReplicaSet`);
- an autocommit statement that only reads (``SELECT``/``WITH``/``SHOW`` naming no
  writing function or clause) goes to the replica :meth:`ReplicaSet.choose` picks, or the
  primary -- except reads of ``accounts``, which the primary answers while it is up (a
  revoked token is refused at once; with the primary down no revocation can be written
  either, so a replica answers); anything else goes to the primary;
- a replica lost mid-read is marked down and the read asked again of the next choice; a
  statement a standby refuses as a write is asked of the primary.

The primary's connection is opened when first needed and again after it was lost: with
the primary down, reads keep going to the replicas and a write fails with one line
saying so, before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from prioris.engines.postgres.connection import PgConnection, ServerUnreachable, redact
from prioris.engines.postgres.replicas import ReplicaSet
from prioris.errors import ConfigurationError, ServerUnavailableError

_READS = re.compile(r"\s*(SELECT|WITH|SHOW|VALUES|TABLE)\b", re.IGNORECASE)
_WRITES = re.compile(
    r"\b(INSERT|UPDATE|DELETE|MERGE|COPY|nextval|setval|pg_advisory\w*|lo_\w+|"
    r"FOR\s+(UPDATE|SHARE|NO\s+KEY|KEY))\b",
    re.IGNORECASE,
)
_ENDS = ("COMMIT", "ROLLBACK", "END", "ABORT")
# reads the primary answers while it is up: accounts, so a token revoked there is refused
# at once by every process (a replica would accept it until it had replayed the revocation)
_FRESH = re.compile(r"\bFROM\s+accounts\b", re.IGNORECASE)


def only_reads(sql: str) -> bool:
    """Whether a statement may run on a standby: a read naming nothing that writes (what
    is unsure goes to the primary)."""
    return bool(_READS.match(sql)) and not _WRITES.search(sql)


class RoutedConnection(PgConnection):
    """A :class:`PgConnection` over the primary and the library's replicas."""

    def __init__(
        self,
        primary: Any,
        url: str,
        replicas: ReplicaSet,
        *,
        open_primary: Callable[[], Any],
        open_reader: Callable[[str], Any],
    ) -> None:
        """``primary``: the primary's raw connection, or None when it was down at open;
        ``open_primary()`` / ``open_reader(url)`` open a raw connection to each."""
        self._primary = primary
        self.url = url
        self.replicas = replicas
        self._open_primary = open_primary
        self._open_reader = open_reader
        self._readers: dict[str, Any] = {}
        self._pinned: Any = None  # the raw connection of the open transaction
        self._pinned_writes = False  # ... which is the primary's
        self._closed = False

    @property
    def raw(self) -> Any:  # type: ignore[override]
        """The primary's connection (what writes and builds use), opened when needed."""
        if self._primary is None or self._primary.closed:
            try:
                self._primary = self._open_primary()
            except ServerUnreachable as exc:
                raise ServerUnavailableError(
                    f"the library's primary server {redact(self.url)} cannot be reached "
                    f"({exc.reason}): nothing can be written until it is back, and nothing "
                    "was; reads are answered by its replicas meanwhile"
                ) from None
            self.replicas.primary_down = False
        return self._primary

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        head = sql.lstrip()[:40].upper()
        if self._pinned is not None:
            result = PgConnection(self._pinned, self.url).execute(sql, params)
            if head.startswith(_ENDS):
                writes, self._pinned, self._pinned_writes = self._pinned_writes, None, False
                if writes:
                    self.replicas.note_write(self.raw)
            return result
        if head.startswith(("BEGIN", "START TRANSACTION")):
            read_only = "READ ONLY" in sql.upper()
            raw = self._reader_raw() if read_only else self.raw
            result = PgConnection(raw, self.url).execute(sql, params)
            self._pinned, self._pinned_writes = raw, raw is self._primary
            return result
        if only_reads(sql):
            return self._read(sql, params)
        result = PgConnection(self.raw, self.url).execute(sql, params)
        if not head.startswith(("SET", "RESET")):
            self.replicas.note_write(self.raw)
        return result

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        cursor = PgConnection(self.raw, self.url).executemany(sql, rows)
        if self._pinned is None:
            self.replicas.note_write(self.raw)
        return cursor

    def _read(self, sql: str, params: Sequence[Any] | None) -> Any:
        import psycopg

        if _FRESH.search(sql):
            try:
                return PgConnection(self.raw, self.url).execute(sql, params)
            except ServerUnavailableError:
                pass  # down: nothing can be revoked meanwhile, a replica's copy is current

        for _ in range(len(self.replicas.urls)):
            url = self.replicas.choose()
            if url is None:
                break
            try:
                return PgConnection(self._reader(url), url).execute(sql, params)
            except psycopg.errors.ReadOnlySqlTransaction:
                break  # a write after all: the primary's
            except (psycopg.OperationalError, ConfigurationError) as exc:
                if isinstance(exc, psycopg.errors.QueryCanceled):
                    raise
                self._drop_reader(url)
        return PgConnection(self.raw, self.url).execute(sql, params)

    def _reader_raw(self) -> Any:
        """A replica's connection for a read-only transaction, else the primary's."""
        url = self.replicas.choose()
        if url is not None:
            try:
                return self._reader(url)
            except ConfigurationError:
                self._drop_reader(url)
        return self.raw

    def _reader(self, url: str) -> Any:
        raw = self._readers.get(url)
        if raw is None or raw.closed:
            raw = self._readers[url] = self._open_reader(url)
        return raw

    def _drop_reader(self, url: str) -> None:
        self.replicas.mark_down(url)
        raw = self._readers.pop(url, None)
        if raw is not None and not raw.closed:
            raw.close()

    def close(self) -> None:
        self._closed = True
        for raw in [self._primary, *self._readers.values()]:
            if raw is not None and not raw.closed:
                raw.close()
        self._readers.clear()

    @property
    def closed(self) -> bool:
        return self._closed
