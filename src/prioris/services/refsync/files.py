"""An item's files through the library's ingest: its PDFs, else its web snapshot.

Applying a sync, the file half: which attachments are missing (reported, the item kept
with its metadata), which were ingested before unchanged (same size and time, or touched
with the same bytes), and the rest given to the normal ingest (OCR included) or, for a
web snapshot, read as HTML. Every file is looked at before it is opened and read to at
most the library's file limit (:mod:`prioris.regular_files`). Separate from the metadata
writes (:mod:`.apply`) because it goes through the ingest pipeline, which takes its own
transactions. A file another work holds stays with it: an item never joins another
entry's work through a file (:mod:`.sync` decides which work an item is).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prioris.errors import PriorisError
from prioris.ingest.pipeline import IngestPipeline
from prioris.ingest.prepared import IngestResult
from prioris.models import FullText
from prioris.refman.items import RefAttachment, RefItem
from prioris.regular_files import check_regular, read_regular
from prioris.services.refsync.items import is_html, is_pdf, origin_record, text_files, work_of
from prioris.services.refsync.report import SyncReport

IngestPdf = Callable[..., Any]
"""``IngestService.ingest_pdf_bytes``: PDF bytes into a given work, through the pipeline."""
MAX_HTML_BYTES = 20 * 1024 * 1024


@dataclass
class Pending:
    """A text file of an item read for this sync: changed or new since the last one."""

    attachment: RefAttachment
    stat: dict[str, int]
    sha256: str


def report_missing(item: RefItem, report: SyncReport) -> None:
    """The item's PDFs and snapshots that have no file (a link is no missing file)."""
    report.files_missing.extend(missing_files(item))


def missing_files(item: RefItem) -> list[dict[str, Any]]:
    """The item's PDFs and web snapshots that are not on disk (not synced yet, a linked
    file on another disk), as the report lists them: on every sync, not only the first,
    since an unchanged item's file is still missing."""
    return [
        {"key": item.key, "file": attachment.key, "reason": attachment.missing or "no file"}
        for attachment in item.attachments
        if (attachment.missing or attachment.path is None)
        and (is_pdf(attachment) or is_html(attachment))
        and not attachment.missing.startswith("linked URL")  # a link, not a file
    ]


def failed_files(item: RefItem, files: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The item's files that a sync read and the ingest refused (their state keeps why),
    and that have not changed since: still not in the library, so listed again."""
    return [
        {"key": item.key, "file": attachment.key, "reason": str(entry["error"])}
        for attachment in text_files(item)
        if (entry := files.get(attachment.key)) and entry.get("error")
    ]


def changed_files(
    item: RefItem,
    files: dict[str, dict[str, Any]],
    report: SyncReport,
    max_bytes: int,
) -> list[Pending]:
    """The item's text files to ingest: each looked at before it is read (a regular file
    within ``max_bytes``: a FIFO, a device or a file past the limit is reported, never
    opened), passed over when its size and time (or, touched, its hash) are those the
    last sync ingested; the others hashed, ``files`` (the item's state) updated."""
    pending: list[Pending] = []
    for attachment in text_files(item):
        assert attachment.path is not None
        entry = files.get(attachment.key)
        try:
            info = check_regular(attachment.path, max_bytes)
        except PriorisError as exc:
            report.files_missing.append(
                {"key": item.key, "file": attachment.key, "reason": exc.message}
            )
            continue
        stat = {"size": info.st_size, "mtime_ns": info.st_mtime_ns}
        if entry and all(entry.get(k) == stat[k] for k in ("size", "mtime_ns")):
            report.files_missing.extend(failed_files(item, {attachment.key: entry}))
            continue  # ingested (or refused) before, unchanged
        try:
            sha = hashlib.sha256(read_regular(attachment.path, max_bytes)).hexdigest()
        except PriorisError as exc:
            report.files_missing.append(
                {"key": item.key, "file": attachment.key, "reason": exc.message}
            )
            continue
        files[attachment.key] = {"sha256": sha, **stat}
        if entry and entry.get("sha256") == sha:
            continue  # touched, not changed
        pending.append(Pending(attachment, stat, sha))
    return pending


def ingest_files(
    pipeline: IngestPipeline,
    ingest_pdf: IngestPdf,
    item: RefItem,
    owner: str,
    pending: list[Pending],
    files: dict[str, dict[str, Any]],
    report: SyncReport,
    ocr_mode: str | None,
    *,
    max_bytes: int,
    holder_of: Callable[[str], str | None],
) -> None:
    """Ingest the item's changed text files into its work ``owner``.

    A file whose bytes another work already holds stays that work's (a document belongs
    to one work: its passages would otherwise come back twice in every search) and is
    reported in ``report.warnings`` naming both entries; the item keeps its own record
    and work, never joins the other. ``holder_of(work_id)`` names the entry that holds a
    work (for the warning)."""
    for file in pending:
        attachment = file.attachment
        assert attachment.path is not None
        holder = pipeline.already_stored(file.sha256)
        if holder is not None and holder != owner:
            shared_file(item, attachment, holder, holder_of(holder), files, file, report)
            continue
        try:
            data = read_regular(attachment.path, max_bytes)  # read again: checked again
            sha = hashlib.sha256(data).hexdigest()
            files[attachment.key] = {"sha256": sha, **file.stat}
            if is_pdf(attachment):
                result = ingest_pdf(
                    data,
                    path=str(attachment.path),
                    work=work_of(item, owner),
                    ocr_mode=ocr_mode,
                )
            else:
                result = ingest_html(pipeline, item, owner, data)
        except PriorisError as exc:
            files[attachment.key] = {"sha256": file.sha256, **file.stat, "error": exc.message}
            report.files_missing.append(
                {"key": item.key, "file": attachment.key, "reason": exc.message}
            )
            continue
        if result.id and result.id != owner:  # stored meanwhile by another work
            shared_file(item, attachment, result.id, holder_of(result.id), files, file, report)
            continue
        report.files_ingested += 1


def shared_file(
    item: RefItem,
    attachment: RefAttachment,
    holder: str,
    other: str | None,
    files: dict[str, dict[str, Any]],
    file: Pending,
    report: SyncReport,
) -> None:
    """A file another work holds: left with it, said in the report with both entries."""
    files[attachment.key] = {"sha256": file.sha256, **file.stat, "held_by": holder}
    named = f"entry {other}" if other else "it"
    report.warnings.append(
        {
            "key": item.key,
            "other": other or holder,
            "work": holder,
            "file": attachment.key,
            "reason": f"the file is also {named}'s and stays attached to {holder} only; "
            f"{item.key} keeps its own record as a separate work",
        }
    )


def ingest_html(pipeline: IngestPipeline, item: RefItem, work_id: str, data: bytes) -> Any:
    """A web snapshot's bytes stored as the work's full text (HTML read as Markdown),
    with the item's record as its manager's record."""
    from prioris.sources.html_markdown import html_to_markdown

    if len(data) > MAX_HTML_BYTES:
        raise PriorisError(f"the web snapshot is larger than {MAX_HTML_BYTES} bytes")
    holder = pipeline.already_stored(hashlib.sha256(data).hexdigest())
    if holder is not None and holder != work_id:  # never the other work's record: its own
        return IngestResult(id=holder, status="skipped", reason="identical bytes already stored")
    _, markdown = html_to_markdown(data.decode("utf-8", errors="replace"))
    prepared = pipeline.prepare_fulltext(
        work_of(item, work_id), FullText(format="html", content=data, markdown=markdown)
    )
    prepared.records[item.source] = origin_record(item)
    return pipeline.store(prepared)
