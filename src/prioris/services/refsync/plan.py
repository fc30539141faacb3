"""What changed since the last sync: fingerprints, files by size and time, which work.

The planning half of a sync, separate from the writes (:mod:`.apply`, :mod:`.files`):
an item's fingerprint (everything a sync stores of it) and its files' sizes and times
are compared with the row the last sync kept in ``refsync_items``, which decides whether
the item is new, changed or unchanged; the items the last sync stored and this one did
not see are the ones gone. Nothing here writes: the only database reads are which work
already holds an item.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from prioris.refman.items import RefItem
from prioris.services.refsync.items import aliases, text_files
from prioris.storage import refsync as sync_store
from prioris.storage import works as work_store


def fingerprint(item: RefItem) -> str:
    """A hash of everything a sync stores of ``item`` (files by where they are; their
    content is compared by size, time and hash separately)."""
    payload = {
        "record": item.record,
        "collections": sorted(item.collections),
        "tags": sorted(item.tags),
        "notes": [
            [n.key, n.kind, n.text, n.comment, n.color, n.page_label, n.page] for n in item.notes
        ],
        "files": [[a.key, a.content_type, str(a.path or ""), a.missing] for a in item.attachments],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def file_stat(path: Path) -> dict[str, int] | None:
    """A file's size and modification time as the state row keeps them; None when it
    cannot be looked at."""
    try:
        info = path.stat()
    except OSError:
        return None
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns}


def files_unchanged(item: RefItem, stored: dict[str, dict[str, Any]]) -> bool:
    """Whether every file the item's text comes from is the one ingested (size, time)."""
    for attachment in text_files(item):
        entry = stored.get(attachment.key)
        now = file_stat(attachment.path) if attachment.path else None
        if entry is None or now is None:
            return False
        if entry.get("size") != now["size"] or entry.get("mtime_ns") != now["mtime_ns"]:
            return False
    return True


def is_unchanged(item: RefItem, state: sync_store.SyncedItem | None, work_id: str, fp: str) -> bool:
    """Whether the last sync stored ``item`` as it is now (fingerprint ``fp``), in the
    work that holds it now, from the same files: then nothing is written."""
    return (
        state is not None
        and state.work_id == work_id
        and state.fingerprint == fp
        and files_unchanged(item, state.files)
    )


def holding_work(
    conn: Any, item: RefItem, state: sync_store.SyncedItem | None
) -> tuple[str | None, dict[str, str] | None]:
    """The work that holds the item: the one the last sync stored it in, else one its
    key or identifiers already name, unless that work is another entry's of the same
    manager (two entries claiming one DOI are two works: ``(None, {"alias", "other"})``
    says which). The caller holds the lock."""
    if state is not None and state.work_id and work_store.get_work(conn, state.work_id):
        return state.work_id, None
    for alias in aliases(item):
        found = work_store.find_work_id(conn, [alias])
        if found is None:
            continue
        other = other_entry(conn, found, item)
        if other is None:
            return found, None
        return None, {"alias": alias, "other": other}
    return None, None


def other_entry(conn: Any, work_id: str, item: RefItem) -> str | None:
    """The key of another entry of the item's manager (same source, another key) that a
    work holds, if any: joining it would put two entries' records in one work (a work
    keeps one record per manager), so the item may not join it."""
    for scope, key in sync_store.scopes_of_work(conn, work_id):
        if scope.split(":", 1)[0] == item.source and key != item.key:
            return key
    return None


def entry_of(conn: Any, work_id: str) -> str | None:
    """The key of an entry a work holds, for messages (None: no synced entry)."""
    found = sync_store.scopes_of_work(conn, work_id)
    return found[0][1] if found else None


def new_work_id(conn: Any, item: RefItem) -> str:
    """The id of a new item's work: ``source:KEY``, or with a hash of the item when
    another work already has that id (the caller holds the lock)."""
    base = f"{item.source}:{item.key}"
    if work_store.find_work_id(conn, [base]) is None:
        return base
    digest = hashlib.sha256(f"{item.source}\0{item.key}\0{fingerprint(item)}".encode())
    return f"{base}~{digest.hexdigest()[:8]}"


def gone(
    stored: Mapping[str, sync_store.SyncedItem], seen: Collection[str], failed: Collection[str]
) -> list[sync_store.SyncedItem]:
    """The items the last sync stored that this one did not see, in stored order; an item
    that failed to read is never taken for a deletion."""
    return [state for key, state in stored.items() if key not in seen and key not in failed]
