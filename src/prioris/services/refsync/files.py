"""An item's files through the library's ingest: its PDFs, else its web snapshot.

Applying a sync, the file half: which attachments are missing (reported, the item kept
with its metadata), which were ingested before unchanged (same size and time, or touched
with the same bytes), and the rest read once and given to the normal ingest (OCR
included) or, for a web snapshot, read as HTML. Separate from the metadata writes
(:mod:`.apply`) because it goes through the ingest pipeline, which takes its own
transactions, and it decides which work a new item joins when its PDF is already stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from prioris.errors import PriorisError
from prioris.ingest.pipeline import IngestPipeline
from prioris.models import FullText
from prioris.refman.items import RefItem
from prioris.services.refsync.items import is_html, is_pdf, origin_record, text_files, work_of
from prioris.services.refsync.plan import file_stat
from prioris.services.refsync.report import SyncReport

IngestPdf = Callable[..., Any]
"""``IngestService.ingest_pdf_bytes``: PDF bytes into a given work, through the pipeline."""
MAX_HTML_BYTES = 20 * 1024 * 1024


def ingest_files(
    pipeline: IngestPipeline,
    ingest_pdf: IngestPdf,
    item: RefItem,
    work_id: str,
    files: dict[str, dict[str, Any]],
    report: SyncReport,
    ocr_mode: str | None,
    *,
    new: bool,
) -> str:
    """Ingest the item's PDFs (or, without one, its web snapshot) into ``work_id``;
    returns the work to store the item in: a new item whose PDF another work already
    holds joins that work; a stored item stays where it is."""
    report.files_missing.extend(missing_files(item))
    owner = work_id
    for attachment in text_files(item):
        assert attachment.path is not None
        stat = file_stat(attachment.path)
        entry = files.get(attachment.key)
        if stat is None:
            report.files_missing.append(
                {"key": item.key, "file": attachment.key, "reason": "file not found"}
            )
            continue
        if (
            entry
            and entry.get("size") == stat["size"]
            and entry.get("mtime_ns") == stat["mtime_ns"]
        ):
            report.files_missing.extend(failed_files(item, {attachment.key: entry}))
            continue  # ingested (or refused) before, unchanged
        try:
            data = attachment.path.read_bytes()
        except OSError as exc:
            report.files_missing.append(
                {"key": item.key, "file": attachment.key, "reason": f"unreadable: {exc}"}
            )
            continue
        sha = hashlib.sha256(data).hexdigest()
        files[attachment.key] = {"sha256": sha, **stat}
        if entry and entry.get("sha256") == sha:
            continue  # touched, not changed
        try:
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
            files[attachment.key] = {"sha256": sha, **stat, "error": exc.message}
            report.files_missing.append(
                {"key": item.key, "file": attachment.key, "reason": exc.message}
            )
            continue
        report.files_ingested += 1
        if new and result.id and owner == work_id:
            owner = result.id  # identical bytes another work holds: the item joins it
    return owner


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


def ingest_html(pipeline: IngestPipeline, item: RefItem, work_id: str, data: bytes) -> Any:
    """A web snapshot's bytes stored as the work's full text (HTML read as Markdown),
    with the item's record as its manager's record."""
    from prioris.sources.html_markdown import html_to_markdown

    if len(data) > MAX_HTML_BYTES:
        raise PriorisError(f"the web snapshot is larger than {MAX_HTML_BYTES} bytes")
    _, markdown = html_to_markdown(data.decode("utf-8", errors="replace"))
    prepared = pipeline.prepare_fulltext(
        work_of(item, work_id), FullText(format="html", content=data, markdown=markdown)
    )
    prepared.records[item.source] = origin_record(item)
    return pipeline.store(prepared)
