"""The jobs the web app runs: each calls one Library method and reports its progress.

Every function returns a :data:`~prioris.interfaces.web.jobs.JobFunction`; the per-item
outcome words are the ones the Add page shows: ``ingested``, ``skipped`` (with the reason,
e.g. a duplicate) and ``failed`` (with the error code and message).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prioris.errors import PriorisError
from prioris.interfaces.web.jobs import JobContext, JobFunction

if TYPE_CHECKING:
    from prioris.ingest.pipeline import IngestResult
    from prioris.library import Library

STAGE_WORDS = {
    "parse": "reading pages",
    "ocr": "OCR",
    "enrich": "completing metadata",
    "embed": "embedding",
    "index": "indexing",
}


def _result_fields(result: Any) -> dict[str, Any]:
    if result.status == "skipped":
        return {
            "state": "skipped",
            "stage": "",
            "work_id": result.id,
            "message": result.reason or "already in the library",
        }
    parts = [f"{result.pages} page(s)"]
    if result.ocr_pages:
        parts.append(f"{result.ocr_pages} OCR'd")
    parts.append(f"{result.chunks} chunk(s)")
    return {"state": "ingested", "stage": "", "work_id": result.id, "message": ", ".join(parts)}


def _stage_reporter(context: JobContext, index: int) -> Any:
    def on_stage(stage: str, done: int, total: int) -> None:
        context.item(
            index, state="running", stage=STAGE_WORDS.get(stage, stage), done=done, total=total
        )

    return on_stage


def upload_job(library: Library, path: Path, filename: str) -> JobFunction:
    """Ingest one uploaded PDF kept in a temporary file (deleted when the job ends)."""

    def run(context: JobContext) -> str:
        try:
            context.item(0, state="running", stage="reading pages")
            data = path.read_bytes()
            try:
                result = library.ingest_pdf_bytes(
                    data, filename=filename, on_stage=_stage_reporter(context, 0)
                )
            except PriorisError as exc:
                context.fail_item(0, exc)
                return f"{filename}: failed"
            context.item(0, **_result_fields(result))
            return f"{filename}: {result.status}"
        finally:
            with contextlib.suppress(OSError):
                path.unlink()

    return run


def within(path: str | Path, roots: Sequence[Path]) -> bool:
    """Whether ``path``'s real location (links followed) lies under one of ``roots``."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(os.path.realpath(root)) for root in roots)


def folder_job(
    library: Library, folder: str, confine_to: Sequence[Path] | None = None
) -> JobFunction:
    """Ingest every PDF under a folder of this computer, one item per file; with
    ``confine_to`` (accounts mode) a file whose link leads out of those folders is left
    out, and said."""

    def run(context: JobContext) -> str:
        files = list(library.collect_pdfs([folder]))
        outside = []
        if confine_to is not None:
            outside = [path for path in files if not within(path, confine_to)]
            files = [path for path in files if within(path, confine_to)]
        for path in files:
            context.add_item(str(path))
        summary = _each(
            context,
            files,
            "reading pages",
            lambda index, path: library.ingest_file(path, on_stage=_stage_reporter(context, index)),
            label=lambda index: f"file {index + 1} of {len(files)}",
        )
        for path in outside:  # after the files _each numbers from 0
            context.add_item(
                str(path),
                state="failed",
                message="links out of the server's import folders: not read",
                error_code="not_found",
            )
        if outside:
            summary += f", {len(outside)} not read (outside the import folders)"
        return summary if files else f"no PDF files under {folder}"

    return run


def fetch_job(library: Library, identifiers: Sequence[str]) -> JobFunction:
    """Fetch works from their providers, one item per identifier."""

    def run(context: JobContext) -> str:
        return _each(
            context, identifiers, "fetching", lambda _, identifier: library.fetch_one(identifier)
        )

    return run


def import_job(library: Library, path: Path, filename: str) -> JobFunction:
    """Import the records of an uploaded JSONL file (deleted when the job ends)."""

    def run(context: JobContext) -> str:
        try:
            with path.open("rb") as handle:
                total = sum(1 for line in handle if line.strip())
            context.item(0, state="running", stage="importing", done=0, total=total)
            seen = 0

            def on_progress(count: int) -> None:
                nonlocal seen
                seen += count
                context.item(0, done=seen, total=total)
                context.progress(seen, total)

            try:
                summary = library.import_records(
                    library.read_jsonl(path), on_progress=on_progress, keep_results=False
                )
            except PriorisError as exc:  # said in the web user's terms, not the server's
                raise type(exc)(_as_uploaded(exc.message, path, filename)) from None
            failed = summary.failed
            message = (
                f"{summary.ingested_count} imported, {summary.skipped_count} skipped, "
                f"{len(failed)} failed"
            )
            if failed:
                first = failed[0]
                where = _as_uploaded(str(first["path"]), path, filename)
                message += f" (first failure: {where}: {first['error']['message']})"
            context.item(
                0,
                state="failed" if failed and not summary.ingested_count else "ingested",
                stage="",
                message=message,
            )
            return message
        finally:
            with contextlib.suppress(OSError):
                path.unlink()

    return run


