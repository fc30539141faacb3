"""Storing what a reference manager holds: Zotero items, BibTeX and RIS entries.

A reader (:mod:`prioris.refman`) turns a Zotero database or a .bib/.ris file into
:class:`~prioris.refman.items.RefItem` values; this service makes each one a work, the
same way whatever it came from:

- the item's record is kept as its manager's record (origin ``zotero``, ``bibtex`` or
  ``ris``) and merged by :mod:`prioris.provenance`: above what the PDF printed and what
  providers said, below the user's own edits in Prioris;
- ``zotero:KEY`` (``bibtex:KEY``, ``ris:KEY``) becomes an alias of the work, and the DOI,
  arXiv id and PMID in the record join the item with a work already in the library;
- its PDFs go through the normal ingest (OCR included); a web snapshot is read as HTML
  when there is no PDF; an item without any readable file keeps its metadata, and its
  title and abstract are what search sees;
- its notes and highlights are kept with the work and searchable (:mod:`prioris.storage.notes`);
  its collections and tags are kept (:mod:`prioris.storage.labels`).

A sync is incremental: each item's fingerprint (everything stored of it) and its files'
sizes and times are kept in ``refsync_items``; an unchanged item is skipped without a
write. With ``complete=True`` (a Zotero library, read whole), items that are gone (deleted,
or moved to the trash) are removed: their work is deleted when it came only from this
sync, else only what the sync had given it is taken back. Every step is its own
transaction and an item's state row is written last, so a sync killed at any point redoes
only the items it had not finished, and two syncs at once each see the other's writes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prioris.errors import PriorisError
from prioris.ingest.pipeline import IngestPipeline
from prioris.models import FullText, Work
from prioris.refman.items import HTML, PDF, RefAttachment, RefError, RefItem
from prioris.refman.zotero import ZoteroLibrary
from prioris.storage import documents as document_store
from prioris.storage import labels as label_store
from prioris.storage import notes as note_store
from prioris.storage import records as record_store
from prioris.storage import refsync as sync_store
from prioris.storage import works as work_store
from prioris.storage.merged import apply_records
from prioris.storage.transaction import immediate

log = logging.getLogger(__name__)

IngestPdf = Callable[..., Any]
"""``IngestService.ingest_pdf_bytes``: PDF bytes into a given work, through the pipeline."""
MAX_HTML_BYTES = 20 * 1024 * 1024
ID_FIELDS = ("doi", "arxiv", "pmid", "pmcid")
WORK_FIELDS = (
    "title",
    "authors",
    "year",
    "venue",
    "abstract",
    "published",
    "type",
    "volume",
    "issue",
    "pages",
    "publisher",
    "keywords",
)


@dataclass
class SyncReport:
    """What a sync did, item by item counted once."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    files_missing: list[dict[str, Any]] = field(default_factory=list)
    """Files an item names that could not be read; the item is stored with its metadata."""
    kept: list[dict[str, Any]] = field(default_factory=list)
    """Works whose item is gone but which came from elsewhere too: kept, detached."""
    files_ingested: int = 0
    works: dict[str, str] = field(default_factory=dict)
    """``{item key: work id}`` of every item stored or unchanged."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "failed": list(self.failed),
            "files_ingested": self.files_ingested,
            "files_missing": list(self.files_missing),
            "kept": list(self.kept),
        }


def fingerprint(item: RefItem) -> str:
    """A hash of everything a sync stores of ``item`` (files by where they are; their
    content is compared by size, time and hash separately)."""
    payload = {
        "record": item.record,
        "collections": sorted(item.collections),
        "tags": sorted(item.tags),
        "notes": [
            [n.key, n.kind, n.text, n.comment, n.color, n.page_label, n.page] for n in item.notes
        ],
        "files": [[a.key, a.content_type, str(a.path or ""), a.missing] for a in item.attachments],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _stat(path: Path) -> dict[str, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns}


def _files_unchanged(item: RefItem, stored: dict[str, dict[str, Any]]) -> bool:
    """Whether every file the item's text comes from is the one ingested (size, time)."""
    for attachment in _text_files(item):
        entry = stored.get(attachment.key)
        now = _stat(attachment.path) if attachment.path else None
        if entry is None or now is None:
            return False
        if entry.get("size") != now["size"] or entry.get("mtime_ns") != now["mtime_ns"]:
            return False
    return True


def _readable(item: RefItem) -> list[RefAttachment]:
    return [a for a in item.attachments if a.path is not None and not a.missing]


def _text_files(item: RefItem) -> list[RefAttachment]:
    """The files an item's text comes from: its PDFs, else its first web snapshot."""
    readable = _readable(item)
    pdfs = [a for a in readable if _is_pdf(a)]
    return pdfs or [a for a in readable if _is_html(a)][:1]


