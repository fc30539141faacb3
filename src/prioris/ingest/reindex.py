"""Re-embedding what the library's model has no vector for: stale chunks, then works.

Chunks go stale when the embedding model changes (``ensure_vector_index``); a work lacks
its own vector (title + abstract) after a model change, in a library made before work
vectors existed, or when its title or abstract changed outside an ingest. Both are done
in batches, each committed in its own transaction, so a stopped run resumes where it
stopped and searches keep working meanwhile (a work without its own vector is scored by
its chunks alone).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from prioris.embedding.base import Embedder
from prioris.ingest.embed import embedding_text, work_text
from prioris.storage import chunks as chunk_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage.transaction import immediate

BATCH = 256  # texts per embedding call and per transaction
PENDING = "work_vectors_pending"  # set by the migration that made work vectors
Progress = Callable[[int, int], None]


def work_vectors_pending(conn: Any) -> bool:
    """Whether the library predates work vectors and no reindex has given them yet."""
    return chunk_store.get_state(conn, PENDING) is not None


class Reindexer:
    """Embeds what is missing through one connection, under the library's write lock."""

    def __init__(self, conn: Any, lock: threading.RLock, embedder: Embedder) -> None:
        self.conn = conn
        self.lock = lock
        self.embedder = embedder

    def pending(self) -> int:
        """Stale chunks plus works without a vector of the model."""
        with self.lock:
            model = self.embedder.model_id
            return chunk_store.count_stale(self.conn) + work_vector_store.count_missing(
                self.conn, model
            )

    def run(self, on_progress: Progress | None = None) -> int:
        """Stale chunks, then works; returns the chunks done (``on_progress`` counts both)."""
        total = self.pending()
        done = 0
        while True:
            with self.lock:
                rows = chunk_store.stale_chunks(self.conn, BATCH)
            if not rows:
                self.works(None, done=done, total=total, on_progress=on_progress)
                return done
            vectors = self.embedder.embed_passages(
                [embedding_text(r["title"], r["text"]) for r in rows]
            )
            with self._transaction():
                chunk_store.insert_vectors(
                    self.conn,
                    [r["id"] for r in rows],
                    vectors,
                    self.embedder.model_id,
                    work_ids=[r["work_id"] for r in rows],
                    sources=[r["source"] for r in rows],
                    years=[r["year"] for r in rows],
                )
            done += len(rows)
            if on_progress:
                on_progress(done, total)

    def works(
        self,
        work_ids: Sequence[str] | None,
        *,
        done: int = 0,
        total: int = 0,
        on_progress: Progress | None = None,
    ) -> int:
        """Embed the works' own vectors that are missing or of another model: these works,
        or every work with chunks when ``work_ids`` is None. Returns how many."""
        ids = None if work_ids is None else list(dict.fromkeys(work_ids))
        groups: list[list[str] | None] = [None]
        if ids is not None:
            groups = [ids[i : i + BATCH] for i in range(0, len(ids), BATCH)]
        embedded = 0
        for group in groups:
            after = ""
            while True:
                with self.lock:
                    rows = work_vector_store.missing(
                        self.conn, self.embedder.model_id, BATCH, after=after, work_ids=group
                    )
                if not rows:
                    break
                after = rows[-1][0]
                texts = [work_text(title, abstract, head) for _, title, abstract, head in rows]
                vectors = self.embedder.embed_passages(texts)
                with self._transaction():
                    for (work_id, *_), vector in zip(rows, vectors, strict=True):
                        work_vector_store.store(self.conn, work_id, vector, self.embedder.model_id)
                embedded += len(rows)
                if on_progress:
                    on_progress(done + embedded, total)
        if work_ids is None:  # a full pass: every work has its vector
            with self._transaction():
                self.conn.execute("DELETE FROM index_state WHERE key = ?", (PENDING,))
        return embedded

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` under the lock, rolled back on any exception."""
        with self.lock, immediate(self.conn):
            yield
