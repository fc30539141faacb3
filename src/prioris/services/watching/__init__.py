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

The package, one job a module:

- :mod:`.paths`: which files and folders are looked at (the checks before watching, the
  ignored and wanted names, a file's ``stat`` signature, the walk of a folder);
- :mod:`.source`: :data:`ChangeSource` and the real one over ``watchfiles``;
- :mod:`.settle`: the files waiting to settle, and when one is ready;
- :mod:`.actions`: :class:`WatchAction`, :class:`WatchStats` and :class:`WatchError`;
- :mod:`.watcher`: :class:`FolderWatcher`, the loop (events, groups, Zotero).

This package re-exports the names its users reach as ``watching.X``: :class:`FolderWatcher`,
:class:`WatchAction`, :class:`WatchStats`, :class:`WatchError`, :data:`ChangeSource`,
:func:`watchfiles_source`, :func:`check_folders`, :func:`check_zotero_dir`,
:func:`default_zotero_dir`, :func:`zotero_database_files`, :func:`is_wanted`,
:func:`is_ignored_name`, ``FileDone``, ``IngestPaths``, ``PARTIAL_SUFFIXES``,
``ZOTERO_FILES``, ``SETTLE_SECONDS``, ``RESYNC_DELAY`` and ``BATCH_SIZE``.
"""

from __future__ import annotations

from prioris.services.watching.actions import WatchAction, WatchError, WatchStats
from prioris.services.watching.paths import (
    PARTIAL_SUFFIXES,
    ZOTERO_FILES,
    check_folders,
    check_zotero_dir,
    default_zotero_dir,
    is_ignored_name,
    is_wanted,
    zotero_database_files,
)
from prioris.services.watching.source import ChangeSource, watchfiles_source
from prioris.services.watching.watcher import (
    BATCH_SIZE,
    RESYNC_DELAY,
    SETTLE_SECONDS,
    FileDone,
    FolderWatcher,
    IngestPaths,
)

__all__ = [
    "BATCH_SIZE",
    "PARTIAL_SUFFIXES",
    "RESYNC_DELAY",
    "SETTLE_SECONDS",
    "ZOTERO_FILES",
    "ChangeSource",
    "FileDone",
    "FolderWatcher",
    "IngestPaths",
    "WatchAction",
    "WatchError",
    "WatchStats",
    "check_folders",
    "check_zotero_dir",
    "default_zotero_dir",
    "is_ignored_name",
    "is_wanted",
    "watchfiles_source",
    "zotero_database_files",
]