def _is_pdf(attachment: RefAttachment) -> bool:
    if attachment.content_type == PDF:
        return True
    return attachment.path is not None and attachment.path.suffix.lower() == ".pdf"


def _is_html(attachment: RefAttachment) -> bool:
    if attachment.content_type == HTML:
        return True
    return attachment.path is not None and attachment.path.suffix.lower() in (".html", ".htm")


def _aliases(item: RefItem) -> list[str]:
    aliases = [f"{item.source}:{item.key}"]
    own_key = item.extra.get("citation_key")  # Better BibTeX's or Zotero 7's citation key
    if item.source != "bibtex" and isinstance(own_key, str) and own_key.strip():
        aliases.append(f"bibtex:{own_key.strip()}")
    record = item.record
    if record.get("doi"):
        aliases.append(f"doi:{str(record['doi']).strip().lower()}")
    if record.get("arxiv"):
        aliases.append(f"arxiv:{str(record['arxiv']).strip()}")
    if record.get("pmid"):
        aliases.append(f"europepmc:MED:{str(record['pmid']).strip()}")
    if record.get("pmcid"):
        pmcid = str(record["pmcid"]).strip().upper().removeprefix("PMC")
        aliases.append(f"europepmc:PMC{pmcid}")
    return aliases


def work_of(item: RefItem, work_id: str) -> Work:
    """The item as a :class:`Work` with id ``work_id`` (fields from its record)."""
    record = item.record
    values: dict[str, Any] = {}
    for name in WORK_FIELDS:
        value = record.get(name)
        if value in (None, "", []):
            continue
        values[name] = list(value) if name in ("authors", "keywords") else value
    year = values.get("year")
    if year is not None:
        try:
            values["year"] = int(year)
        except (TypeError, ValueError):
            values.pop("year")
    extra = {k: record[k] for k in ("url", "language") if record.get(k)}
    return Work(
        id=work_id,
        aliases=_aliases(item),
        source=item.source,
        extra=extra,
        **values,
    )


def _record(item: RefItem) -> dict[str, Any]:
    """The record kept as the item's origin: its fields and where it came from."""
    record = {k: v for k, v in item.record.items() if v not in (None, "", [])}
    record["key"] = item.key
    return record


