"""Where the watcher's file-system events come from: :data:`ChangeSource`, and the real
one over ``watchfiles``.

The watcher takes its events from an injected source so its rules are tested with a list
of batches instead of a real file system; this module is the one place that knows
``watchfiles`` (imported only when the real source starts).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from prioris.services.watching.paths import is_ignored_name

ChangeSource = Callable[[threading.Event], Iterable[Collection[str | Path]]]
"""Called once with the stop event; yields batches of paths that changed (added, modified or
deleted: the watcher looks at each path itself). An empty batch is a tick: the watcher
checks its waiting files then, so a source must yield one at least every second or so while
nothing happens, and must end once the event is set."""


def watchfiles_source(
    folders: Sequence[Path], *, tick_seconds: float = 0.25, debounce_seconds: float = 0.4
) -> ChangeSource:
    """The real :data:`ChangeSource`: ``watchfiles.watch`` over ``folders`` (recursive),
    yielding an empty batch every ``tick_seconds`` while nothing happens and stopping
    within its 50 ms step once the stop event is set. Partial downloads, lock files,
    hidden names and changes of a folder's own attributes are filtered out here. A
    folder that disappears is no longer watched (the system drops its watch); when it
    comes back, the watch is started again over the folders that are there."""

    def source(stop: threading.Event) -> Iterator[set[str]]:
        from watchfiles import Change, watch

        def keep(change: Any, path: str) -> bool:
            if is_ignored_name(os.path.basename(path)):
                return False
            # a folder's own change (chmod, touch) is no news of its files: walking it
            # would hash every PDF in it again; a folder added (moved in) is walked
            return not (change == Change.modified and os.path.isdir(path))

        while not stop.is_set():
            present = [f for f in folders if f.is_dir()]
            if not present:  # every folder gone: tick until one is back
                yield set()
                stop.wait(tick_seconds)
                continue
            try:
                for changes in watch(
                    *present,
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
                    if [f for f in folders if f.is_dir()] != present:
                        break  # a folder went or came back: watch the ones there anew
            except FileNotFoundError:  # a folder went between the look and the watch
                yield set()
                stop.wait(tick_seconds)

    return source
