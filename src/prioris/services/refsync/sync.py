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
from prioris.services.refsync.apply import remove_item, save_state, store_item
from prioris.services.refsync.files import IngestPdf, failed_files, ingest_files, missing_files
from prioris.services.refsync.plan import (
    fingerprint,
    gone,
    holding_work,
    is_unchanged,
    new_work_id,
)
from prioris.services.refsync.report import SyncReport
from prioris.storage import refsync as sync_store

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
    ) -> None:
        fp = fingerprint(item)
        with self.lock:
            work_id = holding_work(self.conn, item, state)
        if work_id is not None and is_unchanged(item, state, work_id, fp):
            assert state is not None
            report.unchanged += 1
            report.works[item.key] = work_id
            # what is still not in the library is listed again, not only the first time
            report.files_missing.extend(missing_files(item) + failed_files(item, state.files))
            return
        new = work_id is None
        if work_id is None:
            work_id = new_work_id(self.conn, self.lock, item)
        files = dict(state.files) if state else {}
        work_id = ingest_files(
            self.pipeline, self.ingest_pdf, item, work_id, files, report, ocr_mode, new=new
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
