"""The watcher's loop: events noticed, settled files ingested in groups, Zotero followed.

:class:`FolderWatcher` is what ``Library.watch`` runs. It takes batches from its change
source (:mod:`.source`), hands wanted paths (:mod:`.paths`) to its settle queue
(:mod:`.settle`), ingests the files found ready through the library's one ingest in
groups of ``batch_size``, re-syncs Zotero once its database files are quiet, and reports
each action (:mod:`.actions`). What is a wanted file, when one is ready and where events
come from are decided elsewhere; this module is the order of the steps and what a failure
costs (one file, one group or one re-sync, never the watcher).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prioris.errors import PriorisError
from prioris.services.watching.actions import WatchAction, WatchError, WatchStats
from prioris.services.watching.paths import (
    hidden_below,
    is_ignored_name,
    is_wanted,
    pdfs_under,
    signature,
    walkable,
    within,
)
from prioris.services.watching.settle import Seen, SettleQueue
from prioris.services.watching.source import ChangeSource

# the name the watcher logged under before it was split into a package (log filters use it)
log = logging.getLogger("prioris.services.watching")

FileDone = Callable[[Path, Any, PriorisError | None], None]
IngestPaths = Callable[[Sequence[Path], FileDone], Any]
"""``ingest(paths, on_file_done)``: the library's ingest of these files, each reported to
``on_file_done(path, result, error)`` (:meth:`IngestService.ingest_paths`)."""

SETTLE_SECONDS = 1.5
RESYNC_DELAY = 5.0
BATCH_SIZE = 16


class FolderWatcher:
    """Ingest the PDFs under ``folders`` as they appear or change, until ``stop`` is set."""

    def __init__(
        self,
        folders: Sequence[Path],
        *,
        ingest: IngestPaths,
        changes: ChangeSource,
        on_action: Callable[[WatchAction], None] | None = None,
        on_ready: Callable[[], None] | None = None,
        settle_seconds: float = SETTLE_SECONDS,
        batch_size: int = BATCH_SIZE,
        initial_scan: bool = True,
        resync: Callable[[], Any] | None = None,
        zotero_files: Sequence[Path] = (),
        resync_delay: float = RESYNC_DELAY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if settle_seconds < 0:
            raise ValueError("settle_seconds must be 0 or more")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.folders = [Path(f) for f in folders]
        self.ingest = ingest
        self.changes = changes
        self.on_action = on_action
        self.on_ready = on_ready  # called once the source watches (after its first batch)
        self.settle_seconds = settle_seconds
        self.batch_size = batch_size
        self.initial_scan = initial_scan
        self.resync = resync
        self.zotero_files = list(zotero_files)
        self.resync_delay = resync_delay
        self.clock = clock
        self.stats = WatchStats()
        self._queue = SettleQueue(settle_seconds, clock, self._failed)
        self._zotero_signature: tuple[tuple[int, int] | None, ...] | None = None
        self._zotero_changed_at: float | None = None
        self._gone: set[Path] = set()  # watched folders not there at the last look

    @property
    def _waiting(self) -> dict[Path, Seen]:
        """The files waiting to settle (the settle queue's, by path)."""
        return self._queue.waiting

    # -- the loop ----------------------------------------------------------------------
    def run(self, stop: threading.Event) -> WatchStats:
        """Watch until ``stop`` is set (or the change source ends); returns the counts.

        The first batch (a tick at the latest) means the source is watching, so the
        initial scan comes after it: a file added while the scan runs is seen either way,
        never missed in between. Files still waiting when it stops are left for the next
        start's initial scan."""
        first = True
        for batch in self.changes(stop):
            for raw in batch:
                self._notice(Path(raw))
            if first:
                first = False
                self._start()
                if self.on_ready is not None:
                    self.on_ready()
            if stop.is_set():
                break
            self._follow_folders()
            self._follow_zotero()
            self._ingest_settled(stop)
            if stop.is_set():
                break
        return self.stats

    def _start(self) -> None:
        """The initial scan (files not yet stored are ingested once they settle; stored
        ones are skipped by their hash) and the initial Zotero sync, unless turned off."""
        self._zotero_signature = self._zotero_stat()
        if not self.initial_scan:
            return
        for folder in self.folders:
            for path in pdfs_under(folder, self.folders):
                self._queue.observe(path)
        if self.resync is not None:
            self._zotero_changed_at = self.clock() - self.resync_delay  # due at once

    # -- files -------------------------------------------------------------------------
    def _notice(self, path: Path) -> None:
        """One path from the source: a wanted PDF starts (or restarts) waiting; a folder
        moved in is walked (a move brings one event for the folder, none for its files)."""
        if is_ignored_name(path.name):
            return
        if walkable(path):  # a folder moved in (a link to one is not followed: the scan's rule)
            if not hidden_below(path, self.folders):
                for pdf in pdfs_under(path, self.folders):
                    self._queue.observe(pdf)
            return
        if path.is_dir():
            return
        if is_wanted(path, self.folders) and within(path, self.folders):
            self._queue.observe(path)

    def _ingest_settled(self, stop: threading.Event) -> None:
        """Settled files in groups of ``batch_size`` through the library's ingest; between
        groups the stop event and Zotero are looked at again. A long burst takes minutes,
        so each file is looked at once more just before its group: one that changed
        meanwhile waits again instead of being read while it is rewritten."""
        ready = self._queue.settled()
        for start in range(0, len(ready), self.batch_size):
            if stop.is_set():
                return
            group = [
                p
                for p in ready[start : start + self.batch_size]
                if self._queue.still_settled(p) and within(p, self.folders)  # no link swapped in
            ]
            if group:
                self._ingest_group(group)
            self._follow_zotero()

    def _ingest_group(self, group: list[Path]) -> None:
        reported: set[Path] = set()

        def done(path: Path, result: Any, error: PriorisError | None) -> None:
            reported.add(path)
            if error is not None:
                self._failed(path, error)
            elif result.status == "skipped":
                self._emit(WatchAction("skipped", str(path), id=result.id, reason=result.reason))
            else:
                self._emit(
                    WatchAction(
                        "ingested",
                        str(path),
                        id=result.id,
                        detail={
                            "pages": result.pages,
                            "ocr_pages": result.ocr_pages,
                            "chunks": result.chunks,
                        },
                    )
                )

        try:
            self.ingest(group, done)
        except Exception as exc:  # an unexpected failure costs this group, not the watcher
            log.debug("ingest of %d files failed", len(group), exc_info=True)
            error = WatchError(f"{type(exc).__name__}: {exc}")
            for path in group:
                if path not in reported:
                    self._failed(path, error)

    def _failed(self, path: Path, error: PriorisError) -> None:
        self._emit(WatchAction("failed", str(path), error=error.to_dict()))

    def _emit(self, action: WatchAction) -> None:
        self.stats.count(action)
        if self.on_action is not None:
            self.on_action(action)

    # -- the watched folders themselves -------------------------------------------------
    def _follow_folders(self) -> None:
        """A watched folder that disappeared (an unmounted drive, a synced folder removed)
        is said once (``folder_gone``); when it is back it is said again
        (``folder_back``) and scanned as at the start, so what was added meanwhile is
        ingested. The change source watches it again itself (:mod:`.source`)."""
        for folder in self.folders:
            present = folder.is_dir()
            if not present and folder not in self._gone:
                self._gone.add(folder)
                self._emit(
                    WatchAction(
                        "folder_gone",
                        str(folder),
                        reason="the watched folder is gone; watching for it to come back",
                    )
                )
            elif present and folder in self._gone:
                self._gone.discard(folder)
                self._emit(WatchAction("folder_back", str(folder), reason="watched again"))
                for path in pdfs_under(folder, self.folders):
                    self._queue.observe(path)

    # -- Zotero ------------------------------------------------------------------------
    def _zotero_stat(self) -> tuple[tuple[int, int] | None, ...]:
        return tuple(signature(path) for path in self.zotero_files)

    def _follow_zotero(self) -> None:
        """Re-sync once Zotero's files have been quiet for ``resync_delay`` after a change."""
        if self.resync is None:
            return
        now = self.clock()
        current = self._zotero_stat()
        if current != self._zotero_signature:
            self._zotero_signature = current
            self._zotero_changed_at = now
            return
        if self._zotero_changed_at is None or now - self._zotero_changed_at < self.resync_delay:
            return
        self._zotero_changed_at = None
        where = str(self.zotero_files[0]) if self.zotero_files else "zotero"
        try:
            report = self.resync()
        except PriorisError as exc:
            self._failed(Path(where), exc)
            return
        except Exception as exc:  # a failed sync is retried on Zotero's next change
            log.debug("zotero re-sync failed", exc_info=True)
            self._failed(Path(where), WatchError(f"{type(exc).__name__}: {exc}"))
            return
        detail = report if isinstance(report, dict) else {}
        self._emit(WatchAction("synced", where, detail=dict(detail)))
        # the sync's own reads must not look like a change of Zotero's
        self._zotero_signature = self._zotero_stat()
