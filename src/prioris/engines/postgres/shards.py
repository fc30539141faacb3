"""A library spread over shards: the primary keeps what is library-wide, each work's
passages, vectors and pages live on the shard its id picks (``PRIORIS_MCP_DB_SHARDS``).

Each shard is a PostgreSQL database with the library's normal schema (the same
migrations), holding a copy of its works' rows beside their passages: opened on its own it
is a valid library of those works. Placement is :meth:`Router.shard_of` (the SHA-256 of
the work's id modulo the number of shards), so the list of shards is part of the library:
the primary records how many there are and each shard its place in the list, and a
library opened with another count or order is refused (its works would be looked for on
the wrong servers) -- as is a one-server library that holds passages (``prioris
migrate-to`` copies one into shards) and a sharded primary opened without its shards.

Statements are routed by :class:`~prioris.engines.postgres.sharded.ShardedConnection`;
searches ask every shard at once (:mod:`~prioris.engines.postgres.sharded_search`).
"""

from __future__ import annotations

import logging
from typing import Any

from prioris.engines.postgres.connection import (
    PgConnection,
    ServerUnreachable,
    connect_raw,
    redact,
)
from prioris.engines.postgres.extension import register_vector_type
from prioris.engines.postgres.replicas import STATUS_CONNECT_TIMEOUT
from prioris.engines.postgres.storage import PostgresStorage, apply_migrations
from prioris.engines.router import Router
from prioris.errors import ConfigurationError, ShardUnavailableError

log = logging.getLogger("prioris.shards")
COUNT_KEY = "shard_count"  # on the primary: how many shards the library is spread over
PLACE_KEY = "shard_place"  # on each shard: "k/n", its place in the list


