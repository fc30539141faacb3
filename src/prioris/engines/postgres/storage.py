"""A library in a PostgreSQL database: connections, migrations, pool, size.

The schema comes from the numbered files of the top-level ``migrations/postgres/``
(shipped as ``prioris.migrations``) applied in order, each in one transaction, recorded
in ``schema_migrations`` as on SQLite; a session advisory lock lets several processes
open a new database at once. The ``vector`` extension must be installable, pgvector 0.8
or later (iterative index scans keep filtered KNN whole): when it is missing or older the
error says how to install it. Search reads through a small pool
(``PRIORIS_MCP_PG_POOL_SIZE`` connections), so the web app and the MCP server serve
concurrent queries. The library's :class:`~prioris.engines.router.Router` says where
each connection goes: the writer (and migrations) to ``for_write()``; with read replicas
(:mod:`~prioris.engines.postgres.replicas`) the library's connection routes each statement
(:mod:`~prioris.engines.postgres.routed`) and searches read from a replica's pool.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from prioris.engines.postgres.connection import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_STATEMENT_TIMEOUT_MS,
    MIGRATION_LOCK_KEY,
    PgConnection,
    ServerUnreachable,
    _row_factory,
    connect_raw,
    redact,
)
from prioris.engines.postgres.extension import ensure_vector_extension, register_vector_type
from prioris.engines.postgres.replicas import STATUS_CONNECT_TIMEOUT, ReplicaSet
from prioris.engines.router import Router
from prioris.errors import ConfigurationError
from prioris.storage import migrations
from prioris.storage.migrations import migrations_dir

log = logging.getLogger("prioris.replicas")
T = TypeVar("T")
MIGRATIONS_DIR = migrations_dir("postgres")


class PostgresStorage:
    kind = "postgresql"

    def __init__(self, url: str, settings: Any = None, *, router: Router | None = None) -> None:
        self.location = url
        self.router = router if router is not None else Router(url)
        if self.router.for_write() != url:
            raise ValueError(f"the router's primary is not the library {redact(url)}")
        self.connect_timeout = int(
            getattr(settings, "pg_connect_timeout_seconds", DEFAULT_CONNECT_TIMEOUT)
        )
        self.statement_timeout_ms = int(
            1000
            * getattr(settings, "pg_statement_timeout_seconds", DEFAULT_STATEMENT_TIMEOUT_MS / 1000)
        )
        self.pool_size = int(getattr(settings, "pg_pool_size", 4))
        self.ef_search = int(getattr(settings, "pg_ef_search", 400))
        # plain FTS queries ranked from the BM25 postings table from this many chunks
        self.postings_min_chunks = int(getattr(settings, "pg_postings_min_chunks", 1_000))
        # KNN from an in-process copy of the vectors from this many chunks (0: never)
        self.vector_copy_min_chunks = int(getattr(settings, "pg_vector_copy_min_chunks", 20_000))
        self._pools: dict[str, Any] = {}
        self._pool_lock = threading.Lock()
        self.replicas: ReplicaSet | None = None
        if self.router.replicas:
            self.replicas = ReplicaSet(
                self.router.replicas,
                max_lag_s=float(getattr(settings, "db_replica_max_lag_seconds", 30)),
                statement_timeout_ms=self.statement_timeout_ms,
            )

    def connect(self, *, migrate: bool = True) -> PgConnection:
        """The library's connection: the primary's, or with replicas a
        :class:`~prioris.engines.postgres.routed.RoutedConnection` that reads from them
        (and opens even while the primary is down, for reads)."""
        if self.replicas is None:
            raw = self._open_primary(migrate)
            try:
                check_unsharded(raw, self.location)
            except BaseException:
                raw.close()
                raise
            return PgConnection(raw, self.location)
        from prioris.engines.postgres.routed import RoutedConnection

        try:
            raw = self._open_primary(migrate)
            self.replicas.note_write(raw)  # what the migrations wrote is read back too
        except ServerUnreachable as exc:
            if self.replicas.choose() is None:
                raise
            self.replicas.primary_down = True
            log.warning("%s; reads go to the replicas, writes fail until it is back", exc)
            raw = None
        conn = RoutedConnection(
            raw,
            self.location,
            self.replicas,
            open_primary=lambda: self._open_primary(False),
            open_reader=self._open_reader,
        )
        if raw is None:  # not migrated now: the replicas must hold this version's schema
            newest = available_migrations()[-1][0]
            held = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
            if int(held or 0) < newest:
                conn.close()
                raise ConfigurationError(
                    f"the replicas of {redact(self.location)} hold schema version {held}, "
                    f"this Prioris needs {newest}: start the primary so it migrates"
                )
        return conn

    def _open_primary(self, migrate: bool) -> Any:
        url = str(self.router.for_write())
        raw = connect_raw(
            url,
            connect_timeout=self.connect_timeout,
            statement_timeout_ms=self.statement_timeout_ms,
        )
        try:
            if migrate:
                apply_migrations(raw, url)
            register_vector_type(raw, url)
        except BaseException:
            raw.close()
            raise
        return raw

    def _open_reader(self, url: str) -> Any:
        """A raw connection to a replica (vectors readable), or ConfigurationError."""
        raw = connect_raw(
            url,
            connect_timeout=min(self.connect_timeout, STATUS_CONNECT_TIMEOUT),
            statement_timeout_ms=self.statement_timeout_ms,
        )
        register_vector_type(raw, url)
        return raw

    def connect_reader(self) -> PgConnection:
        """A connection of its own for a long read (the vector copy's load): to a replica
        when one serves, else the primary."""
        url = self.replicas.choose() if self.replicas is not None else None
        if url is not None:
            try:
                return PgConnection(self._open_reader(url), url)
            except ConfigurationError:
                self.replicas.mark_down(url)  # type: ignore[union-attr]
        return PgConnection(self._open_primary(False), self.location)

    def run_read(self, work: Callable[[Any, str], T]) -> T:
        """``work(raw, url)`` on a pooled reader: a replica's when one serves, else the
        primary's; a replica lost on the way is marked down and the next one asked."""
        if self.replicas is None:
            with self.pool().connection() as raw:
                return work(raw, self.location)
        import psycopg
        from psycopg_pool import PoolTimeout

        for _ in range(len(self.replicas.urls)):
            url = self.replicas.choose()
            if url is None:
                break
            try:
                with self.pool(url).connection() as raw:
                    return work(raw, url)
            except psycopg.errors.QueryCanceled:
                raise
            except (psycopg.OperationalError, PoolTimeout):
                self.replicas.mark_down(url)
        with self.pool().connection() as raw:
            return work(raw, self.location)

    def pool(self, url: str | None = None) -> Any:
        """Connections for readers of ``url`` (the primary by default), opened on demand
        up to ``pool_size``."""
        url = url or str(self.router.for_read())
        with self._pool_lock:
            return self._pools.get(url) or self._open_pool(url)

    def _open_pool(self, url: str) -> Any:
        if url not in self._pools:
            from psycopg_pool import ConnectionPool

            replica = url != self.location

            def configure(raw: Any) -> None:
                raw.execute(f"SET statement_timeout = {self.statement_timeout_ms}")
                register_vector_type(raw, url)

            kwargs: dict[str, Any] = {"autocommit": True, "row_factory": _row_factory}
            if "connect_timeout" not in url:
                kwargs["connect_timeout"] = self.connect_timeout
            self._pools[url] = ConnectionPool(
                url,
                min_size=1,
                max_size=max(self.pool_size, 1),
                kwargs=kwargs,
                configure=configure,
                check=ConnectionPool.check_connection,
                timeout=STATUS_CONNECT_TIMEOUT if replica else max(self.connect_timeout, 1),
                open=True,
                name="prioris-replica" if replica else "prioris-readers",
            )
        return self._pools[url]

    def search_backend(self) -> Any:
        from prioris.engines.postgres.search import PostgresSearchBackend

        return PostgresSearchBackend(
            self,
            ef_search=self.ef_search,
            postings_min_rows=self.postings_min_chunks,
            vector_copy_min_rows=self.vector_copy_min_chunks,
        )

    def size_bytes(self) -> int:
        """The library's tables with their indexes and TOAST (this schema only)."""
        sql = (
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        )
        return int(self.run_read(lambda raw, url: raw.execute(sql).fetchone()[0]))

    def servers(self) -> dict[str, Any]:
        """The replicas for ``prioris status``: ``{"replicas": [{"url", "lag_s", "state"}]}``
        (none without replicas)."""
        return {"replicas": self.replicas.describe()} if self.replicas is not None else {}

    def compact(
        self,
        conn: Any,
        lock: AbstractContextManager[Any],
        on_progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Nothing to pack: PostgreSQL keeps passage text as text (TOAST compresses long
        values itself) and autovacuum reuses freed space."""
        size = self.size_bytes()
        return {
            "packed": 0,
            "work_vectors": 0,
            "bytes_before": size,
            "bytes_after": size,
            "vacuumed": False,
        }

    def display(self) -> str:
        return redact(self.location)

    def close(self) -> None:
        with self._pool_lock:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()
        if self.replicas is not None:
            self.replicas.close()


def check_unsharded(raw: Any, url: str) -> None:
    """Refuse a sharded library's primary opened without its shards (its passages would
    look missing and the copies of its works' rows on the shards would fall behind)."""
    row = raw.execute("SELECT value FROM index_state WHERE key = 'shard_count'").fetchone()
    if row is not None:
        raise ConfigurationError(
            f"{redact(url)} is the primary of a library spread over {row[0]} shards: set "
            "PRIORIS_MCP_DB_SHARDS to their URLs, in the same order (docs/deploy.md, Shards)"
        )


def available_migrations(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, Path]]:
    """PostgreSQL's numbered migrations (its own folder, the shared rules for names)."""
    return migrations.available_migrations(directory)


def apply_migrations(raw: Any, url: str, directory: Path = MIGRATIONS_DIR) -> list[int]:
    """Apply every migration newer than the database's version (one process at a time)."""
    raw.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
    try:
        ensure_vector_extension(raw, url)
        tables = {
            r[0]
            for r in raw.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        }
        if tables and "schema_migrations" not in tables:
            raise ConfigurationError(
                f"{redact(url)} holds another program's tables ({', '.join(sorted(tables)[:5])}), "
                "not a Prioris library (--db, PRIORIS_MCP_DB)"
            )
        raw.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        current = raw.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] or 0
        available = available_migrations(directory)
        recorded = raw.execute("SELECT version, name FROM schema_migrations").fetchall()
        migrations.check_applied({int(v): str(n) for v, n in recorded}, available, redact(url))
        applied = []
        for version, file in available:
            if version <= current:
                continue
            raw.execute("BEGIN")
            try:
                raw.execute(file.read_text(encoding="utf-8"))
                raw.execute(
                    "INSERT INTO schema_migrations(version, name, applied_at) "
                    "VALUES (%s, %s, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))",
                    (version, file.name),
                )
                raw.execute("COMMIT")
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            applied.append(version)
        return applied
    finally:
        raw.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
