"""The database engines, one package each, behind :mod:`prioris.storage.backend`'s protocols.

- :mod:`prioris.engines.sqlite`: one file with FTS5, sqlite-vec and the BM25 postings
  sidecar;
- :mod:`prioris.engines.postgres`: PostgreSQL with pgvector (``pip install
  prioris[postgres]``), imported only when a ``postgresql://`` location asks for it.

Only the composition root (:mod:`prioris.compose`) calls :func:`open_storage`;
everything else receives the :class:`~prioris.storage.backend.StorageBackend` it returns
or a connection from it. A new engine is a package here implementing ``StorageBackend``,
``ChunkIndex`` and ``SearchBackend``, plus one branch below.

Which server each connection goes to is :class:`prioris.engines.router.Router`'s business:
:func:`open_storage` builds one from the location and hands it to the engine, whose
storage opens writers at ``for_write()`` and readers at ``for_read()``, or at a read
replica when the PostgreSQL engine's replica set picks one. Nothing outside ``engines/``
imports the router.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prioris.engines.postgres.connection import is_postgres_url
from prioris.engines.router import Router
from prioris.errors import ConfigurationError
from prioris.storage.backend import StorageBackend


def open_storage(location: Path | str, settings: Any = None) -> StorageBackend:
    """The backend a library location names: ``postgresql://`` URL, else an SQLite file."""
    replicas = tuple(getattr(settings, "db_replicas", ()) or ())
    shards = tuple(getattr(settings, "db_shards", ()) or ())
    if is_postgres_url(location):
        url = str(location)
        if shards:
            return _sharded(url, replicas, shards, settings)
        from prioris.engines.postgres.storage import PostgresStorage

        return PostgresStorage(url, settings, router=Router(url, replicas=replicas))
    if shards:
        raise ConfigurationError(
            "PRIORIS_MCP_DB_SHARDS is set but the library is an SQLite file: shards spread "
            "a postgresql:// library (--db, PRIORIS_MCP_DB) over several PostgreSQL servers"
        )
    if replicas:
        raise ConfigurationError(
            "PRIORIS_MCP_DB_REPLICAS is set but the library is an SQLite file: replicas are "
            "hot standbys of a postgresql:// library (--db, PRIORIS_MCP_DB)"
        )
    from prioris.engines.sqlite.storage import SqliteStorage

    minimum = getattr(settings, "postings_min_chunks", None)
    return SqliteStorage(location, postings_min_chunks=minimum, router=Router(Path(location)))


def _sharded(
    url: str, replicas: tuple[str, ...], shards: tuple[str, ...], settings: Any
) -> StorageBackend:
    """A library spread over shards (:mod:`prioris.engines.postgres.shards`)."""
    from prioris.engines.postgres.connection import redact
    from prioris.engines.postgres.shards import ShardedStorage

    if replicas:
        raise ConfigurationError(
            "PRIORIS_MCP_DB_REPLICAS and PRIORIS_MCP_DB_SHARDS are both set: a sharded "
            "library has no read replicas yet (docs/deploy.md, Shards); unset one"
        )
    if url in shards:
        raise ConfigurationError(
            f"PRIORIS_MCP_DB_SHARDS names the library's primary {redact(url)} itself: "
            "each shard is a database of its own"
        )
    return ShardedStorage(url, settings, router=Router(url, shards=shards))


def database_errors() -> tuple[type[Exception], ...]:
    """The driver errors of every engine installed: what a locked, read-only or full
    library raises, which the CLI reports as a configuration error, not a traceback."""
    from prioris.engines.sqlite.connection import sqlite3

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the postgres extra is not installed
        return errors
    return (*errors, psycopg.Error)


def display_location(location: Path | str) -> str:
    """A library location for people to read: a URL without its password."""
    if is_postgres_url(location):
        from prioris.engines.postgres.connection import redact

        return redact(str(location))
    return str(location)
