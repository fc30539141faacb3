"""Zotero's user library as :class:`~prioris.refman.items.RefItem` values.

:func:`read_library` takes a snapshot of ``zotero.sqlite`` (:mod:`.snapshot`), checks its
schema (:mod:`.schema`) and reads the library in one pass of set-based queries (one query
per table, never one per item, so 1,000 items read in a fraction of a second), then builds
one RefItem per *regular* item: not a note, attachment or annotation, not in the trash
(``deletedItems``), not a feed item, in the user library (group libraries and feeds are
reported in :attr:`ZoteroLibrary.other_libraries`, not read).

What each item carries (the form of :mod:`prioris.refman.items`):

- ``record``: Zotero's fields under Prioris's names, through Zotero's own base-field
  mappings (``proceedingsTitle``, ``bookTitle``, ``websiteTitle``... are all the base field
  ``publicationTitle``, hence ``venue``; ``university``, ``institution``, ``company`` are
  ``publisher``). ``date`` is Zotero's multipart ``"2017-05-00 May 2017"``: its sortable
  part gives ``year`` and ``published`` (``2017-05``). The DOI comes from the DOI field,
  else a ``DOI: ...`` line in Extra (Zotero keeps it there for books and software), else
  the URL; text that is no DOI is left out. arXiv ids come from ``archiveID``, the URL,
  Extra or an arXiv DOI; PMID/PMCID from Extra lines. ``creators`` keeps every creator in
  order with its role; ``authors`` are the item type's primary creators (authors,
  programmers, inventors...), else every creator.
- ``attachments``: the item's child attachments. Stored files (link modes 0 and 1,
  ``storage:name.pdf``) live in ``<data_dir>/storage/<attachment key>/``; linked files
  (mode 2) have an absolute path or ``attachments:rel/path``, relative to Zotero's
  *linked attachment base directory*: a preference of the Zotero profile
  (``extensions.zotero.baseAttachmentPath`` in ``prefs.js``), not of the database, so it is
  the ``base_dir`` argument. Linked URLs (mode 3) have no file. A file that is absent, a Git
  LFS pointer in place of the file, or a path that would leave its folder has ``path``
  None and says why in ``missing``; the item is still read.
- ``notes``: child notes (HTML turned to text) and the PDF annotations made on the item's
  attachments (highlight, underline, comment, image, ink, text; with colour, page label
  and the 1-based page from the annotation's position), in Zotero's reading order.
- ``collections``: the path of every collection holding the item, parents first, joined by
  " / "; collections in the trash (``deletedCollections``, or under one that is) are left
  out. ``tags``: manual and automatic tags alike (``extra["automatic_tags"]`` names the
  automatic ones).
- ``version``: Zotero's ``version`` and ``dateModified``, plus a digest of everything read
  for the item (children, collections, tags, files' sizes and times): a new note, an
  annotation, a move to another collection or a file that appeared changes it even
  though Zotero does not touch the parent item for them.

Items that fail to build come back as :class:`~prioris.refman.items.RefError` with their
key; the others are unaffected. Standalone attachments (a PDF with no parent item) are not
regular items, so they are not items here: they are listed in
:attr:`ZoteroLibrary.standalone` for a sync to ingest as plain files.

The tables are read by modules of their own, each one query per table for the whole
library: :mod:`.libraries` (which library), :mod:`.item_rows` (items, trash, fields),
:mod:`.creators`, :mod:`.labels` (collections and tags), :mod:`.attachments` (files on
disk), :mod:`.notes` (notes and annotations), with :mod:`.values` cleaning every value
and :mod:`.record` naming an item's fields as a record. This module assembles them into
items. It re-exports ``ITEM_TYPES``, ``build_record`` and ``parse_date`` (from
:mod:`.record`) and ``OtherLibrary`` (from :mod:`.libraries`), which callers import here.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prioris.errors import ParseError, PriorisError
from prioris.refman.items import RefAttachment, RefError, RefItem, RefNote
from prioris.refman.zotero.attachments import read_attachments
from prioris.refman.zotero.creators import read_creators, read_primary_creator_types
from prioris.refman.zotero.item_rows import (
    NOT_REGULAR,
    read_feed_items,
    read_fields,
    read_items,
    read_trash,
)
from prioris.refman.zotero.labels import read_collections, read_tags
from prioris.refman.zotero.libraries import OtherLibrary, choose_library
from prioris.refman.zotero.notes import read_annotations, read_notes
from prioris.refman.zotero.record import ITEM_TYPES, build_record, citation_key, parse_date
from prioris.refman.zotero.schema import SchemaVersion, check_schema
from prioris.refman.zotero.snapshot import ZoteroSnapshot
from prioris.refman.zotero.values import as_text

SOURCE = "zotero"


@dataclass(frozen=True)
class ZoteroLibrary:
    """What :func:`read_library` found in one Zotero data directory."""

    data_dir: Path
    schema: SchemaVersion
    library_id: int
    items: tuple[RefItem, ...]
    errors: tuple[RefError, ...] = ()
    standalone: tuple[RefAttachment, ...] = ()
    """Top-level attachments (a file with no parent item), not in the trash."""
    trashed: tuple[str, ...] = ()
    """Keys of the regular items in Zotero's trash (not in :attr:`items`)."""
    other_libraries: tuple[OtherLibrary, ...] = ()
    skipped: dict[str, int] = field(default_factory=dict)
    """Counts of what was not read and why: standalone notes, annotations on standalone
    attachments, embedded images..."""


