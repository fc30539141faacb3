"""Watched folders: PDFs ingested as they appear or change, Zotero re-synced as it changes.

``prioris watch`` runs this for hours, so it is built to survive what a real folder does:

* a file being copied or downloaded is not read half-written: a PDF is ingested only once
  its size and modification time stayed the same across ``settle_seconds``; partial
  downloads (``.crdownload``, ``.part``, ``.partial``, ``.download``, ``.tmp``), office
  lock files (``~$...``) and hidden files or folders are never looked at;
* a moved or renamed file, and a copy of a stored one, is not parsed again: every file goes
  through the library's one ingest (:meth:`~prioris.ingest.service.IngestService.ingest_paths`),
  which hashes the bytes first and skips identical bytes already stored before any parse;
* a file that cannot be read (permission denied, a broken PDF, a file deleted before it
  settled) is one failed action, and watching goes on;
* a burst of hundreds of files is ingested in groups of ``batch_size``; what is held meanwhile
  is one path and one ``stat`` per waiting file, never their bytes.

The file-system events come from an injected :data:`ChangeSource` (the real one,
:func:`watchfiles_source`, wraps ``watchfiles.watch``; tests pass a list of batches) and
the time from an injected clock, so the settling rules are tested without sleeping.

Zotero's database is followed by its ``stat`` on every tick rather than by a watch of the
data directory: a recursive watch of ``~/Zotero`` would put one inotify watch on each of the
thousands of ``storage/<KEY>/`` folders, and a watch of the files themselves would miss a
``-wal`` created later. A change of ``zotero.sqlite``, ``-wal`` or ``-journal`` calls
``resync`` once they have been quiet for ``resync_delay`` seconds (Zotero writes in
bursts).
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prioris.errors import ConfigurationError, InvalidRequestError, NotFoundError, PriorisError
from prioris.ingest.batch import check_path

log = logging.getLogger(__name__)

ChangeSource = Callable[[threading.Event], Iterable[Collection[str | Path]]]
"""Called once with the stop event; yields batches of paths that changed (added, modified or
deleted: the watcher looks at each path itself). An empty batch is a tick: the watcher
checks its waiting files then, so a source must yield one at least every second or so while
nothing happens, and must end once the event is set."""

FileDone = Callable[[Path, Any, PriorisError | None], None]
IngestPaths = Callable[[Sequence[Path], FileDone], Any]
"""``ingest(paths, on_file_done)``: the library's ingest of these files, each reported to
``on_file_done(path, result, error)`` (:meth:`IngestService.ingest_paths`)."""

PARTIAL_SUFFIXES = (".crdownload", ".part", ".partial", ".download", ".tmp", ".opdownload")
ZOTERO_FILES = ("zotero.sqlite", "zotero.sqlite-wal", "zotero.sqlite-journal")
SETTLE_SECONDS = 1.5
RESYNC_DELAY = 5.0
BATCH_SIZE = 16


def default_zotero_dir() -> Path:
    """Zotero's default data directory (``~/Zotero`` on Linux, macOS and Windows alike)."""
    return Path.home() / "Zotero"


def zotero_database_files(zotero_dir: Path | None) -> list[Path]:
    """The files whose change means Zotero's library changed: the database and its
    write-ahead log or rollback journal (either may appear and vanish while Zotero runs)."""
    folder = (zotero_dir or default_zotero_dir()).expanduser()
    return [folder / name for name in ZOTERO_FILES]


def check_folders(folders: Sequence[str | Path]) -> list[Path]:
    """The folders to watch as absolute paths (events name files under them), each an
    existing folder: not_found or invalid_request before anything is watched."""
    if not folders:
        raise InvalidRequestError("name at least one folder to watch")
    roots: list[Path] = []
    for raw in folders:
        check_path(raw)
        path = Path(raw).expanduser()
        if not path.exists():
            raise NotFoundError(f"no such folder: {path}")
        if not path.is_dir():
            raise InvalidRequestError(f"not a folder: {path} (watch takes folders)")
        resolved = path.resolve()
        if resolved not in roots:
            roots.append(resolved)
    return roots


