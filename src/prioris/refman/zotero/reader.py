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
"""

from __future__ import annotations

import calendar
import contextlib
import hashlib
import json
import mimetypes
import re
import sqlite3
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import unquote

from prioris.errors import ConfigurationError, InvalidRequestError, ParseError, PriorisError
from prioris.identifiers import (
    arxiv_id_from_doi,
    find_identifiers_in_text,
    normalise_arxiv,
    normalise_doi,
)
from prioris.provenance import MAX_YEAR, MIN_YEAR, alias_of, alias_value
from prioris.refman.html_text import html_to_text
from prioris.refman.items import RefAttachment, RefError, RefItem, RefNote
from prioris.refman.zotero.schema import SchemaVersion, check_schema
from prioris.refman.zotero.snapshot import ZoteroSnapshot
from prioris.strings import without_surrogates
from prioris.text_clean import remove_controls

SOURCE = "zotero"
NOT_REGULAR = frozenset(("note", "attachment", "annotation"))

ITEM_TYPES: dict[str, str] = {
    "artwork": "graphic",
    "audioRecording": "song",
    "bill": "bill",
    "blogPost": "post-weblog",
    "book": "book",
    "bookSection": "chapter",
    "case": "legal_case",
    "computerProgram": "software",
    "conferencePaper": "paper-conference",
    "dataset": "dataset",
    "dictionaryEntry": "entry-dictionary",
    "document": "document",
    "email": "personal_communication",
    "encyclopediaArticle": "entry-encyclopedia",
    "film": "motion_picture",
    "forumPost": "post",
    "hearing": "hearing",
    "instantMessage": "personal_communication",
    "interview": "interview",
    "journalArticle": "article-journal",
    "letter": "personal_communication",
    "magazineArticle": "article-magazine",
    "manuscript": "manuscript",
    "map": "map",
    "newspaperArticle": "article-newspaper",
    "patent": "patent",
    "podcast": "broadcast",
    "preprint": "preprint",
    "presentation": "speech",
    "radioBroadcast": "broadcast",
    "report": "report",
    "standard": "standard",
    "statute": "legislation",
    "thesis": "thesis",
    "tvBroadcast": "broadcast",
    "videoRecording": "motion_picture",
    "webpage": "webpage",
}
"""Zotero item type -> CSL type, as Zotero's schema.json ``csl.types`` maps them, except
``preprint``: CSL calls it ``article``, which Prioris's exports read as a journal article,
so it stays ``preprint`` (the kind every export knows). Unknown types are ``document``."""

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

LINK_IMPORTED_FILE, LINK_IMPORTED_URL, LINK_LINKED_FILE, LINK_LINKED_URL = 0, 1, 2, 3
LINK_EMBEDDED_IMAGE = 4
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_KEY = re.compile(r"^[A-Za-z0-9]{1,32}$")
_MULTIPART = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:\s|$)")
_YEAR = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
_NEEDS_CLEANING = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b\u2028\u2029\u2060\ufeff\ud800-\udfff]"
)
"""What :func:`~prioris.text_clean.remove_controls` or ``without_surrogates`` would change."""
_URL_DOI = re.compile(
    r"(?:^https?://(?:dx\.)?doi\.org/|/doi/(?:abs/|full/|pdf/|epdf/)?)(10\.\d{4,9}/[^\s?#]+)",
    re.IGNORECASE,
)
"""A DOI in a URL, only where the URL says it is one (doi.org, a publisher's /doi/ path):
a DOI-looking path elsewhere could join the item with the wrong work."""
_EXTRA_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z -]*?)\s*:\s*(.+?)\s*$")


@dataclass(frozen=True)
class OtherLibrary:
    """A library of the database that was not read (a group library or a feed)."""

    library_id: int
    type: str
    name: str
    items: int


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


# -- values ----------------------------------------------------------------------------
def _text(value: Any) -> str:
    """A database value as clean text: any SQLite type, surrogates and controls removed."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    elif not isinstance(value, str):
        value = str(value)
    if _NEEDS_CLEANING.search(value):  # most values are clean: skip the four substitutions
        value = remove_controls(without_surrogates(value))
    return value.strip()


def _line(value: Any) -> str:
    """A one-line field (title, venue, a name): runs of white space become one space."""
    return " ".join(_text(value).split())


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def parse_date(value: str) -> tuple[int | None, str | None]:
    """``year`` and ISO ``published`` from Zotero's stored date.

    Zotero stores ``date`` as "YYYY-MM-DD original text" with zeros for unknown parts
    (``"2017-00-00 2017"``, ``"2016-12-00 12/2016"``); a date it could not parse is
    "0000-00-00 text". A value without that form (written by another tool) gives its first
    plausible four-digit year only.
    """
    value = _text(value)
    match = _MULTIPART.match(value)
    if not match:
        found = _YEAR.search(value)
        year = int(found.group(1)) if found else None
        if year is None or not MIN_YEAR <= year <= MAX_YEAR:
            return None, None
        return year, f"{year:04d}"
    year, month, day = (int(g) for g in match.groups())
    if not MIN_YEAR <= year <= MAX_YEAR:
        rest = value[match.end() :]
        return parse_date(rest) if rest.strip() and _YEAR.search(rest) else (None, None)
    published = f"{year:04d}"
    if 1 <= month <= 12:
        published += f"-{month:02d}"
        if 1 <= day <= calendar.monthrange(year, month)[1]:
            published += f"-{day:02d}"
    return year, published


def _extra_fields(extra: str) -> dict[str, str]:
    """``Key: value`` lines of Extra, keys lower-cased (the first of each key wins)."""
    found: dict[str, str] = {}
    for line in extra.splitlines():
        match = _EXTRA_LINE.match(line)
        if match:
            found.setdefault(match.group(1).strip().lower(), match.group(2))
    return found


def _doi(value: str) -> str | None:
    value = value.strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        if value.lower().startswith(prefix):
            value = value[len(prefix) :]
            break
    return normalise_doi(value)


def _checked_id(name: str, value: str) -> str | None:
    """A PMID/PMCID as the record field holds it, or None when it is no such id."""
    try:
        return alias_value(name, alias_of(name, value))
    except PriorisError:
        return None


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

    def _rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    # -- libraries ---------------------------------------------------------------------
    def _libraries(self, wanted: int | None) -> tuple[int, tuple[OtherLibrary, ...]]:
        rows = self._rows("SELECT libraryID, type FROM libraries")
        libraries = [(_int(lib), _text(kind)) for lib, kind in rows]
        counts = {
            _int(lib): _int(n) or 0
            for lib, n in self._rows("SELECT libraryID, count(*) FROM items GROUP BY libraryID")
        }
        names: dict[int | None, str] = {}
        for table, column in (("groups", "name"), ("feeds", "name")):
            with contextlib.suppress(sqlite3.OperationalError):  # a table it lacks
                names.update(
                    (_int(lib), _text(n))
                    for lib, n in self._rows(f"SELECT libraryID, {column} FROM {table}")
                )
        if wanted is None:
            users = [lib for lib, kind in libraries if kind == "user" and lib is not None]
            if not users:
                raise ConfigurationError(f"{self.name} has no user library")
            chosen = min(users)
        elif any(lib == wanted for lib, _ in libraries):
            chosen = wanted
        else:
            raise InvalidRequestError(
                f"{self.name} has no library {wanted}; its libraries: "
                + ", ".join(f"{lib} ({kind})" for lib, kind in libraries)
            )
        others = tuple(
            OtherLibrary(lib, kind, names.get(lib, ""), counts.get(lib, 0))
            for lib, kind in libraries
            if lib is not None and lib != chosen
        )
        return chosen, others

    # -- the read ----------------------------------------------------------------------
    def read(self, wanted: int | None) -> ZoteroLibrary:
        lib, others = self._libraries(wanted)
        self.library_id = lib
        items: dict[int, tuple[str, Any, str, str, str, str, int | None]] = {}
        for item_id, key, version, added, modified, cmodified, type_name, type_id in self._rows(
            "SELECT i.itemID, i.key, i.version, i.dateAdded, i.dateModified, "
            "i.clientDateModified, t.typeName, i.itemTypeID FROM items i "
            "LEFT JOIN itemTypesCombined t ON t.itemTypeID = i.itemTypeID "
            "WHERE i.libraryID = ?",
            lib,
        ):
            items[item_id] = (
                _text(key),
                version,
                _text(added),
                _text(modified),
                _text(cmodified),
                _text(type_name),
                _int(type_id),
            )
        trash = {row[0] for row in self._rows("SELECT itemID FROM deletedItems")}
        feed: set[Any] = set()
        if self.schema.has_feed_items:  # feeds are libraries of their own; this is a guard
            feed = {row[0] for row in self._rows("SELECT itemID FROM feedItems")}
        fields = self._fields(lib)
        self._primary_roles = self._primary_creator_types()
        creators = self._creators(lib)
        collections = self._collections(lib)
        tags = self._tags(lib)
        attachments, standalone, skipped = self._attachments(lib, items, trash, fields)
        notes = self._notes(lib, items, trash, skipped)
        self._annotations(lib, items, trash, attachments, notes, skipped)

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

    # -- tables ------------------------------------------------------------------------
    def _fields(self, lib: int) -> dict[int, dict[str, str]]:
        """Each item's fields by name, and by base-field name where Zotero maps one."""
        result: dict[int, dict[str, str]] = defaultdict(dict)
        for item_id, name, base, value in self._rows(
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
            text = _text(value) if keep else _line(value)
            if not text:
                continue
            fields = result[item_id]
            fields[_text(name)] = text
            if base:
                fields.setdefault(_text(base), text)
        return result

    def _primary_creator_types(self) -> dict[int | None, frozenset[str]]:
        roles: dict[int | None, set[str]] = defaultdict(set)
        try:
            rows = self._rows(
                "SELECT ict.itemTypeID, ct.creatorType FROM itemTypeCreatorTypes ict "
                "JOIN creatorTypes ct ON ct.creatorTypeID = ict.creatorTypeID "
                "WHERE ict.primaryField = 1"
            )
        except sqlite3.OperationalError:
            rows = []
        for type_id, role in rows:
            roles[_int(type_id)].add(_text(role))
        return {k: frozenset(v) for k, v in roles.items()}

    def _creators(self, lib: int) -> dict[int, list[dict[str, str]]]:
        result: dict[int, list[dict[str, str]]] = defaultdict(list)
        rows = self._rows(
            "SELECT ic.itemID, ic.orderIndex, c.firstName, c.lastName, c.fieldMode, "
            "ct.creatorType FROM itemCreators ic JOIN items i ON i.itemID = ic.itemID "
            "JOIN creators c ON c.creatorID = ic.creatorID "
            "LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID "
            "WHERE i.libraryID = ?",
            lib,
        )
        rows.sort(key=lambda r: (r[0], _int(r[1]) or 0))
        for item_id, _order, first, last, mode, role in rows:
            first, last = _line(first), _line(last)
            name = last if _int(mode) == 1 else f"{first} {last}".strip()
            if name:
                result[item_id].append({"name": name, "role": _text(role) or "contributor"})
        return result

    def _collections(self, lib: int) -> dict[int, list[str]]:
        """Each item's collection paths ("Parent / Child"), trash and its children left out."""
        rows = self._rows(
            "SELECT collectionID, collectionName, parentCollectionID FROM collections "
            "WHERE libraryID = ?",
            lib,
        )
        deleted: set[Any] = set()
        if self.schema.has_deleted_collections:
            deleted = {r[0] for r in self._rows("SELECT collectionID FROM deletedCollections")}
        by_id = {cid: (_line(name), parent) for cid, name, parent in rows}

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
        for cid, item_id in self._rows(
            "SELECT ci.collectionID, ci.itemID FROM collectionItems ci "
            "JOIN collections c ON c.collectionID = ci.collectionID WHERE c.libraryID = ?",
            lib,
        ):
            path = paths.get(cid)
            if path:
                result[item_id].append(path)
        return result

    def _tags(self, lib: int) -> dict[int, list[tuple[str, int | None]]]:
        result: dict[int, list[tuple[str, int | None]]] = defaultdict(list)
        for item_id, name, kind in self._rows(
            "SELECT it.itemID, t.name, it.type FROM itemTags it "
            "JOIN tags t ON t.tagID = it.tagID JOIN items i ON i.itemID = it.itemID "
            "WHERE i.libraryID = ?",
            lib,
        ):
            text = _line(name)
            if text:
                result[item_id].append((text, _int(kind)))
        return result

    def _attachments(
        self,
        lib: int,
        items: Mapping[int, tuple[Any, ...]],
        trash: set[Any],
        fields: Mapping[int, Mapping[str, str]],
    ) -> tuple[dict[int, list[tuple[int, RefAttachment]]], list[RefAttachment], dict[str, int]]:
        by_parent: dict[int, list[tuple[int, RefAttachment]]] = defaultdict(list)
        standalone: list[RefAttachment] = []
        skipped: dict[str, int] = defaultdict(int)
        self._attachment_parent: dict[Any, Any] = {}
        rows = self._rows(
            "SELECT a.itemID, a.parentItemID, a.linkMode, a.contentType, a.path "
            "FROM itemAttachments a JOIN items i ON i.itemID = a.itemID WHERE i.libraryID = ?",
            lib,
        )
        for item_id, parent, mode, content_type, path in rows:
            if item_id in trash or (parent is not None and parent in trash):
                continue
            link_mode = _int(mode)
            if link_mode == LINK_EMBEDDED_IMAGE:
                skipped["embedded images"] += 1
                continue
            key = _text(items.get(item_id, ("",))[0])
            item_fields = fields.get(item_id, {})
            attachment = self._attachment(key, link_mode, _text(content_type), path, item_fields)
            if parent is None:
                standalone.append(attachment)
                self._attachment_parent[item_id] = None
            elif parent in items and items[parent][5] not in NOT_REGULAR:
                by_parent[parent].append((item_id, attachment))
                self._attachment_parent[item_id] = parent
            else:
                skipped["attachments of a note or a missing item"] += 1
        for children in by_parent.values():
            children.sort(key=lambda pair: pair[1].key)
        return by_parent, standalone, skipped

    def _attachment(
        self,
        key: str,
        link_mode: int | None,
        content_type: str,
        raw_path: Any,
        item_fields: Mapping[str, str],
    ) -> RefAttachment:
        title = item_fields.get("title", "")
        path_text = _text(raw_path)
        if not content_type and path_text:
            content_type = mimetypes.guess_type(path_text)[0] or ""

        def gone(why: str) -> RefAttachment:
            return RefAttachment(key, content_type, None, why, title)

        if link_mode == LINK_LINKED_URL:
            url = item_fields.get("url", "")
            return gone(f"linked URL, no file{': ' + url if url else ''}")
        if link_mode in (LINK_IMPORTED_FILE, LINK_IMPORTED_URL):
            if not path_text.startswith("storage:") or len(path_text) <= len("storage:"):
                return gone("no stored file recorded for this attachment")
            if not _KEY.match(key):
                return gone(f"attachment key {key!r} is not a Zotero key")
            name = path_text[len("storage:") :]
            folder = self.data_dir / "storage" / key
            return self._file(folder, name, gone, content_type, key, title)
        if link_mode == LINK_LINKED_FILE:
            if path_text.startswith("attachments:"):
                relative = path_text[len("attachments:") :]
                if self.base_dir is None:
                    return gone(
                        f"linked file {relative!r} is relative to Zotero's linked attachment "
                        "base directory, which was not given"
                    )
                return self._file(self.base_dir, relative, gone, content_type, key, title)
            if not path_text:
                return gone("linked file without a path")
            candidate = Path(path_text)
            if not candidate.is_absolute():
                return gone(f"linked file path {path_text!r} is not absolute")
            return self._checked(candidate, gone, content_type, key, title)
        return gone(f"unknown attachment link mode {link_mode!r}")

    def _file(
        self,
        folder: Path,
        relative: str,
        gone: Callable[[str], RefAttachment],
        content_type: str,
        key: str,
        title: str,
    ) -> RefAttachment:
        """``relative`` under ``folder``, refusing any path that would leave it."""
        parts = [p for p in re.split(r"[\\/]", relative) if p not in ("", ".")]
        if (
            not parts
            or ".." in parts
            or PurePosixPath(relative).is_absolute()
            or PureWindowsPath(relative).drive
            or "\x00" in relative
        ):
            return gone(f"unsafe attachment path {relative!r} (it would leave {folder})")
        return self._checked(folder.joinpath(*parts), gone, content_type, key, title)

    @staticmethod
    def _checked(
        path: Path,
        gone: Callable[[str], RefAttachment],
        content_type: str,
        key: str,
        title: str,
    ) -> RefAttachment:
        try:
            found = _existing(path)
            if found is None:
                return gone(f"file not found: {path}")
            with found.open("rb") as handle:
                head = handle.read(len(LFS_POINTER))
        except (OSError, ValueError) as exc:
            return gone(f"cannot read {path}: {exc}")
        if head == LFS_POINTER:
            return gone(f"a Git LFS pointer, not the file: {found}")
        return RefAttachment(key, content_type, found, "", title)

    def _notes(
        self,
        lib: int,
        items: Mapping[int, tuple[Any, ...]],
        trash: set[Any],
        skipped: dict[str, int],
    ) -> dict[int, list[tuple[str, RefNote]]]:
        result: dict[int, list[tuple[str, RefNote]]] = defaultdict(list)
        for item_id, parent, note in self._rows(
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
            text = html_to_text(_text(note))
            if text:
                result[parent].append(("", RefNote("note", text, key=own[0])))
        return result

    def _annotations(
        self,
        lib: int,
        items: Mapping[int, tuple[Any, ...]],
        trash: set[Any],
        attachments: Mapping[int, list[tuple[int, RefAttachment]]],
        notes: dict[int, list[tuple[str, RefNote]]],
        skipped: dict[str, int],
    ) -> None:
        rows = self._rows(
            "SELECT an.itemID, an.parentItemID, an.type, an.text, an.comment, an.color, "
            "an.pageLabel, an.sortIndex, an.position FROM itemAnnotations an "
            "JOIN items i ON i.itemID = an.itemID WHERE i.libraryID = ?",
            lib,
        )
        for item_id, parent, kind, text, comment, color, label, sort, position in rows:
            if item_id in trash or parent in trash:
                continue
            owner = self._attachment_parent.get(parent)
            if owner is None:
                skipped["annotations outside a regular item"] += 1
                continue
            comment_text = _text(comment)
            if "<" in comment_text:
                comment_text = html_to_text(comment_text)
            note = RefNote(
                kind=ANNOTATION_KINDS.get(_int(kind) or 0, "annotation"),
                text=_text(text),
                key=_text(items.get(item_id, ("",))[0]),
                comment=comment_text,
                color=_line(color),
                page_label=_line(label),
                page=_page(position),
                attachment_key=_text(items.get(parent, ("",))[0]),
            )
            notes[owner].append((_text(sort), note))

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
            version=f"{_text(version) or '0'}:{modified}:{digest}",
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
                **_citation_key(fields),
            },
        )


def build_record(
    type_name: str,
    fields: Mapping[str, str],
    creators: list[dict[str, str]],
    primary_roles: frozenset[str] = frozenset(("author",)),
) -> dict[str, Any]:
    """An item's record in the :mod:`prioris.refman.items` form, empty values left out."""
    record: dict[str, Any] = {"type": ITEM_TYPES.get(type_name, "document")}
    title = fields.get("title")
    if title:
        record["title"] = title
    if creators:
        record["creators"] = [dict(c) for c in creators]
        primary = [c["name"] for c in creators if c["role"] in (primary_roles or {"author"})]
        record["authors"] = primary or [c["name"] for c in creators]
    year, published = parse_date(fields.get("date", ""))
    if year is not None:
        record["year"] = year
    if published:
        record["published"] = published
    venue = fields.get("publicationTitle") or fields.get("conferenceName")
    for name, value in (
        ("venue", venue),
        ("volume", fields.get("volume")),
        ("issue", fields.get("issue")),
        ("pages", fields.get("pages")),
        ("publisher", fields.get("publisher")),
        ("abstract", fields.get("abstractNote")),
        ("url", fields.get("url")),
        ("language", fields.get("language")),
        ("extra", fields.get("extra")),
    ):
        if value:
            record[name] = value
    record.update(_identifiers(fields))
    return record


def _identifiers(fields: Mapping[str, str]) -> dict[str, str]:
    """DOI, arXiv id, PMID and PMCID from the fields, Extra and the URL (first found wins)."""
    extra = fields.get("extra", "")
    lines = _extra_fields(extra)
    url = fields.get("url", "")
    found: dict[str, str] = {}
    doi = _doi(fields.get("DOI", "")) or _doi(lines.get("doi", ""))
    if not doi and url:
        match = _URL_DOI.search(url)
        doi = normalise_doi(unquote(match.group(1)).rstrip(".,;")) if match else None
    if doi:
        found["doi"] = doi
    arxiv = None
    for text in (fields.get("archiveID", ""), url, extra):
        arxiv = next((i.value for i in find_identifiers_in_text(text) if i.scheme == "arxiv"), None)
        if arxiv:
            break
    if not arxiv and lines.get("arxiv"):
        arxiv = normalise_arxiv(lines["arxiv"].split()[0])
    if not arxiv and doi:
        arxiv = arxiv_id_from_doi(doi)
    if arxiv:
        found["arxiv"] = arxiv
    for name in ("pmid", "pmcid"):
        value = lines.get(name)
        checked = _checked_id(name, value.split()[0]) if value else None
        if checked:
            found[name] = checked
    return found


def _citation_key(fields: Mapping[str, str]) -> dict[str, str]:
    """``{"citation_key": ...}`` when the item has one: Zotero 7's ``citationKey`` field or
    Better BibTeX's ``Citation Key:`` line in Extra (exports can reuse it)."""
    key = fields.get("citationKey") or _extra_fields(fields.get("extra", "")).get("citation key")
    return {"citation_key": key.strip()} if key and key.strip() else {}


def _page(position: Any) -> int | None:
    """The 1-based page of an annotation from its position JSON (``pageIndex`` is 0-based)."""
    try:
        data = json.loads(_text(position))
    except (ValueError, RecursionError):
        return None
    index = data.get("pageIndex") if isinstance(data, dict) else None
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 10**7:
        return None
    return index + 1


def _existing(path: Path) -> Path | None:
    """``path`` if it is a file, else the same name in the other Unicode normal form (a
    library moved between macOS, which writes NFD names, and other systems), else None."""
    if path.is_file():
        return path
    for form in ("NFC", "NFD"):
        other = path.parent / unicodedata.normalize(form, path.name)
        if other != path and other.is_file():
            return other
    return None


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
