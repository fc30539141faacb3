"""The vector copy's SQLite side: ``vec0`` streamed into memory, and rows read back.

sqlite-vec's ``vec0`` stays the index of record; its brute-force scan costs several
milliseconds per query at 10,000 chunks (more for the deep lists hybrid asks for), tens
at 100,000 and about half a second at a million, so past ``MIN_VECTORS`` chunks KNN is
answered from the in-memory copy of :mod:`prioris.search.vector_copy` while it is fresh.
This module says how that copy reads a SQLite library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from prioris.engines.sqlite.index import VEC_TABLE
from prioris.search import vector_copy
from prioris.search.vector_copy import (
    RowBatch,
    Snapshot,
    build_snapshot,
    copy_bytes,
    one_blas_thread,
)
from prioris.storage.chunks import vectors_version

__all__ = ["Snapshot", "SqliteVectors", "VectorCache", "copy_bytes", "one_blas_thread"]

FETCH_ROWS = 4096


def _batches(conn: Any, sql: str) -> Iterator[list[Any]]:
    cursor = conn.execute(sql)
    while True:
        rows = cursor.fetchmany(FETCH_ROWS)
        if not rows:
            return
        yield rows


def _row_batches(conn: Any, dim: int) -> Iterator[RowBatch]:
    select = f"SELECT chunk_id, embedding, work_id, source, year FROM {VEC_TABLE}"
    for rows in _batches(conn, select):
        block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        yield RowBatch(
            chunk_ids=[r[0] for r in rows],
            vectors=block.reshape(len(rows), dim),
            work_ids=[r[2] for r in rows],
            sources=[r[3] for r in rows],
            years=[r[4] for r in rows],
        )


def load_snapshot(conn: Any) -> Snapshot | None:
    """Read the vector table in one read transaction (a consistent snapshot)."""
    conn.execute("BEGIN")
    try:
        version = vectors_version(conn)
        count = conn.execute(
            "SELECT count(*) FROM chunks WHERE embedding_model IS NOT NULL"
        ).fetchone()[0]
        dim_row = conn.execute("SELECT value FROM index_state WHERE key = 'embedding_dim'")
        dim = int(dim_row.fetchone()[0])

        def sample() -> np.ndarray:
            rows = conn.execute(
                f"SELECT embedding FROM {VEC_TABLE} LIMIT {vector_copy.SAMPLE_ROWS}"
            ).fetchall()
            return np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32)

        return build_snapshot(version, count, dim, sample, _row_batches(conn, dim))
    finally:
        conn.execute("COMMIT")


def stored_vectors(conn: Any, chunk_ids: list[int]) -> dict[int, np.ndarray]:
    """Point reads of ``vec0`` (an ``IN`` list would scan its vector chunks)."""
    sql = f"SELECT embedding FROM {VEC_TABLE} WHERE chunk_id = ?"
    found = {}
    for chunk_id in chunk_ids:
        row = conn.execute(sql, (chunk_id,)).fetchone()
        if row is not None:
            found[chunk_id] = np.frombuffer(row[0], dtype=np.float32)
    return found


class SqliteVectors:
    """The :class:`~prioris.search.vector_copy.VectorSource` of a SQLite library."""

    def load(self, conn: Any) -> Snapshot | None:
        # read, not mapped: streaming the whole vector table through this connection's
        # mmap would leave ~1.5 GB of file pages in the process at a million chunks
        conn.execute("PRAGMA mmap_size = 0")
        return load_snapshot(conn)

    def stored_vectors(self, conn: Any, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        return stored_vectors(conn, chunk_ids)


class VectorCache(vector_copy.VectorCache):
    """The vector copy of a SQLite library (``connect_reader`` opens a read connection)."""

    def __init__(self, connect_reader: Callable[[], Any], *, background: bool = True) -> None:
        super().__init__(connect_reader, SqliteVectors(), background=background)
