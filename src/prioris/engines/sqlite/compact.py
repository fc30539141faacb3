"""Packing the passage text a library stored before packing, then giving the space back.

A library written by an earlier Prioris keeps its passages as TEXT and its work vectors as
float32: they read the same (:mod:`prioris.engines.sqlite.textpack`,
:func:`prioris.storage.work_vectors.unpack`), but take twice the room. ``prioris reindex
--compact`` packs them in batches, each batch one transaction (a stopped run resumes with
what is left: the rows still TEXT or float32), then runs ``VACUUM`` so the file shrinks
(SQLite only reuses freed pages otherwise). Nothing else changes: the FTS5 index reads the same text
through its view, so neither it nor the postings sidecar is rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from prioris.engines.sqlite import textpack
from prioris.storage.transaction import immediate
from prioris.storage.work_vectors import pack

BATCH_ROWS = 2000


@dataclass
class CompactReport:
    packed: int  # passages packed by this run
    work_vectors: int  # float32 work vectors stored as float16 by this run
    bytes_before: int
    bytes_after: int
    vacuumed: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def compact(
    conn: Any,
    lock: AbstractContextManager[Any],
    size_bytes: Callable[[], int],
    on_progress: Callable[[int, int], None] | None = None,
) -> CompactReport:
    """Pack every passage still stored as TEXT and halve float32 work vectors, then
    ``VACUUM`` when anything was packed or pages are free.

    ``on_progress(done, total)`` counts the TEXT passages looked at. The lock is held a
    batch at a time, so searches and other writers of this process go on between batches
    (not during the ``VACUUM``)."""
    before = size_bytes()
    unpacked = conn.execute("SELECT count(*) FROM chunks WHERE typeof(text) = 'text'")
    total = int(unpacked.fetchone()[0])
    done = packed = last = 0
    while True:
        with lock:
            rows = conn.execute(
                "SELECT id, text FROM chunks WHERE id > ? AND typeof(text) = 'text' "
                "ORDER BY id LIMIT ?",
                (last, BATCH_ROWS),
            ).fetchall()
            if not rows:
                break
            packs = [(textpack.pack(row[1]), row[0]) for row in rows]
            updates = [(value, chunk_id) for value, chunk_id in packs if isinstance(value, bytes)]
            with immediate(conn):
                conn.executemany("UPDATE chunks SET text = ? WHERE id = ?", updates)
        last, done, packed = rows[-1][0], done + len(rows), packed + len(updates)
        if on_progress is not None:
            on_progress(done, total)
    halved = _halve_work_vectors(conn, lock)
    # rows that shrink leave their pages part-filled more often than free: rewrite the file
    # when anything was packed, or when pages are free (a run stopped before its VACUUM)
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    vacuumed = packed + halved + free > 0
    if vacuumed:
        with lock:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return CompactReport(packed, halved, before, size_bytes(), vacuumed)


def _halve_work_vectors(conn: Any, lock: AbstractContextManager[Any]) -> int:
    """Store the float32 work vectors an earlier release wrote as float16, as today's do
    (:func:`prioris.storage.work_vectors.pack`); returns how many."""
    dim = conn.execute("SELECT value FROM index_state WHERE key = 'embedding_dim'").fetchone()
    if dim is None:
        return 0
    wide, done, last = 4 * int(dim[0]), 0, ""
    while True:
        with lock:
            rows = conn.execute(
                "SELECT work_id, embedding FROM work_vectors WHERE work_id > ? "
                "AND length(embedding) = ? ORDER BY work_id LIMIT ?",
                (last, wide, BATCH_ROWS),
            ).fetchall()
            if not rows:
                return done
            with immediate(conn):
                conn.executemany(
                    "UPDATE work_vectors SET embedding = ? WHERE work_id = ?",
                    [(pack(np.frombuffer(bytes(r[1]), dtype="<f4")), r[0]) for r in rows],
                )
        last, done = rows[-1][0], done + len(rows)
