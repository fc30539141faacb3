"""One vector per work: its title and abstract embedded as one text, beside its chunks'.

A passage vector sees one part of a paper; the work vector sees what the paper is about.
Vector search scores a work by both (:func:`prioris.search.service.SearchService`), which
won every split of both development sets (docs/benchmarks.md, section 9). The rows are
plain (float16 bytes; float32 in libraries of earlier releases) and read by work id, with
the same SQL on SQLite and PostgreSQL: only the works a chunk KNN found are rescored, so
no second vector index is needed.

A vector is current when its ``model`` is the library's embedding model; a new title or
abstract drops it (a trigger), as does re-indexing the work's chunks, until ingest or
``prioris reindex`` stores the new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from prioris.models import WORK_TEXT_CHARS

BATCH = 500  # ids per IN (...) list


def pack(vector: np.ndarray) -> bytes:
    """A vector as stored: float16, half of float32's room (a work vector only rescores
    the works a chunk KNN found; float16 moves a cosine by ~1e-5, docs/benchmarks.md)."""
    return np.ascontiguousarray(vector, dtype="<f2").tobytes()


def unpack(blob: bytes, dim: int) -> np.ndarray:
    """A stored vector as float32: float16 rows, or float32 ones an earlier release wrote
    (told apart by length against the model's dimension)."""
    if len(blob) == 2 * dim:
        return np.frombuffer(blob, dtype="<f2").astype(np.float32)
    return np.frombuffer(blob, dtype="<f4")


def store(conn: Any, work_id: str, vector: np.ndarray, model_id: str) -> None:
    """Store (or replace) a work's vector, inside the caller's transaction."""
    blob = pack(vector)
    conn.execute(
        "INSERT INTO work_vectors(work_id, model, embedding) VALUES (?, ?, ?) "
        "ON CONFLICT(work_id) DO UPDATE SET model = excluded.model, "
        "embedding = excluded.embedding",
        (work_id, model_id, blob),
    )


def read(conn: Any, work_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """The current vectors (of the library's model) of these works; absent ones are left
    out (a work without one is scored by its chunks alone)."""
    found: dict[str, np.ndarray] = {}
    ids = list(dict.fromkeys(work_ids))
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        marks = ", ".join("?" for _ in batch)
        for work_id, blob, dim in conn.execute(
            "SELECT v.work_id, v.embedding, d.value FROM work_vectors v JOIN index_state s "
            "ON s.key = 'embedding_model' AND s.value = v.model "
            "JOIN index_state d ON d.key = 'embedding_dim' "
            f"WHERE v.work_id IN ({marks})",
            batch,
        ):
            found[str(work_id)] = unpack(bytes(blob), int(dim))
    return found


def read_rows(conn: Any, work_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """Whole rows ``(work_id, model, embedding)`` (a library being copied)."""
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(work_ids), BATCH):
        batch = list(work_ids[start : start + BATCH])
        marks = ", ".join("?" for _ in batch)
        rows += [
            (r[0], r[1], bytes(r[2]))
            for r in conn.execute(
                f"SELECT work_id, model, embedding FROM work_vectors WHERE work_id IN ({marks})",
                batch,
            )
        ]
    return rows


def insert_rows(conn: Any, rows: Sequence[tuple[Any, ...]]) -> None:
    conn.executemany(
        "INSERT INTO work_vectors(work_id, model, embedding) VALUES (?, ?, ?)",
        rows,
    )


_MISSING = (
    "FROM works w WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.work_id = w.id) "
    "AND NOT EXISTS (SELECT 1 FROM work_vectors v WHERE v.work_id = w.id AND v.model = ?)"
)


def missing(
    conn: Any,
    model_id: str,
    limit: int,
    *,
    after: str = "",
    work_ids: Sequence[str] | None = None,
) -> list[tuple[str, str, str | None, str]]:
    """Works with chunks but no vector of ``model_id``, by id past ``after`` (reindex;
    only ``work_ids`` when given): ``(work_id, title, abstract, head of the Markdown)``
    each, what ``pipeline.work_text`` reads."""
    among, params = "", []
    if work_ids is not None:
        among = f" AND w.id IN ({', '.join('?' for _ in work_ids) or 'NULL'})"
        params = list(work_ids)
    rows = conn.execute(
        "SELECT w.id, w.title, w.abstract, substr(w.markdown, 1, ?) "
        f"{_MISSING} AND w.id > ?{among} ORDER BY w.id LIMIT ?",
        (WORK_TEXT_CHARS, model_id, after, *params, limit),
    ).fetchall()
    return [(str(r[0]), r[1] or "", r[2], r[3] or "") for r in rows]


def count_missing(conn: Any, model_id: str) -> int:
    return int(conn.execute(f"SELECT count(*) {_MISSING}", (model_id,)).fetchone()[0])
