"""An item's text bounded as the user's own edits are, before anything of it is stored.

A .bib, a .ris or a Zotero database is text someone else wrote: a title of a megabyte, an
author list of a million names, a note the size of a book. The user's own edits are held
to :data:`prioris.provenance.MAX_TEXT` characters a field (an abstract; a title or a name
is far shorter); an imported record is held to the same, each list to
:data:`MAX_ENTRIES` entries, each note to :data:`MAX_NOTE_TEXT` characters and an item
to :data:`MAX_NOTES` notes. What is cut is kept up to the bound and said in the sync's
report (``cut``: which item, which field, how long it was, what was kept), so nothing is
shortened in silence. Pure: a function of one item.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from prioris.provenance import MAX_TEXT
from prioris.refman.items import RefItem, RefNote

MAX_ENTRIES = 10_000
"""Authors, keywords, collections, tags: more than any paper has (the largest author
lists are a few thousand names)."""
MAX_NOTE_TEXT = 1_000_000
"""A note or a highlight's comment: a long essay, not a book."""
MAX_NOTES = 10_000
"""Notes and highlights of one item."""
MAX_KEY = 1_000
"""An item's key becomes an alias and a work id: longer is no key (the item fails)."""


def bounded(item: RefItem) -> tuple[RefItem, list[dict[str, Any]]]:
    """``item`` with every text within its bound, and what was cut
    (``[{"key", "field", "length", "kept", "unit"}]``, in the order met)."""
    cuts: list[dict[str, Any]] = []

    def cut(name: str, value: Any, limit: int = MAX_TEXT) -> Any:
        if isinstance(value, str):
            if len(value) <= limit:
                return value
            cuts.append(_cut(item.key, name, len(value), limit, "characters"))
            return value[:limit]
        if isinstance(value, list | tuple):
            kept = value[:MAX_ENTRIES]
            if len(value) > MAX_ENTRIES:
                cuts.append(_cut(item.key, name, len(value), MAX_ENTRIES, "entries"))
            return type(value)(cut(f"{name}[{i}]", v) for i, v in enumerate(kept))
        if isinstance(value, dict):
            return {k: cut(f"{name}.{k}", v) for k, v in value.items()}
        return value

    record = {name: cut(name, value) for name, value in item.record.items()}
    collections = cut("collections", item.collections)
    tags = cut("tags", item.tags)
    notes = list(item.notes)
    if len(notes) > MAX_NOTES:
        cuts.append(_cut(item.key, "notes", len(notes), MAX_NOTES, "entries"))
        notes = notes[:MAX_NOTES]
    kept_notes = tuple(_note(n, i, cut) for i, n in enumerate(notes))
    changed = dataclasses.replace(
        item,
        record=record,
        collections=collections,
        tags=tags,
        notes=kept_notes,
    )
    return (changed if cuts else item), cuts


def _note(note: RefNote, index: int, cut: Any) -> RefNote:
    text = cut(f"notes[{index}].text", note.text, MAX_NOTE_TEXT)
    comment = cut(f"notes[{index}].comment", note.comment, MAX_NOTE_TEXT)
    if text is note.text and comment is note.comment:
        return note
    return dataclasses.replace(note, text=text, comment=comment)


def _cut(key: str, name: str, length: int, kept: int, unit: str) -> dict[str, Any]:
    return {"key": key, "field": name, "length": length, "kept": kept, "unit": unit}
