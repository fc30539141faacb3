"""The vector copy's PostgreSQL side: ``chunk_vectors`` streamed into each serving process.

pgvector's HNSW graph answers a KNN in a few milliseconds but, on a million realistic
passages whose near neighbours differ in the third decimal, finds only 0.71 of the exact
top 10 at ``ef_search`` 400 and 0.84 at pgvector's ceiling of 1000 (docs/benchmarks.md,
section 10). Past ``pg_vector_copy_min_chunks`` chunks each serving process therefore
keeps the compact copy of :mod:`prioris.search.vector_copy` (float32 below 256 MB, binary
codes and int8 rows above: ~430 MB at a million), loaded in the background on the second
vector query and used while the library's ``vectors_version`` -- read in the query's own
transaction, so a write through any process counts -- has not moved. Until it is loaded,
or when it is stale, HNSW answers as before.

The rows are read in one ``REPEATABLE READ`` transaction (the version and the rows of one
snapshot) through a server-side cursor in binary, each vector as ``vector_send``'s bytes:
a 4-byte header (dimension, unused) and big-endian float4s, decoded a batch at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from prioris.engines.postgres.index import VECTOR_TABLE, has_vector_table
from prioris.search import vector_copy
from prioris.search.vector_copy import RowBatch, Snapshot, build_snapshot
from prioris.storage.chunks import get_state, vectors_version

FETCH_ROWS = 4096
HEADER_BYTES = 4  # vector_send: int16 dimension, int16 unused


def decode(blobs: list[bytes], dim: int) -> np.ndarray:
    """``vector_send`` values (n of them) as an n x dim float32 array."""
    raw = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    rows = raw.reshape(len(blobs), HEADER_BYTES + 4 * dim)[:, HEADER_BYTES:]
    return np.ascontiguousarray(rows).view(">f4").astype(np.float32)


def _row_batches(raw: Any, dim: int) -> Iterator[RowBatch]:
    with raw.cursor(name="prioris_vector_copy", binary=True) as cursor:
        cursor.itersize = FETCH_ROWS
        cursor.execute(
            f"SELECT chunk_id, vector_send(embedding), work_id, source, year FROM {VECTOR_TABLE}"
        )
        while True:
            rows = cursor.fetchmany(FETCH_ROWS)
            if not rows:
                return
            yield RowBatch(
                chunk_ids=[r[0] for r in rows],
                vectors=decode([r[1] for r in rows], dim),
                work_ids=[r[2] for r in rows],
                sources=[r[3] for r in rows],
                years=[r[4] for r in rows],
            )


class PostgresVectors:
    """The :class:`~prioris.search.vector_copy.VectorSource` of a PostgreSQL library."""

    def __init__(self, min_rows: int) -> None:
        """``min_rows``: below this many vectors HNSW is close to exact and no copy is kept."""
        self.min_rows = max(int(min_rows), 1)

    def load(self, conn: Any) -> Snapshot | None:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            version = vectors_version(conn)
            stored_dim = get_state(conn, "embedding_dim")
            if stored_dim is None or not has_vector_table(conn):
                return None
            count = int(conn.execute(f"SELECT count(*) FROM {VECTOR_TABLE}").fetchone()[0])
            if count < self.min_rows:
                return None
            dim = int(stored_dim)

            def sample() -> np.ndarray:
                # ordered: a plain LIMIT may start anywhere (synchronised scans), and the
                # quantiser, so the lists, would differ from one load to the next
                rows = conn.execute(
                    f"SELECT vector_send(embedding) FROM {VECTOR_TABLE} "
                    f"ORDER BY chunk_id LIMIT {vector_copy.SAMPLE_ROWS}"
                ).fetchall()
                return decode([bytes(r[0]) for r in rows], dim)

            return build_snapshot(version, count, dim, sample, _row_batches(conn.raw, dim))
        finally:
            conn.execute("COMMIT")

    def stored_vectors(self, conn: Any, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        """One query for the few rows the compact copy's head needs rescored."""
        if not chunk_ids:
            return {}
        rows = conn.execute(
            f"SELECT chunk_id, vector_send(embedding) FROM {VECTOR_TABLE} WHERE chunk_id = ANY(?)",
            (list(chunk_ids),),
        ).fetchall()
        if not rows:
            return {}
        dim = (len(bytes(rows[0][1])) - HEADER_BYTES) // 4
        vectors = decode([bytes(r[1]) for r in rows], dim)
        return {int(r[0]): vectors[i] for i, r in enumerate(rows)}
