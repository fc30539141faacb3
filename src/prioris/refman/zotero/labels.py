"""Zotero's collections and tags: how a user filed and labelled each item.

A collection is read as its path from the top ("Parent / Child"), so a sync can rebuild
the tree; collections in the trash, or under one that is, are left out, and a cycle in the
parent links (a damaged database) makes no path rather than a loop. Tags keep their kind
(manual or automatic). Separate from the item rows: these are the user's labels, stored
by the sync as the library's collections and tags (storage's "labels").
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any

from prioris.refman.zotero.schema import SchemaVersion
from prioris.refman.zotero.values import as_int, as_line, rows


def read_collections(
    conn: sqlite3.Connection, lib: int, schema: SchemaVersion
) -> dict[int, list[str]]:
    """Each item's collection paths ("Parent / Child"), trash and its children left out."""
    found = rows(
        conn,
        "SELECT collectionID, collectionName, parentCollectionID FROM collections "
        "WHERE libraryID = ?",
        lib,
    )
    deleted: set[Any] = set()
    if schema.has_deleted_collections:
        deleted = {r[0] for r in rows(conn, "SELECT collectionID FROM deletedCollections")}
    by_id = {cid: (as_line(name), parent) for cid, name, parent in found}

    def path_of(cid: Any) -> str | None:
        parts: list[str] = []
        seen: set[Any] = set()
        current = cid
        while current is not None:
            if current in seen or current in deleted:
                return None  # a cycle, or in the trash (itself or an ancestor)
            if current not in by_id:
                break  # a parent that is gone: the path starts below it
            seen.add(current)
            name, current_parent = by_id[current]
            parts.append(name or "(unnamed)")
            current = current_parent
        return " / ".join(reversed(parts))

    paths = {cid: path_of(cid) for cid in by_id}
    result: dict[int, list[str]] = defaultdict(list)
    for cid, item_id in rows(
        conn,
        "SELECT ci.collectionID, ci.itemID FROM collectionItems ci "
        "JOIN collections c ON c.collectionID = ci.collectionID WHERE c.libraryID = ?",
        lib,
    ):
        path = paths.get(cid)
        if path:
            result[item_id].append(path)
    return result


def read_tags(conn: sqlite3.Connection, lib: int) -> dict[int, list[tuple[str, int | None]]]:
    """Each item's tags with their ``type`` (0 manual, 1 automatic)."""
    result: dict[int, list[tuple[str, int | None]]] = defaultdict(list)
    for item_id, name, kind in rows(
        conn,
        "SELECT it.itemID, t.name, it.type FROM itemTags it "
        "JOIN tags t ON t.tagID = it.tagID JOIN items i ON i.itemID = it.itemID "
        "WHERE i.libraryID = ?",
        lib,
    ):
        text = as_line(name)
        if text:
            result[item_id].append((text, as_int(kind)))
    return result
