"""Zotero's item rows: every item of the library, the trash, feed items, and each item's
fields.

Items, notes, attachments and annotations are all rows of ``items``; which are regular
(:data:`NOT_REGULAR` says which are not), which are in the trash (``deletedItems``) and
which are feed items decides what the reader builds. The fields are read once for the
whole library, by field name and by base-field name (Zotero's own mappings:
``proceedingsTitle`` and ``bookTitle`` are ``publicationTitle``). Separate from the other
table readers because every one of them looks items up in what this one returns.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any

from prioris.refman.zotero.schema import SchemaVersion
from prioris.refman.zotero.values import as_int, as_line, as_text, rows

NOT_REGULAR = frozenset(("note", "attachment", "annotation"))

ItemRow = tuple[str, Any, str, str, str, str, int | None]
"""An item's key, version, dateAdded, dateModified, clientDateModified, type name and
type id (the reader and the table readers index it: ``[0]`` the key, ``[5]`` the type)."""


def read_items(conn: sqlite3.Connection, lib: int) -> dict[int, ItemRow]:
    """Every item of library ``lib`` by ``itemID``, regular or not."""
    items: dict[int, ItemRow] = {}
    for item_id, key, version, added, modified, cmodified, type_name, type_id in rows(
        conn,
        "SELECT i.itemID, i.key, i.version, i.dateAdded, i.dateModified, "
        "i.clientDateModified, t.typeName, i.itemTypeID FROM items i "
        "LEFT JOIN itemTypesCombined t ON t.itemTypeID = i.itemTypeID "
        "WHERE i.libraryID = ?",
        lib,
    ):
        items[item_id] = (
            as_text(key),
            version,
            as_text(added),
            as_text(modified),
            as_text(cmodified),
            as_text(type_name),
            as_int(type_id),
        )
    return items


def read_trash(conn: sqlite3.Connection) -> set[Any]:
    """The ``itemID`` of every item in Zotero's trash."""
    return {row[0] for row in rows(conn, "SELECT itemID FROM deletedItems")}


def read_feed_items(conn: sqlite3.Connection, schema: SchemaVersion) -> set[Any]:
    """The ``itemID`` of every feed item (empty for a schema without ``feedItems``)."""
    feed: set[Any] = set()
    if schema.has_feed_items:  # feeds are libraries of their own; this is a guard
        feed = {row[0] for row in rows(conn, "SELECT itemID FROM feedItems")}
    return feed


def read_fields(conn: sqlite3.Connection, lib: int) -> dict[int, dict[str, str]]:
    """Each item's fields by name, and by base-field name where Zotero maps one."""
    result: dict[int, dict[str, str]] = defaultdict(dict)
    for item_id, name, base, value in rows(
        conn,
        "SELECT d.itemID, f.fieldName, bf.fieldName, v.value FROM itemData d "
        "JOIN items i ON i.itemID = d.itemID "
        "JOIN fieldsCombined f ON f.fieldID = d.fieldID "
        "JOIN itemDataValues v ON v.valueID = d.valueID "
        "LEFT JOIN baseFieldMappingsCombined b "
        "  ON b.itemTypeID = i.itemTypeID AND b.fieldID = d.fieldID "
        "LEFT JOIN fieldsCombined bf ON bf.fieldID = b.baseFieldID "
        "WHERE i.libraryID = ?",
        lib,
    ):
        keep = name in ("abstractNote", "extra")
        text = as_text(value) if keep else as_line(value)
        if not text:
            continue
        fields = result[item_id]
        fields[as_text(name)] = text
        if base:
            fields.setdefault(as_text(base), text)
    return result
