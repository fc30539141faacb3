"""What each reference-manager sync last stored of an item (``refsync_items``).

A sync compares every item it reads with this row: the same fingerprint and the same
files (by size and modification time) means the item is unchanged and nothing is touched,
which is what keeps an unchanged sync of a large Zotero library fast. The row is written
in the transaction that stores the item's work, so a sync killed at any point leaves each
item either fully stored with its row or not stored at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SyncedItem:
    """The stored state of one item of ``scope``."""

    scope: str
    key: str
    work_id: str | None
    fingerprint: str
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``{attachment key: {"sha256", "size", "mtime_ns"}}`` of the files ingested."""


def items_of(conn: Any, scope: str) -> dict[str, SyncedItem]:
    """Every item a sync of ``scope`` has stored, by key."""
    rows = conn.execute(
        "SELECT item_key, work_id, fingerprint, files FROM refsync_items WHERE scope = ?",
        (scope,),
    ).fetchall()
    return {r[0]: SyncedItem(scope, r[0], r[1], r[2], json.loads(r[3] or "{}") or {}) for r in rows}


def save_item(conn: Any, item: SyncedItem, now: str) -> None:
    """Record an item as stored (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO refsync_items(scope, item_key, work_id, fingerprint, files, synced_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(scope, item_key) DO UPDATE SET "
        "work_id = excluded.work_id, fingerprint = excluded.fingerprint, "
        "files = excluded.files, synced_at = excluded.synced_at",
        (
            item.scope,
            item.key,
            item.work_id,
            item.fingerprint,
            json.dumps(item.files, sort_keys=True),
            now,
        ),
    )


def forget_item(conn: Any, scope: str, key: str) -> None:
    conn.execute("DELETE FROM refsync_items WHERE scope = ? AND item_key = ?", (scope, key))


def scopes_of_work(conn: Any, work_id: str) -> list[tuple[str, str]]:
    """The (scope, key) pairs that stored ``work_id``: a work several syncs share."""
    rows = conn.execute(
        "SELECT scope, item_key FROM refsync_items WHERE work_id = ?", (work_id,)
    ).fetchall()
    return [(r[0], r[1]) for r in rows]