# -- the read --------------------------------------------------------------------------
def read_library(
    data_dir: Path | str,
    *,
    base_dir: Path | str | None = None,
    library_id: int | None = None,
    snapshot: Callable[[Path], ZoteroSnapshot] | None = None,
) -> ZoteroLibrary:
    """Read Zotero's data directory ``data_dir`` (the folder holding ``zotero.sqlite`` and
    ``storage/``) without writing any of its files.

    ``base_dir`` is Zotero's linked-attachment base directory (for ``attachments:``
    paths); ``library_id`` picks a library other than the user library (a group's).
    ``snapshot`` builds the :class:`ZoteroSnapshot` (tests inject retries and sleeps).
    Raises ConfigurationError for a folder without a Zotero database, a file that is not
    one, or a schema version outside the supported range; ParseError when no consistent
    copy could be taken.
    """
    data_dir = Path(data_dir)
    taker = snapshot or ZoteroSnapshot
    with taker(data_dir) as conn:
        root = data_dir if data_dir.is_dir() else data_dir.parent
        return read_connection(
            conn,
            root,
            base_dir=Path(base_dir) if base_dir is not None else None,
            library_id=library_id,
            name=str(root / "zotero.sqlite"),
        )


def read_connection(
    conn: sqlite3.Connection,
    data_dir: Path,
    *,
    base_dir: Path | None = None,
    library_id: int | None = None,
    name: str = "zotero.sqlite",
) -> ZoteroLibrary:
    """The library from an open connection on a Zotero database (a snapshot's copy).

    Separate from :func:`read_library` so a caller holding a snapshot can read it more
    than once; database errors while reading become ParseError.
    """
    schema = check_schema(conn, name)
    try:
        return _Reader(conn, data_dir, base_dir, schema, name).read(library_id)
    except sqlite3.DatabaseError as exc:
        raise ParseError(f"{name}: reading the library failed: {exc}") from exc


