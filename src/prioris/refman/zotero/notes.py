"""Zotero's notes and PDF annotations: what a user wrote about each item.

Child notes are HTML (turned to text); annotations (highlight, underline, comment, image,
ink, text) are made on an item's attachments and kept with their colour, page label and
the 1-based page from their position, in Zotero's reading order (``sortIndex``). Both
become the parent item's :class:`~prioris.refman.items.RefNote` values. Separate from the
item rows and attachments: notes are the user's own text, read from their own tables, and
annotations reach their item only through the attachment they were made on.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from prioris.refman.html_text import html_to_text
from prioris.refman.items import RefNote
from prioris.refman.zotero.item_rows import NOT_REGULAR
from prioris.refman.zotero.values import as_int, as_line, as_text, rows

ANNOTATION_KINDS = {
    1: "highlight",
    2: "comment",
    3: "image",
    4: "ink",
    5: "underline",
    6: "text",
}
"""``itemAnnotations.type`` (Zotero.Annotations.ANNOTATION_TYPE_*): a note annotation (2)
has no highlighted text, only its comment, hence ``comment``."""


def read_notes(
    conn: sqlite3.Connection,
    lib: int,
    items: Mapping[int, tuple[Any, ...]],
    trash: set[Any],
    skipped: dict[str, int],
) -> dict[int, list[tuple[str, RefNote]]]:
    """Each regular item's child notes as ``("", note)`` (an empty sort key: notes come
    before annotations); standalone notes are counted in ``skipped``."""
    result: dict[int, list[tuple[str, RefNote]]] = defaultdict(list)
    for item_id, parent, note in rows(
        conn,
        "SELECT n.itemID, n.parentItemID, n.note FROM itemNotes n "
        "JOIN items i ON i.itemID = n.itemID WHERE i.libraryID = ?",
        lib,
    ):
        own = items.get(item_id)
        if own is None or own[5] != "note" or item_id in trash:
            continue
        if parent is None or parent not in items or items[parent][5] in NOT_REGULAR:
            skipped["standalone notes"] += 1
            continue
        text = html_to_text(as_text(note))
        if text:
            result[parent].append(("", RefNote("note", text, key=own[0])))
    return result


def read_annotations(
    conn: sqlite3.Connection,
    lib: int,
    items: Mapping[int, tuple[Any, ...]],
    trash: set[Any],
    attachment_parent: Mapping[Any, Any],
    notes: dict[int, list[tuple[str, RefNote]]],
    skipped: dict[str, int],
) -> None:
    """The annotations made on each regular item's attachments, added to ``notes`` under
    the item with their ``sortIndex`` (``attachment_parent``: each attachment's item, as
    :func:`~prioris.refman.zotero.attachments.read_attachments` found it)."""
    found = rows(
        conn,
        "SELECT an.itemID, an.parentItemID, an.type, an.text, an.comment, an.color, "
        "an.pageLabel, an.sortIndex, an.position FROM itemAnnotations an "
        "JOIN items i ON i.itemID = an.itemID WHERE i.libraryID = ?",
        lib,
    )
    for item_id, parent, kind, text, comment, color, label, sort, position in found:
        if item_id in trash or parent in trash:
            continue
        owner = attachment_parent.get(parent)
        if owner is None:
            skipped["annotations outside a regular item"] += 1
            continue
        comment_text = as_text(comment)
        if "<" in comment_text:
            comment_text = html_to_text(comment_text)
        note = RefNote(
            kind=ANNOTATION_KINDS.get(as_int(kind) or 0, "annotation"),
            text=as_text(text),
            key=as_text(items.get(item_id, ("",))[0]),
            comment=comment_text,
            color=as_line(color),
            page_label=as_line(label),
            page=_page(position),
            attachment_key=as_text(items.get(parent, ("",))[0]),
        )
        notes[owner].append((as_text(sort), note))


def _page(position: Any) -> int | None:
    """The 1-based page of an annotation from its position JSON (``pageIndex`` is 0-based)."""
    try:
        data = json.loads(as_text(position))
    except (ValueError, RecursionError):
        return None
    index = data.get("pageIndex") if isinstance(data, dict) else None
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 10**7:
        return None
    return index + 1
