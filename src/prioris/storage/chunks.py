"""Chunks with their full-text rows and vectors, kept in step in one transaction.

The ``chunks`` and ``pages`` tables are written with the same SQL on every backend; the
full-text rows and the vectors are the backend's (:class:`prioris.storage.backend.ChunkIndex`:
FTS5 and ``vec0`` on SQLite, a generated ``tsvector`` and a ``vector`` column on
PostgreSQL), reached through the connection so callers never ask which backend they hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from prioris.models import Chunk, Page
from prioris.storage.backend import index_of

INSERT_CHUNK = (
    "INSERT INTO chunks(work_id, ordinal, text, page_start, page_end, char_start, "
    "char_end, heading, token_count, section) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def chunk_row(chunk: Chunk, pack: Callable[[str], Any] = str) -> tuple[Any, ...]:
    """The values of :data:`INSERT_CHUNK`; ``pack`` gives the value stored for the text
    (the backend's :meth:`~prioris.storage.backend.ChunkIndex.pack_text`)."""
    return (
        chunk.work_id,
        chunk.ordinal,
        pack(chunk.text),
        chunk.page_start,
        chunk.page_end,
        chunk.char_start,
        chunk.char_end,
        chunk.heading,
        chunk.token_count,
        chunk.section,
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
        "ON CONFLICT(key) DO UPDATE SET "
        "value = CAST(CAST(index_state.value AS INTEGER) + 1 AS TEXT)"
    )


def vectors_version(conn: Any) -> int:
    return int(get_state(conn, "vectors_version") or 0)


def ensure_vector_index(conn: Any, model_id: str, dim: int) -> int:
    """Make the vector index match the model; returns how many chunks became stale."""
    return int(index_of(conn).ensure_vector_index(conn, model_id, dim))


USER_SECTIONS = ("note", "highlight")
"""Passages of the researcher's own notes (:mod:`prioris.storage.notes`), not of the text."""


def delete_chunks_of(conn: Any, work_id: str, *, keep_notes: bool = False) -> None:
    """Remove a work's passages with their full-text rows, vectors and the work's vector;
    ``keep_notes`` keeps the researcher's notes' passages (the text is parsed again)."""
    where = "work_id = ?"
    if keep_notes:
        where += " AND section NOT IN ('note', 'highlight')"
    ids = [r[0] for r in conn.execute(f"SELECT id FROM chunks WHERE {where}", (work_id,))]
    index_of(conn).delete_rows(conn, ids)
    conn.execute(f"DELETE FROM chunks WHERE {where}", (work_id,))
    conn.execute("DELETE FROM work_vectors WHERE work_id = ?", (work_id,))  # goes with them
    if ids:
        bump_vectors_version(conn)


def update_work_fields(conn: Any, work_id: str, title: str, year: int | None) -> None:
    """Carry a work's new year into the vector filters (call after updating the works row).

    The full-text index reads titles from ``works`` (a trigger re-indexes a work's chunks
    in the same statement that changes its title), so ``title`` needs no work here.
    Vectors are not recomputed: a title is a small part of what each chunk's embedding saw.
    """
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE work_id = ?", (work_id,))]
    index_of(conn).update_year(conn, ids, year)
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
    """Insert chunks and their full-text rows; returns the new chunk ids in order."""
    return list(index_of(conn).insert_chunks(conn, chunks, title))


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
    index_of(conn).store_vectors(
        conn, chunk_ids, vectors, work_ids=work_ids, sources=sources, years=years
    )
    conn.executemany(
        "UPDATE chunks SET embedding_model = ? WHERE id = ?", [(model_id, c) for c in chunk_ids]
    )
    bump_vectors_version(conn)


def stale_chunks(conn: Any, limit: int, *, after: int = 0) -> list[dict[str, Any]]:
    """Chunks without a vector of the current model, oldest first, past the chunk id
    ``after`` (for reindex, which reads ahead while batches are embedded); a damaged
    passage is an error naming its work."""
    index = index_of(conn)
    rows = conn.execute(
        "SELECT c.id, c.text, c.work_id, w.title, w.source, w.year FROM chunks c "
        "JOIN works w ON w.id = c.work_id WHERE c.embedding_model IS NULL AND c.id > ? "
        "ORDER BY c.id LIMIT ?",
        (after, limit),
    ).fetchall()
    keys = ("id", "text", "work_id", "title", "source", "year")
    found = [dict(zip(keys, row, strict=True)) for row in rows]
    for row in found:
        row["text"] = index.read_text(row["text"], row["work_id"])
    return found


def count_stale(conn: Any) -> int:
    return int(
        conn.execute("SELECT count(*) FROM chunks WHERE embedding_model IS NULL").fetchone()[0]
    )
