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
    if is_postgres_url(location):
        from prioris.engines.postgres.storage import PostgresStorage

        url = str(location)
        return PostgresStorage(url, settings, router=Router(url, replicas=replicas))
    if replicas:
        raise ConfigurationError(
            "PRIORIS_MCP_DB_REPLICAS is set but the library is an SQLite file: replicas are "
            "hot standbys of a postgresql:// library (--db, PRIORIS_MCP_DB)"
        )
    from prioris.engines.sqlite.storage import SqliteStorage

    minimum = getattr(settings, "postings_min_chunks", None)
    return SqliteStorage(location, postings_min_chunks=minimum, router=Router(Path(location)))


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