class RefSync:
    """Stores reference-manager items into a library (see the module text)."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        pipeline: IngestPipeline,
        ingest_pdf: IngestPdf,
        now: Callable[[], str],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.pipeline = pipeline
        self.ingest_pdf = ingest_pdf
        self.now = now

    # -- the whole sync ------------------------------------------------------------------
    def sync(
        self,
        scope: str,
        items: Iterable[RefItem],
        *,
        errors: Sequence[RefError] = (),
        complete: bool = False,
        ocr_mode: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        """Store every item of ``scope``; with ``complete``, remove the items not given
        (read errors are never taken for deletions). Each item fails alone."""
        items = list(items)
        report = SyncReport()
        for error in errors:
            failure: dict[str, Any] = {"key": error.key, "error": error.error}
            if error.line:
                failure["line"] = error.line
            report.failed.append(failure)
        with self.lock:
            stored = sync_store.items_of(self.conn, scope)
        seen: set[str] = set()
        total = len(items)
        for number, item in enumerate(items, 1):
            if item.key in seen:
                report.failed.append({"key": item.key, "error": "the key appears twice"})
                continue
            seen.add(item.key)
            for attempt in (1, 2):  # a second sync writing the same item at once: once more
                try:
                    self._sync_item(scope, item, stored.get(item.key), report, ocr_mode)
                    break
                except PriorisError as exc:
                    report.failed.append({"key": item.key, "error": exc.message})
                    break
                except Exception as exc:  # a database race with another sync: retried once
                    if attempt == 2:
                        log.warning("%s %s failed: %s", scope, item.key, exc)
                        report.failed.append({"key": item.key, "error": str(exc)})
                    else:
                        with self.lock:
                            stored = sync_store.items_of(self.conn, scope)
            if on_progress:
                on_progress(number, total)
        if complete:
            failed_keys = {e.key for e in errors}
            for key, state in stored.items():
                if key not in seen and key not in failed_keys:
                    self._remove(state, report)
        return report

    # -- one item ------------------------------------------------------------------------
    def _sync_item(
        self,
        scope: str,
        item: RefItem,
        state: sync_store.SyncedItem | None,
        report: SyncReport,
        ocr_mode: str | None,
    ) -> None:
        fp = fingerprint(item)
        with self.lock:
            work_id = self._work_of(item, state)
        if (
            state is not None
            and work_id is not None
            and state.work_id == work_id
            and state.fingerprint == fp
            and _files_unchanged(item, state.files)
        ):
            report.unchanged += 1
            report.works[item.key] = work_id
            return
        new = work_id is None
        if work_id is None:
            work_id = self._new_id(item)
        files = dict(state.files) if state else {}
        work_id = self._ingest_files(item, work_id, files, report, ocr_mode, new=new)
        self._store_item(item, work_id)
        with self.lock, immediate(self.conn):
            sync_store.save_item(
                self.conn,
                sync_store.SyncedItem(scope, item.key, work_id, fp, files),
                self.now(),
            )
        report.works[item.key] = work_id
        if new:
            report.added += 1
        else:
            report.updated += 1

    def _work_of(self, item: RefItem, state: sync_store.SyncedItem | None) -> str | None:
        """The work that holds the item: the one the last sync stored it in, else one its
        key or identifiers already name."""
        if state is not None and state.work_id and work_store.get_work(self.conn, state.work_id):
            return state.work_id
        return work_store.find_work_id(self.conn, _aliases(item))

    def _new_id(self, item: RefItem) -> str:
        base = f"{item.source}:{item.key}"
        with self.lock:
            if work_store.find_work_id(self.conn, [base]) is None:
                return base
        digest = hashlib.sha256(f"{item.source}\0{item.key}\0{fingerprint(item)}".encode())
        return f"{base}~{digest.hexdigest()[:8]}"

    def _ingest_files(
        self,
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
        for attachment in item.attachments:
            if (
                (attachment.missing or attachment.path is None)
                and (_is_pdf(attachment) or _is_html(attachment))
                and not attachment.missing.startswith("linked URL")  # a link, not a file
            ):
                report.files_missing.append(
                    {
                        "key": item.key,
                        "file": attachment.key,
                        "reason": attachment.missing or "no file",
                    }
                )
        owner = work_id
        for attachment in _text_files(item):
            assert attachment.path is not None
            stat = _stat(attachment.path)
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
                continue  # ingested before, unchanged
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
                if _is_pdf(attachment):
                    result = self.ingest_pdf(
                        data,
                        path=str(attachment.path),
                        work=work_of(item, owner),
                        ocr_mode=ocr_mode,
                    )
                else:
                    result = self._ingest_html(item, owner, data)
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

    def _ingest_html(self, item: RefItem, work_id: str, data: bytes) -> Any:
        from prioris.sources.html_markdown import html_to_markdown

        if len(data) > MAX_HTML_BYTES:
            raise PriorisError(f"the web snapshot is larger than {MAX_HTML_BYTES} bytes")
        _, markdown = html_to_markdown(data.decode("utf-8", errors="replace"))
        prepared = self.pipeline.prepare_fulltext(
            work_of(item, work_id), FullText(format="html", content=data, markdown=markdown)
        )
        prepared.records[item.source] = _record(item)
        return self.pipeline.store(prepared)

    def _store_item(self, item: RefItem, work_id: str) -> None:
        """The item's record, aliases, labels and notes on its work (one transaction), and
        the work's title and abstract as its text when it has no document."""
        embedder = self.pipeline.embedder
        with self.lock:
            exists = work_store.get_work(self.conn, work_id) is not None
        if not exists:  # no file made it: a work of metadata, its title and abstract indexed
            prepared = self.pipeline.prepare_metadata_only(work_of(item, work_id))
            prepared.records[item.source] = _record(item)
            work_id = self.pipeline.store(prepared).id
        with self.lock, immediate(self.conn):
            now = self.now()
            work_store.upsert_work(self.conn, work_of(item, work_id), now)
            record_store.save_records(self.conn, work_id, {item.source: _record(item)}, now)
            apply_records(self.conn, work_id, now)
            label_store.set_labels(
                self.conn,
                work_id,
                item.source,
                collections=list(item.collections),
                tags=list(item.tags),
            )
            note_store.replace_notes(
                self.conn,
                work_id,
                item.source,
                [
                    note_store.StoredNote(
                        n.key, n.kind, n.text, n.comment, n.color, n.page_label, n.page
                    )
                    for n in item.notes
                ],
                embed=lambda texts: embedder.embed_passages(texts),
                model_id=embedder.model_id,
            )
            text_sha = self.conn.execute(
                "SELECT markdown_sha256 FROM works WHERE id = ?", (work_id,)
            ).fetchone()[0]
            merged = work_store.get_work(self.conn, work_id)
        if text_sha is None and merged is not None:
            # metadata only: what search sees is the merged title and abstract (re-indexed
            # when they changed; no record is written here)
            prepared = self.pipeline.prepare_metadata_only(merged)
            with self.lock:
                stored = self.conn.execute(
                    "SELECT markdown FROM works WHERE id = ?", (work_id,)
                ).fetchone()[0]
            if prepared.markdown != stored:
                self.pipeline.index_stored(prepared)

    # -- removal -------------------------------------------------------------------------
    def _remove(self, state: sync_store.SyncedItem, report: SyncReport) -> None:
        """An item that is gone: its work goes when nothing else gave it anything, else the
        work stays without what this item gave it."""
        source = state.scope.split(":", 1)[0]
        with self.lock, immediate(self.conn):
            work_id = state.work_id
            work = work_store.get_work(self.conn, work_id) if work_id else None
            sync_store.forget_item(self.conn, state.scope, state.key)
            if work is None:
                report.removed += 1
                return
            assert work_id is not None
            mine = {str(e["sha256"]) for e in state.files.values() if e.get("sha256")}
            if self._only_from(work_id, source, mine):
                work_store.delete_work(self.conn, work_id)
                report.removed += 1
                return
            others = sync_store.scopes_of_work(self.conn, work_id)
            if not any(scope.split(":", 1)[0] == source for scope, _ in others):
                self.conn.execute(
                    "DELETE FROM work_records WHERE work_id = ? AND origin = ?", (work_id, source)
                )
                label_store.remove_labels(self.conn, work_id, source)
                self.conn.execute(
                    "DELETE FROM work_notes WHERE work_id = ? AND source = ?", (work_id, source)
                )
                embedder = self.pipeline.embedder
                note_store.reindex_note_passages(
                    self.conn,
                    work_id,
                    embed=lambda texts: embedder.embed_passages(texts),
                    model_id=embedder.model_id,
                )
            self.conn.execute(
                "DELETE FROM aliases WHERE alias = ? AND work_id = ?",
                (f"{source}:{state.key}", work_id),
            )
            apply_records(self.conn, work_id, self.now())
            report.removed += 1
            report.kept.append({"key": state.key, "id": work_id})

    def _only_from(self, work_id: str, source: str, mine: set[str]) -> bool:
        """Whether everything a work has came from this one item: no record origin but the
        manager's and its PDFs' (printed, PDF metadata; a user's edit keeps the work), no
        document but the ones this item's sync ingested (``mine``), no other synced item."""
        origins = set(record_store.records_of(self.conn, work_id))
        if origins - {source, "printed", "pdf_metadata"}:
            return False
        if sync_store.scopes_of_work(self.conn, work_id):
            return False  # this item's row is forgotten: any left is another item's
        documents = {d.sha256 for d in document_store.documents_of(self.conn, work_id)}
        return documents <= mine


