"""The SQLite chunk index: FTS5 rows (external content) and the sqlite-vec ``vec0`` table.

The ``vec0`` table is created here rather than in a migration because its dimension is
that of the configured embedding model: a model change recreates it and marks every chunk
stale (``embedding_model`` NULL) until ``prioris reindex`` re-embeds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from prioris.engines.sqlite import textpack
from prioris.models import Chunk

VEC_TABLE = "chunks_vec"


def vec_table_sql(dim: int) -> str:
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VEC_TABLE} USING vec0("
        f"chunk_id INTEGER PRIMARY KEY, embedding float[{dim}] distance_metric=cosine, "
        "work_id TEXT, source TEXT, year INTEGER)"  # vec0 metadata cannot be NULL: year 0 = unknown
    )


class SqliteChunkIndex:
    """FTS5 + vec0, kept in step with the ``chunks`` table inside the caller's transaction."""

    name = "sqlite"

    @staticmethod
    def byte_length(expression: str) -> str:
        return f"length(CAST({expression} AS BLOB))"

    @staticmethod
    def text_sql(expression: str) -> str:
        """SQL reading a passage's text column: it is stored packed
        (:mod:`prioris.engines.sqlite.textpack`); a damaged value reads as '' (what the
        FTS5 index's upkeep needs), so reads that show text use :meth:`read_text`."""
        return f"prioris_text({expression})"

    @staticmethod
    def pack_text(text: str) -> Any:
        """The value a passage's text column stores for ``text``."""
        return textpack.pack(text)

    @staticmethod
    def read_text(value: Any, work_id: str) -> Any:
        """A stored passage read back; a damaged one is an error naming ``work_id``."""
        return textpack.unpack(value, work_id)

    def ensure_vector_index(self, conn: Any, model_id: str, dim: int) -> int:
        from prioris.storage.chunks import bump_vectors_version, get_state, set_state

        stored_model = get_state(conn, "embedding_model")
        stored_dim = get_state(conn, "embedding_dim")
        if stored_model == model_id and stored_dim == str(dim):
            conn.execute(vec_table_sql(dim))
            return 0
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}")
            conn.execute(vec_table_sql(dim))
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
        """Forget the FTS5 and vector rows of chunks about to be deleted. FTS5 is handed
        the text it indexed to remove it; a passage that cannot be read (a damaged library
        file) cannot give it, so then these chunks' rows go now and FTS5 is rebuilt from
        its content (every passage read again: slow on a large library, but only when
        damage is deleted)."""
        if ids:  # the postings sidecar no longer covers the library by appends alone
            conn.execute(
                "UPDATE index_state SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) "
                "WHERE key = 'fts_rewrites'"
            )
        if self._any_damaged(conn, ids):
            for start in range(0, len(ids), 500):
                batch = list(ids[start : start + 500])
                marks = ", ".join("?" for _ in batch)
                conn.execute(f"DELETE FROM {VEC_TABLE} WHERE chunk_id IN ({marks})", batch)
                conn.execute(f"DELETE FROM chunks WHERE id IN ({marks})", batch)
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
            return
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({marks})", batch)
            conn.execute(f"DELETE FROM {VEC_TABLE} WHERE chunk_id IN ({marks})", batch)

    @staticmethod
    def _any_damaged(conn: Any, ids: Sequence[int]) -> bool:
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            found = conn.execute(
                f"SELECT 1 FROM chunks WHERE id IN ({marks}) AND NOT prioris_readable(text) "
                "LIMIT 1",
                batch,
            ).fetchone()
            if found is not None:
                return True
        return False

    def update_year(self, conn: Any, ids: Sequence[int], year: int | None) -> None:
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            conn.execute(
                f"UPDATE {VEC_TABLE} SET year = ? WHERE chunk_id IN ({marks})", [year or 0, *batch]
            )

    def insert_chunks(self, conn: Any, chunks: Sequence[Chunk], title: str) -> list[int]:
        from prioris.storage.chunks import INSERT_CHUNK, chunk_row

        ids = []
        for chunk in chunks:
            chunk_id = int(conn.execute(INSERT_CHUNK, chunk_row(chunk, textpack.pack)).lastrowid)
            ids.append(chunk_id)
            conn.execute(
                "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
                (chunk_id, chunk.text, title, chunk.heading),
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
            (cid, np.ascontiguousarray(vec, dtype=np.float32).tobytes(), wid, src or "", yr or 0)
            for cid, vec, wid, src, yr in zip(
                chunk_ids, vectors, work_ids, sources, years, strict=True
            )
        ]
        conn.executemany(f"DELETE FROM {VEC_TABLE} WHERE chunk_id = ?", [(r[0],) for r in rows])
        conn.executemany(
            f"INSERT INTO {VEC_TABLE}(chunk_id, embedding, work_id, source, year) "
            "VALUES (?, ?, ?, ?, ?)",
            rows,
        )

    def read_vectors(self, conn: Any, chunk_ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
        """``{chunk_id: (vector, work_id, source, year)}`` (a library being copied)."""
        found: dict[int, tuple[Any, ...]] = {}
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            for row in conn.execute(
                f"SELECT chunk_id, embedding, work_id, source, year FROM {VEC_TABLE} "
                f"WHERE chunk_id IN ({marks})",
                batch,
            ):
                vector = np.frombuffer(bytes(row[1]), dtype=np.float32)
                found[int(row[0])] = (vector, row[2], row[3], row[4] or None)
        return found

    def index_copied_chunks(self, conn: Any, rows: Sequence[tuple[int, str, str, str]]) -> None:
        """FTS rows of chunks inserted with their ids kept: (id, text, title, heading)."""
        conn.executemany(
            "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)", rows
        )

    def before_copy(self, conn: Any) -> None:
        """Nothing: vec0 has no graph to build."""

    def after_copy(self, conn: Any) -> None:
        """Nothing: SQLite's rowids continue past the largest id copied."""


SQLITE_INDEX = SqliteChunkIndex()