def _state(raw: Any, key: str) -> str | None:
    row = raw.execute("SELECT value FROM index_state WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_state(raw: Any, key: str, value: str) -> None:
    raw.execute(
        "INSERT INTO index_state(key, value) VALUES (%s, %s) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


class ShardSet:
    """The library's shards in one process: their connections and placement."""

    def __init__(self, router: Router, *, connect_timeout: int, statement_timeout_ms: int):
        self.router = router
        self.urls: tuple[str, ...] = router.shards
        self.connect_timeout = connect_timeout
        self.statement_timeout_ms = statement_timeout_ms
        self._conns: dict[str, PgConnection] = {}

    def shard_of(self, work_id: str) -> str:
        return str(self.router.shard_of(work_id))

    def name(self, url: str) -> str:
        """A shard as messages name it: its place and its URL without the password."""
        return f"shard {self.urls.index(url) + 1} of {len(self.urls)} ({redact(url)})"

    def open_raw(self, url: str, *, migrate: bool = True) -> Any:
        """A raw connection to a shard, its schema migrated and its place checked."""
        try:
            raw = connect_raw(
                url,
                connect_timeout=min(self.connect_timeout, STATUS_CONNECT_TIMEOUT),
                statement_timeout_ms=self.statement_timeout_ms,
            )
        except ServerUnreachable as exc:
            raise ShardUnavailableError(
                f"{self.name(url)} cannot be reached ({exc.reason}): the works placed on it "
                "can be neither read nor written until it is back; nothing was written",
                shards=[redact(url)],
            ) from None
        try:
            if migrate:
                apply_migrations(raw, url)
            register_vector_type(raw, url)
            place = f"{self.urls.index(url) + 1}/{len(self.urls)}"
            held = _state(raw, PLACE_KEY)
            if held is None:
                if raw.execute("SELECT 1 FROM works LIMIT 1").fetchone() is not None:
                    raise ConfigurationError(
                        f"{self.name(url)} holds works but is no shard of this library: "
                        "shards start empty (docs/deploy.md, Shards)"
                    )
                _set_state(raw, PLACE_KEY, place)
            elif held != place:
                raise ConfigurationError(
                    f"{self.name(url)} is shard {held} of its library, not {place}: "
                    "PRIORIS_MCP_DB_SHARDS must list the shards in the order they were set up"
                )
        except BaseException:
            raw.close()
            raise
        return raw

    def connection(self, url: str) -> PgConnection:
        """The shard's connection for the library's statements (opened when first used,
        and again after it was lost)."""
        conn = self._conns.get(url)
        if conn is None or conn.closed:
            conn = self._conns[url] = PgConnection(self.open_raw(url), url)
        return conn

    def forget(self, conn: PgConnection) -> None:
        for url, held in list(self._conns.items()):
            if held is conn:
                del self._conns[url]
                if not conn.closed:
                    conn.close()

    def warn_down(self, url: str, exc: BaseException) -> None:
        log.warning("%s", exc if isinstance(exc, ShardUnavailableError) else self.name(url))

    def close(self) -> None:
        for conn in self._conns.values():
            if not conn.closed:
                conn.close()
        self._conns.clear()


class ShardedStorage(PostgresStorage):
    """A PostgreSQL library whose works live on shards (see the module text)."""

    def __init__(self, url: str, settings: Any = None, *, router: Router) -> None:
        super().__init__(url, settings, router=router)
        self.settings = settings
        self.missing = str(getattr(settings, "db_shard_missing", "fail") or "fail")
        self.shard_set = ShardSet(
            router,
            connect_timeout=self.connect_timeout,
            statement_timeout_ms=self.statement_timeout_ms,
        )
        self._shard_storages: dict[str, PostgresStorage] = {}

    def connect(self, *, migrate: bool = True) -> Any:
        from prioris.engines.postgres.sharded import ShardedConnection

        raw = self._open_primary(migrate)
        try:
            self._check_primary(raw)
        except BaseException:
            raw.close()
            raise
        return ShardedConnection(PgConnection(raw, self.location), self.shard_set)

    def _check_primary(self, raw: Any) -> None:
        count = _state(raw, COUNT_KEY)
        wanted = str(len(self.shard_set.urls))
        if count is None:
            if raw.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None:
                raise ConfigurationError(
                    f"{redact(self.location)} is a one-server library holding passages: copy "
                    "it into shards with `prioris migrate-to` (a new primary and new shards)"
                )
            _set_state(raw, COUNT_KEY, wanted)
        elif count != wanted:
            raise ConfigurationError(
                f"{redact(self.location)} is spread over {count} shards, and "
                f"PRIORIS_MCP_DB_SHARDS names {wanted}: a work's shard follows from their "
                "number, which cannot change"
            )

    def shard_storage(self, url: str) -> PostgresStorage:
        """A plain storage of one shard, for the search backend's pools."""
        found = self._shard_storages.get(url)
        if found is None:
            found = self._shard_storages[url] = PostgresStorage(url, self.settings)
            found.connect_timeout = min(found.connect_timeout, STATUS_CONNECT_TIMEOUT)
        return found

    def search_backend(self) -> Any:
        from prioris.engines.postgres.sharded_search import ShardedSearchBackend

        return ShardedSearchBackend(self)

    def servers(self) -> dict[str, Any]:
        """Each shard for ``prioris status``: ``{"url", "works", "passages", "up"}``."""
        described = []
        for url in self.shard_set.urls:
            entry: dict[str, Any] = {"url": redact(url), "works": None, "passages": None}
            try:
                raw = self.shard_set.open_raw(url, migrate=False)
            except ConfigurationError as exc:
                described.append({**entry, "up": False, "error": str(exc)})
                continue
            try:
                works = raw.execute("SELECT count(*) FROM works").fetchone()[0]
                passages = raw.execute("SELECT count(*) FROM chunks").fetchone()[0]
            finally:
                raw.close()
            described.append({**entry, "works": works, "passages": passages, "up": True})
        return {"shards": described}

    def size_bytes(self) -> int:
        """The primary's tables and every reachable shard's."""
        total = super().size_bytes()
        for url in self.shard_set.urls:
            try:
                total += self.shard_storage(url).size_bytes()
            except Exception as exc:  # a shard down: status says so beside the size
                self.shard_set.warn_down(url, exc)
        return total

    def close(self) -> None:
        for storage in self._shard_storages.values():
            storage.close()
        self._shard_storages.clear()
        self.shard_set.close()
        super().close()