def _as_uploaded(text: str, path: Path, filename: str) -> str:
    """A message about the server's temporary copy of an upload, naming the file the user
    sent instead, with the web app's way to add a PDF instead of a CLI command."""
    text = text.replace(str(path), filename or "the uploaded file")
    return text.replace("ingest it with `prioris ingest`", "add it with “Add PDFs” above")


def reindex_job(library: Library) -> JobFunction:
    """Re-embed stale chunks, then works without their own vector (resumable: each
    batch is committed)."""

    def run(context: JobContext) -> str:
        def on_progress(done: int, total: int) -> None:
            context.progress(done, total, f"{done} of {total} vectors")

        done = library.reindex(on_progress=on_progress)
        return f"{done} chunk(s) re-embedded"

    return run


def compact_job(library: Library) -> JobFunction:
    """Pack the passages and work vectors an earlier release stored unpacked, then give the
    space back (``reindex --compact``; resumable: each batch is committed)."""

    def run(context: JobContext) -> str:
        def on_progress(done: int, total: int) -> None:
            context.progress(done, total, f"{done} of {total} passages")

        report = library.compact(on_progress=on_progress)
        after, before = (report[key] / (1 << 20) for key in ("bytes_after", "bytes_before"))
        return (
            f"{report['packed']} passage(s) and {report['work_vectors']} work vector(s) "
            f"packed; the library takes {after:,.1f} MiB (was {before:,.1f})"
        )

    return run


def _each(
    context: JobContext,
    items: Sequence[Any],
    stage: str,
    work: Callable[[int, Any], IngestResult],
    *,
    label: Callable[[int], str] | None = None,
) -> str:
    """Run ``work`` on each item of a job in turn (each fails alone) and sum up."""
    counts = {"ingested": 0, "skipped": 0, "failed": 0}
    for index, item in enumerate(items):
        context.progress(index, len(items), label(index) if label else None)
        context.item(index, state="running", stage=stage)
        try:
            result = work(index, item)
        except PriorisError as exc:
            context.fail_item(index, exc)
            counts["failed"] += 1
            continue
        fields = _result_fields(result)
        context.item(index, **fields)
        counts[fields["state"]] += 1
    context.progress(len(items), len(items))
    return ", ".join(f"{n} {word}" for word, n in counts.items())


def _sync_message(report: dict[str, Any]) -> str:
    message = (
        f"{report['added']} added, {report['updated']} updated, {report['removed']} removed, "
        f"{report['unchanged']} unchanged, {len(report['failed'])} failed"
    )
    if report["files_missing"]:
        message += f"; {len(report['files_missing'])} file(s) could not be read"
    for warning in report.get("warnings", [])[:1]:
        message += f"; {len(report['warnings'])} warning(s), first: {warning['reason']}"
    if report.get("cut"):
        message += f"; {len(report['cut'])} field(s) cut to the library's bounds"
    if report["failed"]:
        first = report["failed"][0]
        message += f" (first failure: {first['key']}: {first['error']})"
    return message


def _sync_job(stage: str, sync: Callable[..., dict[str, Any]]) -> JobFunction:
    """A job that runs ``sync(on_progress=...)`` (a Zotero sync, a reference import) and
    says its report in one line."""

    def run(context: JobContext) -> str:
        context.item(0, state="running", stage=stage, done=0, total=0)

        def on_progress(done: int, total: int) -> None:
            context.item(0, done=done, total=total)
            context.progress(done, total)

        report = sync(on_progress=on_progress)
        message = _sync_message(report)
        context.item(
            0, state="failed" if report["failed"] else "ingested", stage="", message=message
        )
        return message

    return run


def zotero_job(
    library: Library, zotero_dir: str | None, confine_to: Sequence[Path] | None = None
) -> JobFunction:
    """Sync a Zotero data directory (read only; incremental); ``confine_to``: the folders
    its attachments may be read from (accounts mode)."""
    return _sync_job(
        "syncing", lambda **kw: library.zotero_sync(zotero_dir, confine_to=confine_to, **kw)
    )


def references_job(
    library: Library, path: str, confine_to: Sequence[Path] | None = None
) -> JobFunction:
    """Import a BibTeX or RIS file of this computer with the PDFs it links to (only those
    under ``confine_to``, when given: accounts mode)."""
    return _sync_job(
        "importing", lambda **kw: library.import_references(path, confine_to=confine_to, **kw)
    )


def reference_text_job(library: Library, path: Path, filename: str) -> JobFunction:
    """Import an uploaded BibTeX or RIS file: its entries' metadata (the PDFs it links to
    are not on this server's disk; add them with "Add PDFs"). The upload is deleted."""

    def run(context: JobContext) -> str:
        try:
            context.item(0, state="running", stage="importing", done=0, total=0)
            text = path.read_text(encoding="utf-8", errors="replace")
            kind = "ris" if path.suffix.lower() == ".ris" else "bibtex"
            report = library.import_reference_text(text, kind)
            message = _sync_message(report)
            context.item(
                0, state="failed" if report["failed"] else "ingested", stage="", message=message
            )
            return message
        finally:
            with contextlib.suppress(OSError):
                path.unlink()

    return run
