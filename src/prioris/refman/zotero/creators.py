"""Zotero's creators: each item's people in order with their roles, and which roles are
an item type's primary ones.

A creator is a first and last name, or one name (``fieldMode`` 1: an institution), with a
role (author, editor, programmer...). Which roles count as the item's authors depends on
its type (``itemTypeCreatorTypes.primaryField``: a program's programmers, a patent's
inventors), so both are read here, once for the library. Separate from the item rows
because creators are tables of their own, joined per item in the reader.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from prioris.refman.zotero.values import as_int, as_line, as_text, rows


def read_primary_creator_types(conn: sqlite3.Connection) -> dict[int | None, frozenset[str]]:
    """Each item type's primary creator roles (none when the table is missing)."""
    roles: dict[int | None, set[str]] = defaultdict(set)
    try:
        found = rows(
            conn,
            "SELECT ict.itemTypeID, ct.creatorType FROM itemTypeCreatorTypes ict "
            "JOIN creatorTypes ct ON ct.creatorTypeID = ict.creatorTypeID "
            "WHERE ict.primaryField = 1",
        )
    except sqlite3.OperationalError:
        found = []
    for type_id, role in found:
        roles[as_int(type_id)].add(as_text(role))
    return {k: frozenset(v) for k, v in roles.items()}


def read_creators(conn: sqlite3.Connection, lib: int) -> dict[int, list[dict[str, str]]]:
    """Each item's creators in Zotero's order, as ``{"name": ..., "role": ...}`` with
    ``family`` and ``given`` (or ``literal`` for a one-field name) as Zotero keeps them."""
    result: dict[int, list[dict[str, str]]] = defaultdict(list)
    found = rows(
        conn,
        "SELECT ic.itemID, ic.orderIndex, c.firstName, c.lastName, c.fieldMode, "
        "ct.creatorType FROM itemCreators ic JOIN items i ON i.itemID = ic.itemID "
        "JOIN creators c ON c.creatorID = ic.creatorID "
        "LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID "
        "WHERE i.libraryID = ?",
        lib,
    )
    found.sort(key=lambda r: (r[0], as_int(r[1]) or 0))
    for item_id, _order, first, last, mode, role in found:
        first, last = as_line(first), as_line(last)
        single = as_int(mode) == 1
        name = last if single else f"{first} {last}".strip()
        if name:
            creator = {"name": name, "role": as_text(role) or "contributor"}
            # the name as Zotero splits it, for citations (a double surname stays whole)
            creator.update({"literal": name} if single or not last else {"family": last})
            if first and not single and last:
                creator["given"] = first
            result[item_id].append(creator)
    return result