def check_zotero_dir(zotero_dir: Path | None) -> list[Path]:
    """Zotero's database files in ``zotero_dir`` (default: :func:`default_zotero_dir`);
    configuration_error when it holds no ``zotero.sqlite``."""
    files = zotero_database_files(zotero_dir)
    if not files[0].is_file():
        raise ConfigurationError(
            f"no Zotero database at {files[0]} (give Zotero's data directory with --zotero-dir)"
        )
    return files


def is_wanted(path: Path, roots: Sequence[Path] = ()) -> bool:
    """True for a ``.pdf`` file name the watcher may ingest: not a partial download, an
    office lock file or a hidden file, and not inside a hidden folder below a watched root
    (a root itself may be hidden: ``~/.papers`` is watched if asked for)."""
    name = path.name
    if not name.lower().endswith(".pdf") or name.startswith((".", "~$")):
        return False
    return not _hidden_below(path.parent, roots)


def is_ignored_name(name: str) -> bool:
    """Names never worth an event: hidden, office lock files and partial downloads."""
    lowered = name.lower()
    return name.startswith((".", "~$")) or lowered.endswith(PARTIAL_SUFFIXES)


def _hidden_below(folder: Path, roots: Sequence[Path]) -> bool:
    """True when ``folder`` is, or is inside, a hidden folder below one of ``roots``."""
    for root in roots:
        try:
            inner = folder.relative_to(root)
        except ValueError:
            continue
        return any(part.startswith(".") for part in inner.parts)
    return False


class WatchError(PriorisError):
    """Something no file explains went wrong in one ingest group or one Zotero re-sync
    (a database error, a bug): reported as that item's failure, and watching goes on."""

    code = "internal_error"


@dataclass
class WatchAction:
    """One thing the watcher did: ``ingested``, ``skipped`` (content already stored),
    ``failed`` (with the error's code and message), or ``synced`` (Zotero, with its
    report). ``--json`` prints each as one line."""

    action: str
    path: str
    id: str | None = None
    reason: str | None = None
    error: dict[str, str] | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "path": self.path}
        if self.id is not None:
            data["id"] = self.id
        if self.reason is not None:
            data["reason"] = self.reason
        if self.error is not None:
            data["error"] = self.error
        if self.detail:
            data.update({k: v for k, v in self.detail.items() if k not in data})
        return data


@dataclass
class WatchStats:
    """Counts of one run, for the summary line when it stops."""

    ingested: int = 0
    skipped: int = 0
    failed: int = 0
    synced: int = 0

    def count(self, action: WatchAction) -> None:
        if hasattr(self, action.action):
            setattr(self, action.action, getattr(self, action.action) + 1)

    def to_dict(self) -> dict[str, int]:
        return {
            "ingested": self.ingested,
            "skipped": self.skipped,
            "failed": self.failed,
            "synced": self.synced,
        }


