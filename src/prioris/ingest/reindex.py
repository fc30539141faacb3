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
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from prioris.embedding.base import Embedder
from prioris.ingest.embed import embed_texts, embedding_text, work_text
from prioris.ingest.tasks import Done, InProcessRunner, TaskRunner, start
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
    """Embeds what is missing through one connection, under the library's write lock.

    The batches are embedded as tasks on ``runner`` (:mod:`prioris.ingest.tasks`): in
    this thread one after the other, or on a Dask cluster with ``runner.window`` batches
    in flight while this process reads the next ones ahead (by id) and commits each batch
    as its vectors come back, in order, in its own transaction: still resumable, since a
    stopped run leaves the batches not committed stale."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        embedder: Embedder,
        *,
        runner: TaskRunner | None = None,
        model: Embedder | None = None,
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.embedder = embedder
        self.runner: TaskRunner = runner if runner is not None else InProcessRunner()
        self.model = model if model is not None else embedder  # what a task embeds with
        self.window = 0 if self.runner.local else int(getattr(self.runner, "window", 2))

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

        def read(after: int) -> tuple[list[Any], list[str], int]:
            with self.lock:
                rows = chunk_store.stale_chunks(self.conn, BATCH, after=after)
            texts = [embedding_text(r["title"], r["text"]) for r in rows]
            return rows, texts, rows[-1]["id"] if rows else after

        def write(rows: list[Any], vectors: Any) -> None:
            nonlocal done
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

        self._batches(read, write, 0)
        self.works(None, done=done, total=total, on_progress=on_progress)
        return done

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
        model = self.embedder.model_id
        for group in groups:

            def read(after: str, group: list[str] | None = group) -> tuple[Any, list[str], str]:
                with self.lock:
                    rows = work_vector_store.missing(
                        self.conn, model, BATCH, after=after, work_ids=group
                    )
                texts = [work_text(title, abstract, head) for _, title, abstract, head in rows]
                return rows, texts, rows[-1][0] if rows else after

            def write(rows: list[Any], vectors: Any) -> None:
                nonlocal embedded
                with self._transaction():
                    for (work_id, *_), vector in zip(rows, vectors, strict=True):
                        work_vector_store.store(self.conn, work_id, vector, model)
                embedded += len(rows)
                if on_progress:
                    on_progress(done + embedded, total)

            self._batches(read, write, "")
        if work_ids is None:  # a full pass: every work has its vector
            with self._transaction():
                self.conn.execute("DELETE FROM index_state WHERE key = ?", (PENDING,))
        return embedded

    def _batches(
        self,
        read: Callable[[Any], tuple[list[Any], list[str], Any]],
        write: Callable[[list[Any], Any], None],
        after: Any,
    ) -> None:
        """Read batches by id past ``after``, embed each as a task, write each in order;
        at most ``window`` batches wait in flight (none in this thread: read, embed and
        write one batch at a time, as before tasks)."""
        in_flight: deque[tuple[list[Any], Done[Any]]] = deque()
        while True:
            rows, texts, after = read(after)
            if rows:
                task = partial(embed_texts, self.model)
                in_flight.append((rows, start(self.runner, task, texts)))
            while in_flight and (len(in_flight) > self.window or not rows):
                batch, outcome = in_flight.popleft()
                write(batch, outcome.result())
            if not rows:
                return

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` under the lock, rolled back on any exception."""
        with self.lock, immediate(self.conn):
            yield
