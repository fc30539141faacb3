"""The PostgreSQL chunk index: a generated ``tsvector`` and a ``vector(dim)`` with HNSW.

Full text needs no writes of its own: ``chunks.tsv`` is generated from the passage, its
heading and the work's title (copied into the chunk by triggers, weight A). Vectors live
in ``chunk_vectors`` beside the chunk's work, source and year (the filters a KNN applies
without a join); the table is created here because its dimension is the model's, and a
model change recreates it and marks every chunk stale, as on SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from prioris.models import Chunk

VECTOR_TABLE = "chunk_vectors"
HNSW_INDEX = "chunk_vectors_hnsw"
HNSW_BUILD_MEMORY = "256MB"  # maintenance_work_mem of a small build (the floor)
# pgvector builds fast while the whole graph fits in maintenance_work_mem and slows down
# once it spills ("hnsw graph no longer fits into maintenance_work_mem"): a vector of 384
# floats and its neighbour lists take about 2.5 KB, so a build asks for that per row, from
# the floor up to a ceiling a lab server can spare once (docs/benchmarks.md section 10)
HNSW_BYTES_PER_ROW = 2560
HNSW_MEMORY_CEILING_MB = 4096


def hnsw_build_memory(rows: int) -> str:
    """``maintenance_work_mem`` for an HNSW build over ``rows`` vectors."""
    wanted = rows * HNSW_BYTES_PER_ROW // (1 << 20) + 64
    return f"{min(max(wanted, 256), HNSW_MEMORY_CEILING_MB)}MB"


def vector_table_sql(dim: int) -> list[str]:
    return [
        f"CREATE TABLE IF NOT EXISTS {VECTOR_TABLE} ("
        "chunk_id BIGINT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE, "
        f"embedding vector({int(dim)}) NOT NULL, "
        "work_id TEXT COLLATE \"C\" NOT NULL, source TEXT NOT NULL DEFAULT '', year BIGINT)",
        f"CREATE INDEX IF NOT EXISTS chunk_vectors_work ON {VECTOR_TABLE}(work_id)",
        hnsw_index_sql(),
    ]


def hnsw_index_sql() -> str:
    return (
        f"CREATE INDEX IF NOT EXISTS {HNSW_INDEX} ON {VECTOR_TABLE} "
        "USING hnsw (embedding vector_cosine_ops)"
    )


class PostgresChunkIndex:
    name = "postgresql"

    @staticmethod
    def byte_length(expression: str) -> str:
        return f"octet_length({expression})"

    @staticmethod
    def text_sql(expression: str) -> str:
        """The column itself: PostgreSQL keeps passage text as text (its TOAST compresses
        values past ~2 KB on its own)."""
        return expression

    @staticmethod
    def pack_text(text: str) -> Any:
        return text

    @staticmethod
    def read_text(value: Any, work_id: str) -> Any:
        """Stored as text: nothing to unpack."""
        return value

    def ensure_vector_index(self, conn: Any, model_id: str, dim: int) -> int:
        from prioris.storage.chunks import bump_vectors_version, get_state, set_state

        stored_model = get_state(conn, "embedding_model")
        stored_dim = get_state(conn, "embedding_dim")
        if stored_model == model_id and stored_dim == str(dim) and has_vector_table(conn):
            return 0
        conn.execute("BEGIN IMMEDIATE")
        try:  # another process may have done it while this one waited for the lock
            stored_model = get_state(conn, "embedding_model")
            stored_dim = get_state(conn, "embedding_dim")
            if stored_model == model_id and stored_dim == str(dim) and has_vector_table(conn):
                conn.execute("COMMIT")
                return 0
            conn.execute(f"DROP TABLE IF EXISTS {own(conn, VECTOR_TABLE)}")
            for statement in vector_table_sql(dim):
                conn.execute(statement)
            stale = conn.execute("UPDATE chunks SET embedding_model = NULL").rowcount
            bump_vectors_version(conn)
            set_state(conn, "embedding_model", model_id)
            set_state(conn, "embedding_dim", str(dim))
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
        return max(stale, 0)

    def delete_rows(self, conn: Any, ids: Sequence[int]) -> None:
        """Nothing to do: the tsvector is in the row, vectors go by ON DELETE CASCADE."""

    def update_year(self, conn: Any, ids: Sequence[int], year: int | None) -> None:
        if ids:
            conn.execute(
                f"UPDATE {VECTOR_TABLE} SET year = ? WHERE chunk_id = ANY(?)", (year, list(ids))
            )

    def insert_chunks(self, conn: Any, chunks: Sequence[Chunk], title: str) -> list[int]:
        from prioris.storage.chunks import INSERT_CHUNK, chunk_row

        ids = []
        for chunk in chunks:
            ids.append(
                int(conn.execute(INSERT_CHUNK + " RETURNING id", chunk_row(chunk)).fetchone()[0])
            )
        return ids

    def store_vectors(
        self,
        conn: Any,
        chunk_ids: Sequence[int],
        vectors: np.ndarray,
        *,
        work_ids: Sequence[str],
        sources: Sequence[str],
        years: Sequence[int | None],
    ) -> None:
        rows = [
            (cid, np.ascontiguousarray(vec, dtype=np.float32), wid, src or "", yr)
            for cid, vec, wid, src, yr in zip(
                chunk_ids, vectors, work_ids, sources, years, strict=True
            )
        ]
        conn.executemany(
            f"INSERT INTO {VECTOR_TABLE}(chunk_id, embedding, work_id, source, year) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (chunk_id) DO UPDATE SET "
            "embedding = excluded.embedding, work_id = excluded.work_id, "
            "source = excluded.source, year = excluded.year",
            rows,
        )

    def read_vectors(self, conn: Any, chunk_ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
        rows = conn.execute(
            f"SELECT chunk_id, embedding, work_id, source, year FROM {VECTOR_TABLE} "
            "WHERE chunk_id = ANY(?)",
            (list(chunk_ids),),
        ).fetchall()
        return {int(r[0]): (_as_array(r[1]), r[2], r[3], r[4]) for r in rows}

    def index_copied_chunks(self, conn: Any, rows: Sequence[tuple[int, str, str, str]]) -> None:
        """Nothing: the tsvector is generated in the row."""

    def before_copy(self, conn: Any) -> None:
        """Into an empty vector table, the HNSW graph is built once after the copy (far
        faster than growing it row by row)."""
        if (
            has_vector_table(conn)
            and conn.execute(f"SELECT count(*) FROM {VECTOR_TABLE}").fetchone()[0] == 0
        ):
            conn.execute(f"DROP INDEX IF EXISTS {own(conn, HNSW_INDEX)}")

    def after_copy(self, conn: Any) -> None:
        """New chunks get ids past the copied ones (ids were inserted explicitly); the HNSW
        index is (re)built if the copy dropped it."""
        if has_vector_table(conn):
            rows = conn.execute(f"SELECT count(*) FROM {VECTOR_TABLE}").fetchone()[0]
            conn.execute(f"SET LOCAL maintenance_work_mem = '{hnsw_build_memory(rows)}'")
            # a million vectors take longer than a query may: the build is the copy's
            # last step, run once, so no statement time limit cuts it off at the end
            conn.execute("SET LOCAL statement_timeout = 0")
            conn.execute(hnsw_index_sql())
        conn.execute(
            "SELECT setval(pg_get_serial_sequence('chunks', 'id'), "
            "coalesce((SELECT max(id) FROM chunks), 0) + 1, false)"
        )
        conn.execute("ANALYZE")


def own(conn: Any, name: str) -> str:
    """``name`` in the library's own schema (the first of its ``search_path``).

    Several libraries may share a database, each in its schema with
    ``search_path=theirs,public``; an unqualified name missing from a library's schema
    resolves to ``public``'s. A library opened for the first time has no vector table
    yet, and ``DROP TABLE IF EXISTS chunk_vectors`` once dropped the vectors of the
    library in ``public`` (a million of them, found in a benchmark): what a library drops
    or tests for, it names in its own schema."""
    schema = conn.execute("SELECT quote_ident(current_schema())").fetchone()[0]
    return f"{schema}.{name}"


def has_vector_table(conn: Any) -> bool:
    """Whether the library's own schema has its vector table (not ``public``'s)."""
    row = conn.execute(
        "SELECT to_regclass(quote_ident(current_schema()) || '.' || ?)", (VECTOR_TABLE,)
    ).fetchone()
    return row is not None and row[0] is not None


POSTGRES_INDEX = PostgresChunkIndex()


def _as_array(value: Any) -> np.ndarray:
    """A stored vector as float32 (pgvector's adapter gives a ``Vector`` or an array)."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    return np.asarray(value, dtype=np.float32)
