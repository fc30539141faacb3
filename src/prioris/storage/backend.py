"""The storage seam: which backend a library location names, and what each provides.

A library location is a file path (SQLite, the default) or a ``postgresql://`` URL
(PostgreSQL with pgvector). Everything above storage receives a connection from
:meth:`StorageBackend.connect` and calls the storage modules (``works``, ``documents``,
``chunks`` ...), whose SQL is one text for both backends; the two things that genuinely
differ are behind two small interfaces:

- :class:`ChunkIndex`: the full-text rows and vectors of chunks (FTS5 + ``vec0`` on
  SQLite; a generated ``tsvector`` + ``vector(dim)`` with HNSW on PostgreSQL), reached
  from a connection through :func:`index_of`;
- :class:`StorageBackend`: opening connections (migrations included), the search backend
  (:class:`prioris.search.protocols.SearchBackend`) and the size a status reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from prioris.models import Chunk


class ChunkIndex(Protocol):
    """Full-text rows and vectors of chunks, written inside the caller's transaction."""

    name: str

    def byte_length(self, expression: str) -> str:
        """SQL for the UTF-8 byte length of a text expression."""
        ...

    def ensure_vector_index(self, conn: Any, model_id: str, dim: int) -> int:
        """Make the vector index match the model; how many chunks became stale."""
        ...

    def insert_chunks(self, conn: Any, chunks: Sequence[Chunk], title: str) -> list[int]: ...

    def delete_rows(self, conn: Any, ids: Sequence[int]) -> None:
        """Forget the index rows of chunks about to be deleted."""
        ...

    def update_year(self, conn: Any, ids: Sequence[int], year: int | None) -> None: ...

    def store_vectors(
        self,
        conn: Any,
        chunk_ids: Sequence[int],
        vectors: np.ndarray,
        *,
        work_ids: Sequence[str],
        sources: Sequence[str],
        years: Sequence[int | None],
    ) -> None: ...

    def read_vectors(self, conn: Any, chunk_ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
        """``{chunk_id: (vector, work_id, source, year)}``: what a copy carries over."""
        ...

    def index_copied_chunks(self, conn: Any, rows: Sequence[tuple[int, str, str, str]]) -> None:
        """Index chunks copied with their ids: ``(id, text, title, heading)`` each."""
        ...

    def before_copy(self, conn: Any) -> None:
        """Get ready for a bulk copy (PostgreSQL: build the HNSW graph after it)."""
        ...

    def after_copy(self, conn: Any) -> None:
        """Bring id counters past the copied rows and finish what ``before_copy`` put off."""
        ...


class StorageBackend(Protocol):
    """A library's storage: connections, its search backend and its size."""

    kind: str  # "sqlite" or "postgresql"
    location: str

    def connect(self, *, migrate: bool = True) -> Any:
        """A connection the storage modules use (schema migrated unless ``migrate=False``)."""
        ...

    def search_backend(self) -> Any:
        """The :class:`~prioris.search.protocols.SearchBackend` over this library."""
        ...

    def size_bytes(self) -> int:
        """Bytes the library occupies (file + WAL, or the database's tables)."""
        ...

    def display(self) -> str:
        """The location for people to read (a URL without its password)."""
        ...

    def close(self) -> None: ...


def index_of(conn: Any) -> ChunkIndex:
    """The chunk index of a connection's backend (plain sqlite3 connections: SQLite)."""
    found = getattr(conn, "dialect", None)
    if found is None:
        from prioris.storage.sqlite_index import SQLITE_INDEX

        return SQLITE_INDEX
    return found  # type: ignore[no-any-return]


class SqliteStorage:
    """A library in one SQLite file (WAL): one writer connection, a reader per thread."""

    kind = "sqlite"

    def __init__(self, path: Path | str, *, postings_min_chunks: int | None = None) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.postings_min_chunks = postings_min_chunks

    def connect(self, *, migrate: bool = True) -> Any:
        from prioris.storage.db import connect

        return connect(self.path, migrate=migrate)

    def search_backend(self) -> Any:
        from prioris.search.postings import sidecar_path
        from prioris.search.sqlite_backend import FTS_SPLIT_ROWS, SqliteSearchBackend

        in_memory = str(self.path) == ":memory:"
        minimum = self.postings_min_chunks
        return SqliteSearchBackend(
            lambda: self.connect(migrate=False),
            postings_path=None if in_memory else sidecar_path(self.path),
            postings_min_rows=FTS_SPLIT_ROWS if minimum is None else minimum,
        )

    def size_bytes(self) -> int:
        db = self.path
        files = (db, Path(f"{db}-wal"), Path(f"{db}-shm"))
        return sum(p.stat().st_size for p in files if p.exists())

    def display(self) -> str:
        return str(self.path)

    def close(self) -> None:
        return None


def open_storage(location: Path | str, settings: Any = None) -> StorageBackend:
    """The backend a library location names: ``postgresql://`` URL, else an SQLite file."""
    from prioris.storage.postgres.connection import is_postgres_url

    if is_postgres_url(location):
        from prioris.storage.postgres.storage import PostgresStorage

        return PostgresStorage(str(location), settings)
    minimum = getattr(settings, "postings_min_chunks", None)
    return SqliteStorage(location, postings_min_chunks=minimum)
