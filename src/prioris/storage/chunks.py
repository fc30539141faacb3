"""Chunks with their FTS5 rows and sqlite-vec vectors, kept in step in one transaction.

The ``vec0`` table is created here rather than in a migration because its dimension is
that of the configured embedding model: a model change recreates it and marks every chunk
stale (``embedding_model`` NULL) until ``prioris reindex`` re-embeds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from prioris.models import Chunk, Page

VEC_TABLE = "chunks_vec"


def vec_table_sql(dim: int) -> str:
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VEC_TABLE} USING vec0("
        f"chunk_id INTEGER PRIMARY KEY, embedding float[{dim}] distance_metric=cosine, "
        "work_id TEXT, source TEXT, year INTEGER)"  # vec0 metadata cannot be NULL: year 0 = unknown
    )


def get_state(conn: Any, key: str) -> str | None:
    row = conn.execute("SELECT value FROM index_state WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_state(conn: Any, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO index_state(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def bump_vectors_version(conn: Any) -> None:
    """Count every change to the vector index, so in-memory copies know they are stale."""
    conn.execute(
        "INSERT INTO index_state(key, value) VALUES ('vectors_version', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )


def vectors_version(conn: Any) -> int:
    return int(get_state(conn, "vectors_version") or 0)


def ensure_vector_index(conn: Any, model_id: str, dim: int) -> int:
    """Make the vector index match the model; returns how many chunks became stale."""
    stored_model, stored_dim = get_state(conn, "embedding_model"), get_state(conn, "embedding_dim")
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


def delete_chunks_of(conn: Any, work_id: str) -> None:
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE work_id = ?", (work_id,))]
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ", ".join("?" for _ in batch)
        conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({marks})", batch)
        conn.execute(f"DELETE FROM {VEC_TABLE} WHERE chunk_id IN ({marks})", batch)
    conn.execute("DELETE FROM chunks WHERE work_id = ?", (work_id,))
    if ids:
        bump_vectors_version(conn)


def update_work_fields(conn: Any, work_id: str, title: str, year: int | None) -> None:
    """Carry a work's new year into the vec0 year filter (call after updating the works row).

    The FTS index reads titles from ``works`` (external content): the ``works_title_fts``
    trigger re-indexes a work's chunks in the same statement that changes its title, so
    ``title`` needs no work here. Vectors are not recomputed: a title is a small part of
    what each chunk's embedding saw.
    """
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE work_id = ?", (work_id,))]
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ", ".join("?" for _ in batch)
        conn.execute(
            f"UPDATE {VEC_TABLE} SET year = ? WHERE chunk_id IN ({marks})", [year or 0, *batch]
        )
    if ids:
        bump_vectors_version(conn)


def replace_pages(conn: Any, work_id: str, pages: Sequence[tuple[Page, int, int]]) -> None:
    """Page spans (page, char_start, char_end) of the work's Markdown."""
    conn.execute("DELETE FROM pages WHERE work_id = ?", (work_id,))
    conn.executemany(
        "INSERT INTO pages(work_id, number, char_start, char_end, ocr) VALUES (?, ?, ?, ?, ?)",
        [(work_id, p.number, start, end, int(p.ocr)) for p, start, end in pages],
    )


def insert_chunks(conn: Any, chunks: Sequence[Chunk], title: str) -> list[int]:
    """Insert chunks and their FTS rows; returns the new chunk ids in order."""
    ids = []
    for chunk in chunks:
        cursor = conn.execute(
            "INSERT INTO chunks(work_id, ordinal, text, page_start, page_end, char_start, "
            "char_end, heading, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chunk.work_id,
                chunk.ordinal,
                chunk.text,
                chunk.page_start,
                chunk.page_end,
                chunk.char_start,
                chunk.char_end,
                chunk.heading,
                chunk.token_count,
            ),
        )
        chunk_id = int(cursor.lastrowid)
        ids.append(chunk_id)
        conn.execute(
            "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
            (chunk_id, chunk.text, title, chunk.heading),
        )
    return ids


def insert_vectors(
    conn: Any,
    chunk_ids: Sequence[int],
    vectors: np.ndarray,
    model_id: str,
    *,
    work_ids: Sequence[str],
    sources: Sequence[str],
    years: Sequence[int | None],
) -> None:
    """Store one vector per chunk and mark those chunks fresh for ``model_id``."""
    rows = [
        (cid, np.ascontiguousarray(vec, dtype=np.float32).tobytes(), wid, src or "", yr or 0)
        for cid, vec, wid, src, yr in zip(chunk_ids, vectors, work_ids, sources, years, strict=True)
    ]
    conn.executemany(f"DELETE FROM {VEC_TABLE} WHERE chunk_id = ?", [(r[0],) for r in rows])
    conn.executemany(
        f"INSERT INTO {VEC_TABLE}(chunk_id, embedding, work_id, source, year) "
        "VALUES (?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany(
        "UPDATE chunks SET embedding_model = ? WHERE id = ?", [(model_id, c) for c in chunk_ids]
    )
    bump_vectors_version(conn)


def stale_chunks(conn: Any, limit: int) -> list[Any]:
    """Chunks without a vector of the current model, oldest first (for reindex)."""
    return conn.execute(
        "SELECT c.id, c.text, c.work_id, w.title, w.source, w.year FROM chunks c "
        "JOIN works w ON w.id = c.work_id WHERE c.embedding_model IS NULL "
        "ORDER BY c.id LIMIT ?",
        (limit,),
    ).fetchall()


def count_stale(conn: Any) -> int:
    return int(
        conn.execute("SELECT count(*) FROM chunks WHERE embedding_model IS NULL").fetchone()[0]
    )
