"""A library's watched folders: the folders checked, Zotero's database followed when
asked, and a :class:`~prioris.services.watching.FolderWatcher` run until stopped."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prioris.services import watching


class LibraryWatch:
    """``Library.watch``: files ingested through the library, Zotero re-synced."""

    def __init__(
        self,
        *,
        ingest_paths: Callable[[Any, Any], Any],
        zotero_dir: Callable[[Any], Path],
        zotero_sync: Callable[[Path], Any],
    ) -> None:
        self.ingest_paths = ingest_paths
        self.zotero_dir = zotero_dir
        self.zotero_sync = zotero_sync

    def watch(
        self,
        folders: Sequence[str | Path],
        *,
        stop: threading.Event,
        on_action: Callable[[watching.WatchAction], None] | None = None,
        on_ready: Callable[[], None] | None = None,
        settle_seconds: float | None = None,
        initial_scan: bool = True,
        zotero: bool = False,
        zotero_dir: Path | None = None,
        changes: watching.ChangeSource | None = None,
        clock: Callable[[], float] | None = None,
    ) -> watching.WatchStats:
        """Ingest the PDFs under ``folders`` as they appear or change until ``stop`` is
        set (see :mod:`prioris.services.watching`); with ``zotero``, also re-sync Zotero's
        library (:meth:`zotero_sync`) whenever its database changes. ``on_action`` gets
        each :class:`~prioris.services.watching.WatchAction`, ``on_ready()`` is called
        once the folders are watched (nothing dropped from then on is missed); returns
        the run's :class:`~prioris.services.watching.WatchStats`. ``changes`` and
        ``clock`` replace the real file-system watch and clock (tests)."""
        roots = watching.check_folders(folders)
        resync = None
        zotero_files: list[Path] = []
        if zotero:
            directory = self.zotero_dir(zotero_dir)
            zotero_files = watching.check_zotero_dir(directory)

            def resync() -> Any:
                return self.zotero_sync(directory)

        options: dict[str, Any] = {}
        if settle_seconds is not None:
            options["settle_seconds"] = settle_seconds
        if clock is not None:
            options["clock"] = clock
        watcher = watching.FolderWatcher(
            roots,
            ingest=self.ingest_paths,
            changes=changes or watching.watchfiles_source(roots),
            on_action=on_action,
            on_ready=on_ready,
            initial_scan=initial_scan,
            resync=resync,
            zotero_files=zotero_files,
            **options,
        )
        return watcher.run(stop)
