"""From bytes or records to a stored, indexed work: parse, chunk, embed, commit.

Parsing and embedding happen before the write transaction; everything one document
writes (work, aliases, original bytes, Markdown, pages, chunks, FTS rows, vectors) is then
committed in one ``BEGIN IMMEDIATE … COMMIT``. A crash leaves the whole document or none of
it, and a re-run skips bytes already stored, so a batch is resumable.

:class:`IngestPipeline` runs the steps in that order for a group of documents; each step is
its own module: :mod:`~prioris.ingest.prepare`, :mod:`~prioris.ingest.embed` and
:mod:`~prioris.ingest.write` (the data they pass on: :mod:`~prioris.ingest.prepared`).
Preparing a document and embedding a group run as tasks on the pipeline's
:class:`~prioris.ingest.tasks.TaskRunner` (in the calling thread unless another runner is
given); the already-stored checks and the writes stay here, in the one writer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Any

from prioris.embedding.base import Embedder
from prioris.errors import PriorisError, ServerUnavailableError
from prioris.ingest.embed import embed_task, for_embedding, take_vectors
from prioris.ingest.ocr import OcrEngine
from prioris.ingest.prepare import CheckedPdf, Preparer, record_sha256
from prioris.ingest.prepared import IngestResult, Now, Prepared, StepProgress
from prioris.ingest.tasks import InProcessRunner, TaskRunner, run_one
from prioris.ingest.worker_model import Recipe, WorkerModel
from prioris.ingest.write import Writer
from prioris.models import Document, FullText, Page, Work

__all__ = ["CheckedPdf", "IngestPipeline", "IngestResult", "Prepared", "StepProgress"]


class IngestPipeline:
    """Parses, chunks, embeds and stores documents for one library connection."""

    def __init__(
        self,
        conn: Any,
        embedder: Embedder,
        *,
        ocr: OcrEngine | None,
        ocr_mode: str,
        max_file_bytes: int,
        now: Now,
        pdf_limits: Any = None,
        write_lock: AbstractContextManager[Any] | None = None,
        runner: TaskRunner | None = None,
        model_recipe: Recipe | None = None,
    ) -> None:
        # shared with the Library: parsing and embedding run outside it, writes inside
        self.write_lock = write_lock if write_lock is not None else threading.RLock()
        # where preparing and embedding run (:mod:`prioris.ingest.tasks`); writes stay here
        self.runner: TaskRunner = runner if runner is not None else InProcessRunner()
        self.embedder = embedder
        # what the tasks embed and count tokens with: pickles as its recipe, built once per
        # worker process elsewhere (:mod:`prioris.ingest.worker_model`)
        self.model = WorkerModel(embedder, model_recipe)
        self.now = now
        self.writer = Writer(conn, self.write_lock, embedder, now, self.ensure_chunks)
        self.preparer = Preparer(
            self.model.count_tokens,
            ocr=ocr,
            ocr_mode=ocr_mode,
            max_file_bytes=max_file_bytes,
            pdf_limits=pdf_limits,
        )

    @property
    def conn(self) -> Any:
        """The connection documents are written through (the writer's; a test swaps it)."""
        return self.writer.conn

    @conn.setter
    def conn(self, conn: Any) -> None:
        self.writer.conn = conn

    # -- preparing (:mod:`prioris.ingest.prepare`) -------------------------------------
    def prepare_pages(
        self,
        work: Work,
        pages: Sequence[Page],
        *,
        document: Document | None = None,
        content: bytes = b"",
        path: str | None = None,
        chunk: bool = True,
    ) -> Prepared:
        prepare = partial(
            self.preparer.prepare_pages,
            work,
            document=document,
            content=content,
            path=path,
            chunk=chunk,
        )
        return run_one(self.runner, prepare, pages)

    def ensure_chunks(self, item: Prepared) -> None:
        """Chunk a record prepared without chunks that has to be indexed after all."""
        self.preparer.ensure_chunks(item)

    def prepare_pdf(
        self,
        data: bytes | CheckedPdf,
        *,
        path: str | None = None,
        work: Work | None = None,
        url: str | None = None,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        on_ocr: Callable[[int, int], None] | None = None,
    ) -> Prepared:
        """Parse a PDF (OCR where needed) into a work with its pages and chunks."""
        if not self.runner.local:  # a callback cannot travel to a worker elsewhere
            progress = on_ocr = None
        prepare = partial(
            self.preparer.prepare_pdf,
            path=path,
            work=work,
            url=url,
            ocr_mode=ocr_mode,
            progress=progress,
            on_ocr=on_ocr,
        )
        return run_one(self.runner, prepare, data)

    def prepare_fulltext(self, work: Work, full_text: FullText) -> Prepared:
        return run_one(self.runner, partial(self.preparer.prepare_fulltext, work), full_text)

    def prepare_metadata_only(self, work: Work) -> Prepared:
        return run_one(self.runner, self.preparer.prepare_metadata_only, work)

    def prepare_record(self, record: Any) -> Prepared:
        """A JSONL record prepared; chunked only if its text is not stored already."""
        stored = self.already_stored(record_sha256(record)) is not None
        return run_one(self.runner, partial(self.preparer.prepare_record, chunk=not stored), record)

    # -- embedding and committing --------------------------------------------------------
    def embed(self, prepared: Sequence[Prepared], progress: StepProgress | None = None) -> None:
        """Embed several documents together (:func:`~prioris.ingest.embed.embed_prepared`),
        as one task on the runner."""
        if self.runner.local:
            task = partial(embed_task, self.model, progress=progress)
            take_vectors(prepared, run_one(self.runner, task, prepared))
            return
        # elsewhere: no callback travels with the task; the stage is reported around it
        total = sum(len(item.chunks) for item in prepared)
        if progress is not None:
            progress("embed", 0, total)
        vectors = run_one(self.runner, partial(embed_task, self.model), for_embedding(prepared))
        take_vectors(prepared, vectors)
        if progress is not None:
            progress("embed", total, total)

    def already_stored(self, sha256: str) -> str | None:
        return self.writer.already_stored(sha256)

    def commit(self, item: Prepared) -> IngestResult:
        """Write one prepared document in a single transaction (under the write lock)."""
        return self.writer.commit(item)

    def index_stored(self, item: Prepared) -> int:
        """Index a work's text again from a document it still stores (after its Markdown
        was deleted): embed, then write pages, chunks, FTS rows and vectors; no bytes."""
        self.embed([item])
        return self.writer.index_stored(item)

    def store(self, item: Prepared, progress: StepProgress | None = None) -> IngestResult:
        """Embed and commit one prepared document."""
        return self.store_many([item], progress)[0]

    def store_many(
        self, items: Iterable[Prepared], progress: StepProgress | None = None
    ) -> list[IngestResult]:
        """Embed a group of documents together, then commit each in its own transaction.

        Bytes already stored are not embedded again; their commit only merges the new
        record's metadata and aliases into the work that holds them (or is a no-op)."""
        items = list(items)
        new = [
            i
            for i in items
            if i.replace or i.document is None or not self.already_stored(i.document.sha256)
        ]
        for item in new:
            self.ensure_chunks(item)
        if new:
            self.embed(new, progress)
        results = []
        if progress is not None:
            progress("index", 0, len(items))
        for number, item in enumerate(items, start=1):
            results.append(self.commit(item))
            if progress is not None:
                progress("index", number, len(items))
        return results

    def store_each(self, items: Sequence[Prepared]) -> list[IngestResult | PriorisError]:
        """Like :meth:`store_many`, but one document failing is its result, not the batch's.

        Documents are embedded together; if that fails they are embedded one by one, so
        the failure stays with the document that caused it. Nothing committed is undone.
        """
        new = [i for i in items if i.document is None or not self.already_stored(i.document.sha256)]
        for item in new:
            self.ensure_chunks(item)
        failed: dict[int, PriorisError] = {}
        try:
            if new:
                self.embed(new)
        except PriorisError:  # one task per document, each failing alone
            task = partial(embed_task, self.model)
            each = self.runner.map(task, [for_embedding([i]) for i in new])
            for item, done in zip(new, each, strict=True):
                try:
                    take_vectors([item], done.result())
                except PriorisError as exc:
                    failed[id(item)] = exc
        results: list[IngestResult | PriorisError] = []
        for item in items:
            if id(item) in failed:
                results.append(failed[id(item)])
                continue
            try:
                results.append(self.commit(item))
            except ServerUnavailableError:
                raise  # no document can be written: one error for the batch, not one each
            except PriorisError as exc:
                results.append(exc)
        return results
