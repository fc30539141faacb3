"""Ingest as callers ask for it: a file, PDF bytes, an upload, paths, JSONL records.

Each way in checks its input once (a file's bytes are read once, and checked as a PDF
once, then passed on as :class:`~prioris.ingest.prepare.CheckedPdf`) and hands the
document to the :class:`~prioris.ingest.pipeline.IngestPipeline`. Completing a parsed PDF
from the providers is not this layer's business: the library injects it as ``complete``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prioris.errors import (
    InvalidRequestError,
    ParseError,
    PriorisError,
    ServerUnavailableError,
)
from prioris.ingest.batch import (
    FileDone,
    FileStage,
    IngestSummary,
    JsonlLine,
    collect_pdfs,
    placed,
    read_file,
    read_jsonl,
)
from prioris.ingest.prepared import CheckedPdf, IngestResult, Prepared, StepProgress, sha256_bytes
from prioris.models import Work

if TYPE_CHECKING:
    from prioris.ingest.fanout import FannedIngest
    from prioris.ingest.pipeline import IngestPipeline

IMPORT_BATCH = 64
Complete = Callable[[Prepared], None]
"""Merges the providers' record into a prepared PDF's work before it is stored."""


class IngestService:
    """Files, uploads and records into one library's pipeline, each failing alone."""

    def __init__(
        self,
        pipeline: IngestPipeline,
        *,
        max_file_bytes: int,
        max_record_bytes: int,
        complete: Complete | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.max_file_bytes = max_file_bytes
        self.max_record_bytes = max_record_bytes
        self.complete = complete  # None: enrichment is off

    def read_jsonl(self, path: str | Path) -> Iterable[JsonlLine]:
        """The lines of a JSONL file as records or per-line errors (``file:line`` each),
        each line bounded by ``PRIORIS_MCP_MAX_RECORD_BYTES``."""
        return read_jsonl(Path(path), max_line_bytes=self.max_record_bytes)

    def ingest_file(
        self,
        path: str | Path,
        *,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        on_stage: StepProgress | None = None,
        force: bool = False,
    ) -> IngestResult:
        """Ingest one PDF from disk (identical bytes already stored: skipped, unless
        ``force``, which parses them again and replaces the stored parse).

        ``progress(stage, done, total)`` follows pages read (OCR included), chunks embedded
        and the commit, so a caller can show a bar that never sits still."""
        data = read_file(path, self.max_file_bytes)
        return self.ingest_pdf_bytes(
            data,
            path=str(Path(path)),
            ocr_mode=ocr_mode,
            progress=progress,
            on_stage=on_stage,
            force=force,
        )

    def ingest_pdf_bytes(
        self,
        data: bytes | CheckedPdf,
        *,
        path: str | None = None,
        filename: str | None = None,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        work: Work | None = None,
        on_stage: StepProgress | None = None,
        force: bool = False,
    ) -> IngestResult:
        """Ingest PDF bytes (a file, an upload or a download); ``force`` re-extracts bytes
        already stored (say with ``ocr_mode="always"``) and replaces their parse. Bytes not
        yet checked (not a :class:`CheckedPdf`) are checked here, once.

        ``on_stage(stage, done, total)`` follows the stages a person waits through:
        ``parse`` (pages), ``ocr`` (pages sent to OCR), ``enrich`` (metadata from the
        providers), ``embed`` (chunks), for a live view.
        """
        pdf = data if isinstance(data, CheckedPdf) else CheckedPdf.check(data, self.max_file_bytes)
        pipeline = self.pipeline
        owner = pipeline.already_stored(sha256_bytes(pdf.data))
        if owner is not None and not force:
            return IngestResult(
                id=owner,
                path=path or filename,
                status="skipped",
                reason="identical bytes already stored",
            )
        on_pages = progress
        if on_stage is not None:

            def on_pages(done: int, total: int) -> None:
                on_stage("parse", done, total)
                if progress is not None:
                    progress(done, total)

        prepared = pipeline.prepare_pdf(
            pdf,
            path=path or filename,
            work=work,
            ocr_mode=ocr_mode,
            progress=on_pages,
            on_ocr=(lambda done, total: on_stage("ocr", done, total)) if on_stage else None,
        )
        if work is None and self.complete is not None:
            if on_stage is not None:
                on_stage("enrich", 0, 0)
            self.complete(prepared)  # offline: nothing changes
        prepared.replace = owner is not None
        return pipeline.store(prepared, on_stage)  # embed (step by step), index

    def ingest_upload(self, data: bytes, *, filename: str | None = None) -> IngestResult:
        """Ingest bytes a client sent as a PDF (MCP uploads): bytes that are not a PDF at
        all are the caller's mistake, invalid_request, before anything is parsed."""
        try:
            pdf = CheckedPdf.check(data, self.max_file_bytes)
        except ParseError as exc:
            raise InvalidRequestError(exc.message) from exc
        return self.ingest_pdf_bytes(pdf, filename=filename)

    def ingest_paths(
        self,
        paths: Sequence[str | Path],
        *,
        ocr_mode: str | None = None,
        on_stage: FileStage | None = None,
        on_file_done: FileDone | None = None,
        force: bool = False,
    ) -> IngestSummary:
        """Ingest PDFs and directories; each file fails alone, the rest are committed.
        ``on_stage(path, stage, done, total)`` follows each file's stages (see
        :meth:`ingest_pdf_bytes`); ``force`` re-extracts files whose bytes are stored."""
        if ocr_mode is not None and ocr_mode not in ("auto", "always", "never"):
            raise InvalidRequestError(f"ocr mode {ocr_mode!r} is not one of auto, always, never")
        if not self.pipeline.runner.local:  # a cluster: many documents in flight
            return self._fanned().run(
                collect_pdfs(paths),
                ocr_mode=ocr_mode,
                force=force,
                on_stage=on_stage,
                on_file_done=on_file_done,
            )
        summary = IngestSummary()
        for path in collect_pdfs(paths):
            stages = (
                (lambda stage, done, total, p=path: on_stage(str(p), stage, done, total))
                if on_stage
                else None
            )
            try:
                result = self.ingest_file(path, ocr_mode=ocr_mode, on_stage=stages, force=force)
            except ServerUnavailableError:
                raise  # the library cannot be written at all: stop, saying so once
            except PriorisError as exc:
                summary.fail(str(path), exc)
                if on_file_done:
                    on_file_done(path, None, exc)
                continue
            summary.add(result)
            if on_file_done:
                on_file_done(path, result, None)
        return summary

    def import_records(
        self,
        records: Iterable[dict[str, Any] | PriorisError | JsonlLine],
        *,
        on_progress: Callable[[int], None] | None = None,
        keep_results: bool = True,
    ) -> IngestSummary:
        """Import ``{"_id"|"id", "title", "text", ...}`` records, embedding them in groups.

        Each record is validated on its own; a bad one fails alone (its ``file:line`` from
        :meth:`read_jsonl`, else ``record N``) and every good record around it is stored.
        ``keep_results=False`` keeps only counts and failures in the summary, so memory
        stays flat however many records the file holds.
        """
        if not self.pipeline.runner.local:  # a cluster: groups of records in flight
            return self._fanned().import_records(
                records, on_progress=on_progress, keep_results=keep_results, group=IMPORT_BATCH
            )
        summary = IngestSummary(keep_results=keep_results)
        batch: list[tuple[str, Any]] = []

        def flush() -> None:
            if not batch:
                return
            results = self.pipeline.store_each([prepared for _, prepared in batch])
            for (where, _), result in zip(batch, results, strict=True):
                if isinstance(result, PriorisError):
                    summary.fail(where, result)
                else:
                    summary.add(result)
            if on_progress:
                on_progress(len(batch))
            batch.clear()

        items = placed(records)
        while True:
            try:
                where, record = next(items)
            except StopIteration:
                break
            except PriorisError:  # the file itself failed: keep what was read before
                flush()
                raise
            if isinstance(record, PriorisError):
                summary.fail(where, record)
                continue
            try:
                batch.append((where, self.pipeline.prepare_record(record)))
            except PriorisError as exc:
                summary.fail(where, exc)
                continue
            if len(batch) >= IMPORT_BATCH:
                flush()
        flush()
        return summary

    def _fanned(self) -> FannedIngest:
        """The ingest for a runner elsewhere (:mod:`prioris.ingest.fanout`)."""
        from prioris.ingest.fanout import FannedIngest

        runner = self.pipeline.runner
        return FannedIngest(
            self.pipeline,
            max_file_bytes=self.max_file_bytes,
            complete=self.complete,
            window=getattr(runner, "window", 2),
        )
