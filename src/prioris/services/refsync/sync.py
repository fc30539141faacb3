"""The sync itself: every item of a scope planned, its files ingested, its writes applied,
each item failing alone; with ``complete``, the items gone removed.

:class:`RefSync` is what :class:`~prioris.library.Library` holds; it runs the steps in
order and owns the retry of an item that lost a race with another sync. What changed is
decided by :mod:`.plan`, the files go through :mod:`.files`, the writes through
:mod:`.apply`, so this module is only the order of the steps and the accounting.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from prioris.errors import PriorisError
from prioris.ingest.pipeline import IngestPipeline
from prioris.refman.items import RefError, RefItem
from prioris.services.refsync.apply import pin_work, remove_item, save_state, store_item
from prioris.services.refsync.bounds import MAX_KEY, bounded
from prioris.services.refsync.files import (
    IngestPdf,
    Pending,
    changed_files,
    failed_files,
    ingest_files,
    missing_files,
    report_missing,
)
from prioris.services.refsync.plan import (
    entry_of,
    fingerprint,
    gone,
    holding_work,
    is_unchanged,
    other_entry,
)
from prioris.services.refsync.report import SyncReport
from prioris.storage import refsync as sync_store

MAX_FILE_BYTES = 104_857_600
"""An attachment larger than this is not read (the library's ``max_file_bytes``)."""

# the name the sync logged under before it was split into a package (log filters use it)
log = logging.getLogger("prioris.services.refsync")


class RefSync:
    """Stores reference-manager items into a library (see the module text)."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        pipeline: IngestPipeline,
        ingest_pdf: IngestPdf,
        now: Callable[[], str],
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self.conn = conn
        self.max_file_bytes = max_file_bytes  # an attachment past it is reported, not read
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
            if len(item.key) > MAX_KEY:
                report.failed.append(
                    {"key": item.key[:100], "error": f"the key is longer than {MAX_KEY} characters"}
                )
                continue
            item, cuts = bounded(item)  # as the user's edits are bounded; said if cut
            for attempt in (1, 2):  # a second sync writing the same item at once: once more
                try:
                    self._sync_item(scope, item, stored.get(item.key), report, ocr_mode, cuts)
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
            for state in gone(stored, seen, {e.key for e in errors}):
                remove_item(self.conn, self.lock, self.pipeline, self.now, state, report)
        return report

    # -- one item ------------------------------------------------------------------------
    def _sync_item(
        self,
        scope: str,
        item: RefItem,
        state: sync_store.SyncedItem | None,
        report: SyncReport,
        ocr_mode: str | None,
        cuts: list[dict[str, Any]],
    ) -> None:
        fp = fingerprint(item)
        with self.lock:
            work_id, claimed = holding_work(self.conn, item, state)
        if work_id is not None and is_unchanged(item, state, work_id, fp):
            assert state is not None
            report.unchanged += 1
            report.works[item.key] = work_id
            # what is still not in the library is listed again, not only the first time
            report.files_missing.extend(missing_files(item) + failed_files(item, state.files))
            return
        report.cut.extend(cuts)  # said when the item is stored, not on every unchanged sync
        files = dict(state.files) if state else {}
        report_missing(item, report)
        pending = changed_files(item, files, report, self.max_file_bytes)
        new = work_id is None
        if work_id is None:
            work_id = self._joined_by_file(item, pending)
        if work_id is None:
            work_id, new, claimed, taken = pin_work(self.conn, self.lock, self.now, item)
            self._warn_taken(item, taken, claimed, report)
        else:
            new = False  # an existing work: the item updates it
        ingest_files(
            self.pipeline,
            self.ingest_pdf,
            item,
            work_id,
            pending,
            files,
            report,
            ocr_mode,
            max_bytes=self.max_file_bytes,
            holder_of=self._entry_of,
        )
        store_item(self.conn, self.lock, self.pipeline, self.now, item, work_id)
        save_state(
            self.conn,
            self.lock,
            self.now,
            sync_store.SyncedItem(scope, item.key, work_id, fp, files),
        )
        report.works[item.key] = work_id
        if new:
            report.added += 1
        else:
            report.updated += 1

    def _joined_by_file(self, item: RefItem, pending: list[Pending]) -> str | None:
        """The work a new item joins because it already holds one of the item's files
        (the same paper brought in another way: a PDF ingested before, another manager's
        entry), unless that work is another entry's of the same manager."""
        for file in pending:
            holder = self.pipeline.already_stored(file.sha256)
            if holder is None:
                continue
            with self.lock:
                if other_entry(self.conn, holder, item) is None:
                    return holder
        return None

    def _entry_of(self, work_id: str) -> str | None:
        with self.lock:
            return entry_of(self.conn, work_id)

    def _warn_taken(
        self,
        item: RefItem,
        taken: list[dict[str, str]],
        claimed: dict[str, str] | None,
        report: SyncReport,
    ) -> None:
        """Identifiers of the item's record that another work holds: both kept, said."""
        seen: set[str] = set()
        for entry in ([claimed] if claimed else []) + [
            {"alias": t["alias"], "owner": t["owner"]} for t in taken
        ]:
            alias = entry["alias"]
            if alias in seen or alias.startswith(f"{item.source}:"):
                continue
            seen.add(alias)
            other = (
                entry.get("other")
                or self._entry_of(entry.get("owner", ""))
                or entry.get("owner", "")
            )
            report.warnings.append(
                {
                    "key": item.key,
                    "other": other,
                    "identifier": alias,
                    "reason": f"{alias} is also entry {other}'s: both kept as separate works, "
                    f"{item.key} without that identifier as an alias",
                }
            )
