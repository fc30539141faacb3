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

The engines themselves live in :mod:`prioris.engines` (one package each); only the
composition root picks one (:func:`prioris.engines.open_storage`). Every connection an
engine opens carries its chunk index as ``conn.dialect``, so the repositories here reach
it without knowing the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from prioris.models import Chunk


class ChunkIndex(Protocol):
    """Full-text rows and vectors of chunks, written inside the caller's transaction."""

    name: str

    def byte_length(self, expression: str) -> str:
        """SQL for the UTF-8 byte length of a text expression."""
        ...

    def text_sql(self, expression: str) -> str:
        """SQL reading ``chunks.text`` (``expression``) as text: SQLite stores it packed."""
        ...

    def pack_text(self, text: str) -> Any:
        """The value ``chunks.text`` stores for a passage's ``text``."""
        ...

    def read_text(self, value: Any, work_id: str) -> Any:
        """The text of a stored ``chunks.text`` value of ``work_id``: a value that cannot
        be read is ``DamagedLibraryError`` naming the work (SQL's ``text_sql`` reads such
        a value as '', for the full-text index's own upkeep)."""
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

    def compact(
        self,
        conn: Any,
        lock: AbstractContextManager[Any],
        on_progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Store what an earlier release wrote in today's smaller form and give the space
        back: ``{packed, work_vectors, bytes_before, bytes_after, vacuumed}``."""
        ...

    def display(self) -> str:
        """The location for people to read (a URL without its password)."""
        ...

    def servers(self) -> dict[str, Any]:
        """The servers besides the library's own, for ``status`` (``{"replicas": [...]}``
        on PostgreSQL with read replicas; empty otherwise)."""
        ...

    def close(self) -> None: ...


def index_of(conn: Any) -> ChunkIndex:
    """The chunk index of a connection an engine opened (its ``dialect`` attribute)."""
    found = getattr(conn, "dialect", None)
    if found is None:
        raise TypeError(
            f"{type(conn).__name__} carries no chunk index: open connections through "
            "StorageBackend.connect() (prioris.engines.open_storage)"
        )
    return found  # type: ignore[no-any-return]
