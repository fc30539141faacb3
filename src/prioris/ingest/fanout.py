"""Many documents in flight on a runner elsewhere (a Dask cluster), written by one writer.

The in-process ingest takes one file at a time: read, prepare, embed, commit. On a
cluster that would keep one worker busy, so here each document passes two stages, each
keeping ``window`` documents in flight: *preparing* (parsing, OCR, chunking: a task) and
*embedding* (a task), then the *commit* in this process, in the files' order. Between
the stages, in this process, the providers complete a parsed PDF's record (enrichment
needs the network and the library), so the vectors are those of the completed work, as
in the in-process ingest, and the same things are stored.

Everything that reads or writes the library stays here, in the caller: the check that a
file's bytes are already stored (before any task is sent), and each document's one
transaction. A task that runs twice (its worker died) is computed twice and written once.

The task functions here are module-level, so a worker imports them by name; like
:mod:`prioris.ingest.tasks`, this module reaches neither storage nor the engines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from prioris.errors import PriorisError
from prioris.ingest.batch import FileDone, FileStage, IngestSummary, placed, read_file
from prioris.ingest.embed import embed_task, for_embedding, take_vectors
from prioris.ingest.prepare import Preparer, record_sha256
from prioris.ingest.prepared import CheckedPdf, IngestResult, Prepared, sha256_bytes
from prioris.ingest.tasks import Done, start

Complete = Callable[[Prepared], None]


def prepare_pdf_task(
    preparer: Preparer, path: str, ocr_mode: str | None, pdf: CheckedPdf
) -> Prepared:
    """On a worker: a PDF prepared, returned without its bytes (the caller has them)."""
    prepared = preparer.prepare_pdf(pdf, path=path, ocr_mode=ocr_mode)
    return replace(prepared, content=b"")


@dataclass
class _Entry:
    """One file on its way through the stages."""

    path: Path
    pdf: CheckedPdf | None = None
    replace: bool = False
    done: Done[Any] | None = None
    prepared: Prepared | None = None
    result: IngestResult | None = None
    error: PriorisError | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class FannedIngest:
    """Ingests files with documents in flight on ``pipeline.runner`` (see the module)."""

    def __init__(
        self,
        pipeline: Any,
        *,
        max_file_bytes: int,
        complete: Complete | None,
        window: int,
    ) -> None:
        self.pipeline = pipeline
        self.max_file_bytes = max_file_bytes
        self.complete = complete
        self.window = max(1, window)

    def run(
        self,
        files: Iterable[Path],
        *,
        ocr_mode: str | None,
        force: bool,
        on_stage: FileStage | None,
        on_file_done: FileDone | None,
    ) -> IngestSummary:
        summary = IngestSummary()
        preparing: deque[_Entry] = deque()
        embedding: deque[_Entry] = deque()

        def finish_one() -> None:
            self._commit(embedding.popleft(), summary, on_stage, on_file_done)

        for path in files:
            preparing.append(self._prepare(path, ocr_mode, force))
            while len(preparing) > self.window:
                embedding.append(self._embed(preparing.popleft(), on_stage))
            while len(embedding) > self.window:
                finish_one()
        while preparing:
            embedding.append(self._embed(preparing.popleft(), on_stage))
            while len(embedding) > self.window:
                finish_one()
        while embedding:
            finish_one()
        return summary

    def _prepare(self, path: Path, ocr_mode: str | None, force: bool) -> _Entry:
        """Read and check the file here; skip stored bytes; else send it to be prepared."""
        entry = _Entry(path)
        try:
            pdf = CheckedPdf.check(read_file(path, self.max_file_bytes), self.max_file_bytes)
            owner = self.pipeline.already_stored(sha256_bytes(pdf.data))
        except PriorisError as exc:
            entry.error = exc
            return entry
        if owner is not None and not force:
            entry.result = IngestResult(
                id=owner, path=str(path), status="skipped", reason="identical bytes already stored"
            )
            return entry
        entry.pdf, entry.replace = pdf, owner is not None
        task = partial(prepare_pdf_task, self.pipeline.preparer, str(path), ocr_mode)
        entry.done = start(self.pipeline.runner, task, pdf)
        return entry

    def _embed(self, entry: _Entry, on_stage: FileStage | None) -> _Entry:
        """The prepared document back here: completed, then sent to be embedded."""
        if entry.done is None:
            return entry
        try:
            prepared = entry.done.result()
        except PriorisError as exc:
            entry.done, entry.error = None, exc
            return entry
        assert entry.pdf is not None
        prepared.content = entry.pdf.data
        if on_stage is not None:
            on_stage(str(entry.path), "parse", prepared.result.pages, prepared.result.pages)
        if self.complete is not None:
            if on_stage is not None:
                on_stage(str(entry.path), "enrich", 0, 0)
            self.complete(prepared)  # offline: nothing changes
        prepared.replace = entry.replace
        entry.prepared, entry.done = prepared, None
        # bytes stored meanwhile (the same file twice in one run) are not embedded again:
        # their commit says "skipped", as the in-process ingest does
        if prepared.replace or not self.pipeline.already_stored(prepared.document.sha256):
            task = partial(embed_task, self.pipeline.model)
            entry.done = start(self.pipeline.runner, task, for_embedding([prepared]))
        return entry

    def _commit(
        self,
        entry: _Entry,
        summary: IngestSummary,
        on_stage: FileStage | None,
        on_file_done: FileDone | None,
    ) -> None:
        """The document's vectors back here, then its one transaction."""
        path = str(entry.path)
        if entry.error is None and entry.result is None:
            assert entry.prepared is not None
            try:
                if entry.done is not None:
                    take_vectors([entry.prepared], entry.done.result())
                    chunks = len(entry.prepared.chunks)
                    if on_stage is not None:
                        on_stage(path, "embed", chunks, chunks)
                        on_stage(path, "index", 0, 1)
                entry.result = self.pipeline.commit(entry.prepared)
                if on_stage is not None:
                    on_stage(path, "index", 1, 1)
            except PriorisError as exc:
                entry.error = exc
        if entry.error is not None:
            summary.fail(path, entry.error)
        else:
            assert entry.result is not None
            summary.add(entry.result)
        if on_file_done is not None:
            on_file_done(entry.path, entry.result, entry.error)

    def import_records(
        self,
        records: Iterable[Any],
        *,
        on_progress: Callable[[int], None] | None,
        keep_results: bool,
        group: int,
    ) -> IngestSummary:
        """JSONL records in groups of ``group``, each group prepared and embedded by one
        task (:func:`prepare_and_embed_records`), ``window`` groups in flight, each record
        committed here in its own transaction, in the file's order."""
        summary = IngestSummary(keep_results=keep_results)
        batch: list[tuple[str, Any, bool]] = []
        in_flight: deque[tuple[list[str], Done[Any]]] = deque()
        pipeline = self.pipeline
        task = partial(prepare_and_embed_records, pipeline.preparer, pipeline.model)

        def finish() -> None:
            wheres, done = in_flight.popleft()
            for where, item in zip(wheres, done.result(), strict=True):
                if isinstance(item, PriorisError):
                    summary.fail(where, item)
                    continue
                try:
                    summary.add(pipeline.commit(item))
                except PriorisError as exc:
                    summary.fail(where, exc)
            if on_progress:
                on_progress(len(wheres))

        def send() -> None:
            if batch:
                sent = start(pipeline.runner, task, [(r, s) for _, r, s in batch])
                in_flight.append(([w for w, _, _ in batch], sent))
                batch.clear()
            while len(in_flight) > self.window:
                finish()

        items = placed(records)
        while True:
            try:
                where, record = next(items)
            except StopIteration:
                break
            except PriorisError:  # the file itself failed: keep what was read before
                send()
                while in_flight:
                    finish()
                raise
            if isinstance(record, PriorisError):
                summary.fail(where, record)
                continue
            try:  # checked here: a record that is not valid never travels
                stored = pipeline.already_stored(record_sha256(record)) is not None
            except PriorisError as exc:
                summary.fail(where, exc)
                continue
            batch.append((where, record, stored))
            if len(batch) >= group:
                send()
        send()
        while in_flight:
            finish()
        return summary


def prepare_and_embed_records(
    preparer: Preparer, model: Any, batch: Sequence[tuple[Any, bool]]
) -> list[Prepared | PriorisError]:
    """On a worker: a group of JSONL records prepared and embedded together, each record
    failing alone (``(record, stored)``: a record whose text is stored is not chunked nor
    embedded). Embedding failing for the group is retried record by record, so the
    failure stays with the record that caused it, as the in-process import does."""
    out: list[Prepared | PriorisError] = []
    for record, stored in batch:
        try:
            out.append(preparer.prepare_record(record, chunk=not stored))
        except PriorisError as exc:
            out.append(exc)
    new = [
        i
        for i, ((_, stored), p) in enumerate(zip(batch, out, strict=True))
        if not stored and isinstance(p, Prepared)
    ]
    items: list[Prepared] = [out[i] for i in new]  # type: ignore[misc]
    try:
        if items:
            take_vectors(items, embed_task(model, items))
    except PriorisError:
        for i, item in zip(new, items, strict=True):
            try:
                take_vectors([item], embed_task(model, [item]))
            except PriorisError as exc:
                out[i] = exc
    return out
