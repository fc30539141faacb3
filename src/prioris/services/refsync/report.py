"""What a sync did: the report every step of a sync adds to, item by item.

Its own module because each step writes to it (the planning counts the unchanged, the
file ingest the files read or missing, the writes the removed and kept) while none of
them needs the others: they share this one data class, not each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    warnings: list[dict[str, Any]] = field(default_factory=list)
    """Two entries that name one file or one identifier (``{key, other, reason}``): both
    kept, each its own work with its own record, never merged."""
    cut: list[dict[str, Any]] = field(default_factory=list)
    """Fields cut to the library's bounds (``{key, field, length, kept}``)."""
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
            "warnings": list(self.warnings),
            "cut": list(self.cut),
        }
