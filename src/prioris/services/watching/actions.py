"""What the watcher reports: each action it took, the run's counts, and the error of a
failure no file explains.

These are what the CLI prints and ``Library.watch`` returns; kept apart from the loop so
an interface reads them without the watcher's machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prioris.errors import PriorisError


class WatchError(PriorisError):
    """Something no file explains went wrong in one ingest group or one Zotero re-sync
    (a database error, a bug): reported as that item's failure, and watching goes on."""

    code = "internal_error"


@dataclass
class WatchAction:
    """One thing the watcher did: ``ingested``, ``skipped`` (content already stored),
    ``failed`` (with the error's code and message), ``synced`` (Zotero, with its report),
    ``folder_gone`` (a watched folder disappeared) or ``folder_back`` (it returned and is
    watched again). ``--json`` prints each as one line."""

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