@dataclass
class _Seen:
    """A waiting file's last observation and since when (watcher clock) it held."""

    signature: tuple[int, int]
    since: float


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
        self._waiting: dict[Path, _Seen] = {}
        self._zotero_signature: tuple[tuple[int, int] | None, ...] | None = None
        self._zotero_changed_at: float | None = None

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
            for path in self._pdfs_under(folder):
                self._observe(path)
        if self.resync is not None:
            self._zotero_changed_at = self.clock() - self.resync_delay  # due at once

    # -- files -------------------------------------------------------------------------
    def _notice(self, path: Path) -> None:
        """One path from the source: a wanted PDF starts (or restarts) waiting; a folder
        moved in is walked (a move brings one event for the folder, none for its files)."""
        if is_ignored_name(path.name):
            return
        if path.is_dir():
            if not _hidden_below(path, self.folders):
                for pdf in self._pdfs_under(path):
                    self._observe(pdf)
            return
        if is_wanted(path, self.folders):
            self._observe(path)

    def _pdfs_under(self, folder: Path) -> Iterator[Path]:
        """Wanted PDFs under ``folder``, hidden folders not entered; an unreadable folder
        is logged and passed over (watching goes on)."""

        def note(exc: OSError) -> None:
            log.warning("cannot list %s: %s", exc.filename or folder, exc.strerror or exc)

        for root, dirs, files in os.walk(folder, onerror=note):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                path = Path(root) / name
                if is_wanted(path, self.folders) and not is_ignored_name(name):
                    yield path

    def _observe(self, path: Path) -> None:
        """Start or restart a file's wait; a path that is gone is forgotten (the old name
        of a moved file, a deleted one), unless it was waiting, which is a failure."""
        signature = _signature(path)
        if signature is None:
            if self._waiting.pop(path, None) is not None:
                self._failed(path, NotFoundError(f"{path} was deleted before it settled"))
            return
        seen = self._waiting.get(path)
        if seen is None or seen.signature != signature:
            self._waiting[path] = _Seen(signature, self.clock())

    def _settled(self) -> list[Path]:
        """Waiting files whose size and mtime held for ``settle_seconds``; a changed one
        waits again, a vanished one fails alone."""
        now = self.clock()
        ready: list[Path] = []
        for path, seen in list(self._waiting.items()):
            signature = _signature(path)
            if signature is None:
                del self._waiting[path]
                self._failed(path, NotFoundError(f"{path} was deleted before it settled"))
            elif signature != seen.signature:
                self._waiting[path] = _Seen(signature, now)
            elif now - seen.since >= self.settle_seconds:
                ready.append(path)
        return sorted(ready)

    def _ingest_settled(self, stop: threading.Event) -> None:
        """Settled files in groups of ``batch_size`` through the library's ingest; between
        groups the stop event and Zotero are looked at again. A long burst takes minutes,
        so each file is looked at once more just before its group: one that changed
        meanwhile waits again instead of being read while it is rewritten."""
        ready = self._settled()
        for start in range(0, len(ready), self.batch_size):
            if stop.is_set():
                return
            group = [p for p in ready[start : start + self.batch_size] if self._still_settled(p)]
            if group:
                self._ingest_group(group)
            self._follow_zotero()

    def _still_settled(self, path: Path) -> bool:
        """Take ``path`` off the waiting list if it is as it was when found settled."""
        seen = self._waiting.pop(path)
        signature = _signature(path)
        if signature is None:
            self._failed(path, NotFoundError(f"{path} was deleted before it settled"))
            return False
        if signature != seen.signature:
            self._waiting[path] = _Seen(signature, self.clock())
            return False
        return True

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

    # -- Zotero ------------------------------------------------------------------------
    def _zotero_stat(self) -> tuple[tuple[int, int] | None, ...]:
        return tuple(_signature(path) for path in self.zotero_files)

    def _follow_zotero(self) -> None:
        """Re-sync once Zotero's files have been quiet for ``resync_delay`` after a change."""
        if self.resync is None:
            return
        now = self.clock()
        signature = self._zotero_stat()
        if signature != self._zotero_signature:
            self._zotero_signature = signature
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


def _signature(path: Path) -> tuple[int, int] | None:
    """(size, mtime in ns) of a regular file; None when it is gone or not a file."""
    try:
        st = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_size, st.st_mtime_ns)


def watchfiles_source(
    folders: Sequence[Path], *, tick_seconds: float = 0.25, debounce_seconds: float = 0.4
) -> ChangeSource:
    """The real :data:`ChangeSource`: ``watchfiles.watch`` over ``folders`` (recursive),
    yielding an empty batch every ``tick_seconds`` while nothing happens and stopping
    within its 50 ms step once the stop event is set. Partial downloads, lock files,
    hidden names and changes of a folder's own attributes are filtered out here."""

    def source(stop: threading.Event) -> Iterator[set[str]]:
        from watchfiles import Change, watch

        def keep(change: Any, path: str) -> bool:
            if is_ignored_name(os.path.basename(path)):
                return False
            # a folder's own change (chmod, touch) is no news of its files: walking it
            # would hash every PDF in it again; a folder added (moved in) is walked
            return not (change == Change.modified and os.path.isdir(path))

        for changes in watch(
            *folders,
            watch_filter=keep,
            debounce=int(debounce_seconds * 1000),
            step=50,
            stop_event=stop,
            rust_timeout=max(1, int(tick_seconds * 1000)),
            yield_on_timeout=True,
            raise_interrupt=False,
            ignore_permission_denied=True,
        ):
            yield {path for _change, path in changes}

    return source
