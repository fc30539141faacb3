"""When a file is ready to be read: the waiting files and the settling rule.

A file being copied or downloaded must not be read half-written, so each wanted file
waits here until its size and modification time held for ``settle_seconds`` (on the
watcher's clock, injected so the rule is tested without sleeping); a file that changes
waits again, one that vanishes while waiting is a failure. Only one path and one ``stat``
per waiting file is held, never its bytes. Kept apart from the watcher's loop
(:mod:`.watcher`), which decides when to look and what to do with the files found ready.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prioris.errors import NotFoundError, PriorisError
from prioris.services.watching.paths import signature


@dataclass
class Seen:
    """A waiting file's last observation and since when (watcher clock) it held."""

    signature: tuple[int, int]
    since: float


class SettleQueue:
    """The files waiting to settle; ``failed(path, error)`` hears of one deleted before."""

    def __init__(
        self,
        settle_seconds: float,
        clock: Callable[[], float],
        failed: Callable[[Path, PriorisError], None],
    ) -> None:
        self.settle_seconds = settle_seconds
        self.clock = clock
        self.failed = failed
        self.waiting: dict[Path, Seen] = {}

    def _vanished(self, path: Path) -> None:
        self.failed(path, NotFoundError(f"{path} was deleted before it settled"))

    def observe(self, path: Path) -> None:
        """Start or restart a file's wait; a path that is gone is forgotten (the old name
        of a moved file, a deleted one), unless it was waiting, which is a failure."""
        now = signature(path)
        if now is None:
            if self.waiting.pop(path, None) is not None:
                self._vanished(path)
            return
        seen = self.waiting.get(path)
        if seen is None or seen.signature != now:
            self.waiting[path] = Seen(now, self.clock())

    def settled(self) -> list[Path]:
        """Waiting files whose size and mtime held for ``settle_seconds``; a changed one
        waits again, a vanished one fails alone."""
        now = self.clock()
        ready: list[Path] = []
        for path, seen in list(self.waiting.items()):
            current = signature(path)
            if current is None:
                del self.waiting[path]
                self._vanished(path)
            elif current != seen.signature:
                self.waiting[path] = Seen(current, now)
            elif now - seen.since >= self.settle_seconds:
                ready.append(path)
        return sorted(ready)

    def still_settled(self, path: Path) -> bool:
        """Take ``path`` off the waiting list if it is as it was when found settled."""
        seen = self.waiting.pop(path)
        current = signature(path)
        if current is None:
            self._vanished(path)
            return False
        if current != seen.signature:
            self.waiting[path] = Seen(current, self.clock())
            return False
        return True
