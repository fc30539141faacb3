"""A library in one SQLite file: its connections, search backend and size.

Connections are opened where the library's :class:`~prioris.engines.router.Router` says:
the writer at ``for_write()``, each search thread's WAL reader at ``for_read()`` (the same
file today).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from prioris.engines.router import Router
from prioris.engines.sqlite.connection import connect
from prioris.engines.sqlite.postings import sidecar_path
from prioris.engines.sqlite.search import FTS_SPLIT_ROWS, SqliteSearchBackend


class SqliteStorage:
    """A library in one SQLite file (WAL): one writer connection, a reader per thread."""

    kind = "sqlite"

    def __init__(
        self,
        path: Path | str,
        *,
        postings_min_chunks: int | None = None,
        router: Router | None = None,
    ) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.postings_min_chunks = postings_min_chunks
        self.router = router if router is not None else Router(self.path)
        if Path(self.router.for_write()) != self.path:
            raise ValueError(f"the router's primary is not the library file {self.path}")

    def connect(self, *, migrate: bool = True) -> Any:
        return connect(Path(self.router.for_write()), migrate=migrate)

    def connect_reader(self) -> Any:
        """A search thread's own read connection (WAL lets it read beside the writer)."""
        return connect(Path(self.router.for_read()), migrate=False)

    def search_backend(self) -> Any:
        in_memory = str(self.path) == ":memory:"
        minimum = self.postings_min_chunks
        return SqliteSearchBackend(
            self.connect_reader,
            postings_path=None if in_memory else sidecar_path(self.path),
            postings_min_rows=FTS_SPLIT_ROWS if minimum is None else minimum,
        )

    def size_bytes(self) -> int:
        db = self.path
        files = (db, Path(f"{db}-wal"), Path(f"{db}-shm"))
        return sum(p.stat().st_size for p in files if p.exists())

    def compact(
        self,
        conn: Any,
        lock: AbstractContextManager[Any],
        on_progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Pack passages stored before packing and give freed pages back (``VACUUM``)."""
        from prioris.engines.sqlite.compact import compact

        return compact(conn, lock, self.size_bytes, on_progress).to_dict()

    def display(self) -> str:
        return str(self.path)

    def servers(self) -> dict[str, Any]:
        """None: an SQLite library is one file."""
        return {}

    def close(self) -> None:
        return None