class _Reader:
    """One read of one database: the tables read, then each regular item assembled."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        data_dir: Path,
        base_dir: Path | None,
        schema: SchemaVersion,
        name: str,
    ) -> None:
        self.conn = conn
        self.data_dir = data_dir
        self.base_dir = base_dir
        self.schema = schema
        self.name = name

    # -- the read ----------------------------------------------------------------------
    def read(self, wanted: int | None) -> ZoteroLibrary:
        conn = self.conn
        lib, others = choose_library(conn, self.name, wanted)
        self.library_id = lib
        items = read_items(conn, lib)
        trash = read_trash(conn)
        feed = read_feed_items(conn, self.schema)
        fields = read_fields(conn, lib)
        self._primary_roles = read_primary_creator_types(conn)
        creators = read_creators(conn, lib)
        collections = read_collections(conn, lib, self.schema)
        tags = read_tags(conn, lib)
        attachments, standalone, skipped, attachment_parent = read_attachments(
            conn, lib, items, trash, fields, self.data_dir, self.base_dir
        )
        notes = read_notes(conn, lib, items, trash, skipped)
        read_annotations(conn, lib, items, trash, attachment_parent, notes, skipped)

        built: list[RefItem] = []
        errors: list[RefError] = []
        trashed: list[str] = []
        for item_id, (key, version, added, modified, _cmod, type_name, type_id) in items.items():
            if type_name in NOT_REGULAR or item_id in feed:
                continue
            if item_id in trash:
                trashed.append(key)
                continue
            try:
                built.append(
                    self._item(
                        item_id,
                        key,
                        version,
                        added,
                        modified,
                        type_name,
                        fields.get(item_id, {}),
                        creators.get(item_id, []),
                        collections.get(item_id, []),
                        tags.get(item_id, []),
                        attachments.get(item_id, []),
                        notes.get(item_id, []),
                        self._primary_roles.get(type_id, frozenset()),
                    )
                )
            except (ValueError, TypeError, KeyError, OverflowError, PriorisError) as exc:
                errors.append(RefError(key or f"item {item_id}", f"{type(exc).__name__}: {exc}"))
        built.sort(key=lambda item: item.key)
        return ZoteroLibrary(
            data_dir=self.data_dir,
            schema=self.schema,
            library_id=lib,
            items=tuple(built),
            errors=tuple(errors),
            standalone=tuple(sorted(standalone, key=lambda a: a.key)),
            trashed=tuple(sorted(trashed)),
            other_libraries=others,
            skipped={k: v for k, v in skipped.items() if v},
        )

    # -- one item ----------------------------------------------------------------------
    def _item(
        self,
        item_id: int,
        key: str,
        version: Any,
        added: str,
        modified: str,
        type_name: str,
        fields: Mapping[str, str],
        creators: list[dict[str, str]],
        collections: list[str],
        tags: list[tuple[str, int | None]],
        attachments: list[tuple[int, RefAttachment]],
        notes: list[tuple[str, RefNote]],
        primary_roles: frozenset[str],
    ) -> RefItem:
        if not key:
            raise ValueError("the item has no key")
        record = build_record(type_name, fields, creators, primary_roles)
        # child notes first (by key), then annotations in reading order (sortIndex)
        ordered = sorted(notes, key=lambda pair: (pair[0] != "", pair[0], pair[1].key))
        files = tuple(a for _, a in attachments)
        names = sorted({name for name, _ in tags})
        automatic = sorted({name for name, kind in tags if kind == 1})
        paths = tuple(sorted(set(collections)))
        refs = tuple(n for _, n in ordered)
        digest = _digest(record, paths, names, automatic, files, refs)
        return RefItem(
            source=SOURCE,
            key=key,
            record=record,
            version=f"{as_text(version) or '0'}:{modified}:{digest}",
            collections=paths,
            tags=tuple(names),
            attachments=files,
            notes=refs,
            extra={
                "library_id": self.library_id,
                "item_id": item_id,
                "item_type": type_name,
                "date_added": added,
                "date_modified": modified,
                "automatic_tags": automatic,
                **citation_key(fields),
            },
        )


def _digest(
    record: Mapping[str, Any],
    collections: Iterable[str],
    tags: Iterable[str],
    automatic: Iterable[str],
    attachments: Iterable[RefAttachment],
    notes: Iterable[RefNote],
) -> str:
    """A short hash of everything read for an item, files by size and modification time."""
    files = []
    for a in attachments:
        stat: tuple[int, int] | None = None
        if a.path is not None:
            try:
                st = a.path.stat()
                stat = (st.st_size, st.st_mtime_ns)
            except OSError:
                stat = None
        files.append([a.key, a.content_type, str(a.path or ""), a.missing, a.title, stat])
    payload = json.dumps(
        [
            record,
            list(collections),
            list(tags),
            list(automatic),
            files,
            [[n.kind, n.text, n.key, n.comment, n.color, n.page_label, n.page] for n in notes],
        ],
        sort_keys=True,
        ensure_ascii=True,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:16]


__all__ = [
    "ITEM_TYPES",
    "OtherLibrary",
    "ZoteroLibrary",
    "build_record",
    "parse_date",
    "read_connection",
    "read_library",
]
