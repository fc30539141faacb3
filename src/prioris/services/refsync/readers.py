"""What the readers give, made ready for a sync: a Zotero library's items (standalone PDFs
included) and its summary for the report, a BibTeX or RIS file's format, items and errors.

The readers (:mod:`prioris.refman`) only read; these are the few choices the library
makes about their output before :class:`~prioris.services.refsync.sync.RefSync` stores it
(a standalone PDF is an item of its own, a file's format is named from its content first),
kept apart from the sync itself, which is the same whatever the items came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prioris.refman.items import RefError, RefItem
from prioris.refman.zotero import ZoteroLibrary
from prioris.services.refsync.items import is_pdf


def zotero_items(read: ZoteroLibrary) -> list[RefItem]:
    """A Zotero library's regular items, and each standalone PDF (a file with no parent
    item) as an item of its own with no record: the PDF's printed header names it."""
    items = list(read.items)
    for attachment in read.standalone:
        if attachment.path is None and not attachment.missing:
            continue  # a link to a web page, no file
        if not is_pdf(attachment):
            continue
        items.append(
            RefItem(
                source="zotero",
                key=attachment.key,
                record={},
                version="standalone",
                attachments=(attachment,),
            )
        )
    return items


def zotero_summary(read: ZoteroLibrary) -> dict[str, Any]:
    """What the sync's report says of the Zotero library itself: its schema, what was in
    the trash, and what was not read (group libraries, feeds, standalone notes)."""
    return {
        "schema": {
            "userdata": read.schema.userdata,
            "system": read.schema.system,
            "global_schema": read.schema.global_schema,
        },
        "items": len(read.items),
        "standalone_files": len(read.standalone),
        "trashed": len(read.trashed),
        "other_libraries": [
            {"id": o.library_id, "type": o.type, "name": o.name, "items": o.items}
            for o in read.other_libraries
        ],
        "not_read": dict(read.skipped),
    }


def read_reference_file(path: Path) -> tuple[str, list[RefItem], list[RefError]]:
    """``(format, items, errors)`` of a BibTeX or RIS file (the format from its extension,
    else its content)."""
    from prioris.refman.references import BIBTEX_SUFFIXES, RIS_SUFFIXES, read_references

    items, errors = read_references(path)
    suffix = path.suffix.lower()
    if items:
        kind = items[0].source
    elif suffix in BIBTEX_SUFFIXES or suffix in RIS_SUFFIXES:
        kind = "bibtex" if suffix in BIBTEX_SUFFIXES else "ris"
    else:
        kind = "bibtex"
    return kind, items, errors