def zotero_items(read: ZoteroLibrary) -> list[RefItem]:
    """A Zotero library's regular items, and each standalone PDF (a file with no parent
    item) as an item of its own with no record: the PDF's printed header names it."""
    items = list(read.items)
    for attachment in read.standalone:
        if attachment.path is None and not attachment.missing:
            continue  # a link to a web page, no file
        if not _is_pdf(attachment):
            continue
        items.append(
            RefItem(
                source="zotero",
                key=attachment.key,
                record={},
                version="standalone",
                attachments=(attachment,),
            )
        )
    return items


def zotero_summary(read: ZoteroLibrary) -> dict[str, Any]:
    """What the sync's report says of the Zotero library itself: its schema, what was in
    the trash, and what was not read (group libraries, feeds, standalone notes)."""
    return {
        "schema": {
            "userdata": read.schema.userdata,
            "system": read.schema.system,
            "global_schema": read.schema.global_schema,
        },
        "items": len(read.items),
        "standalone_files": len(read.standalone),
        "trashed": len(read.trashed),
        "other_libraries": [
            {"id": o.library_id, "type": o.type, "name": o.name, "items": o.items}
            for o in read.other_libraries
        ],
        "not_read": dict(read.skipped),
    }


def read_reference_file(path: Path) -> tuple[str, list[RefItem], list[RefError]]:
    """``(format, items, errors)`` of a BibTeX or RIS file (the format from its extension,
    else its content)."""
    from prioris.refman.references import BIBTEX_SUFFIXES, RIS_SUFFIXES, read_references

    items, errors = read_references(path)
    suffix = path.suffix.lower()
    if items:
        kind = items[0].source
    elif suffix in BIBTEX_SUFFIXES or suffix in RIS_SUFFIXES:
        kind = "bibtex" if suffix in BIBTEX_SUFFIXES else "ris"
    else:
        kind = "bibtex"
    return kind, items, errors
