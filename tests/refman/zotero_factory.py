"""Zotero data directories built the way Zotero builds them, for reader and sync tests.

A database here is made from Zotero's own schema SQL (``system.sql``, ``userdata.sql``,
``triggers.sql``) and global schema (``schema.json``) in
``../shared/fixtures/zotero/schema`` (pass that folder as ``schema_dir``: tests get it from
``conftest.shared_path`` so they skip when it is absent), following Zotero's
``_initializeSchema`` (SOURCES.md there): the item types, fields, base-field mappings and
creator types filled from ``schema.json``, the ``version`` rows, the user library. Items are
then written with the SQL Zotero itself runs, so the reader meets real tables and triggers.

Typical use::

    data_dir = make_zotero_dir(tmp_path, schema_dir)
    with open_db(data_dir) as db:
        add_collection(db, "COLL0001", "Thesis")
        add_item(db, "ITEM0001", "journalArticle", {"title": "A", "date": "2020-05-00 May 2020"},
                 creators=[("Ada", "Lovelace", "author")], collections=["COLL0001"],
                 tags=["ml"])
        add_attachment(db, data_dir, "ATTA0001", "ITEM0001", content=b"%PDF-1.4 ...")
    # later: edit_field(db, "ITEM0001", "title", "B"), move(...), trash(db, "ITEM0001")

Every write bumps the item's ``dateModified``/``clientDateModified`` from a counter clock
(Zotero's one-second resolution would make two edits in one test look the same).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

USERDATA_VERSION = 129  # the first line of userdata.sql ("-- 129")
_CLOCK = [datetime(2025, 1, 1, tzinfo=UTC)]


def _now() -> str:
    """A strictly increasing 'YYYY-MM-DD HH:MM:SS' (Zotero's timestamp form)."""
    _CLOCK[0] += timedelta(seconds=1)
    return _CLOCK[0].strftime("%Y-%m-%d %H:%M:%S")


def _first_line_version(sql: str) -> int:
    return int(sql.split("\n", 1)[0].lstrip("- ").strip())


def create_database(path: Path, schema_dir: Path, *, journal_mode: str = "delete") -> None:
    """A new, empty Zotero database at ``path`` with the current schema and a user library."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("PRAGMA encoding = 'UTF-8'")
        conn.execute(f"PRAGMA journal_mode = {journal_mode}")
        versions: dict[str, int] = {}
        for name in ("system", "userdata", "triggers"):
            sql = (schema_dir / f"{name}.sql").read_text(encoding="utf-8")
            versions[name] = _first_line_version(sql)
            conn.executescript(sql)
        conn.execute("BEGIN")
        schema = json.loads((schema_dir / "schema.json").read_text(encoding="utf-8"))
        _fill_global_schema(conn, schema)
        for name, version in (
            *versions.items(),
            ("globalSchema", int(schema["version"])),
            ("compatibility", 7),
        ):
            conn.execute("REPLACE INTO version (schema, version) VALUES (?, ?)", (name, version))
        conn.execute(
            "INSERT INTO libraries (libraryID, type, editable, filesEditable) "
            "VALUES (1, 'user', 1, 1)"
        )
        conn.execute("COMMIT")
    finally:
        conn.close()


def _fill_global_schema(conn: sqlite3.Connection, schema: dict[str, Any]) -> None:
    fields: dict[str, int] = {}
    creator_types: dict[str, int] = {}

    def field_id(name: str) -> int:
        if name not in fields:
            fields[name] = len(fields) + 1
            conn.execute(
                "INSERT INTO fields (fieldID, fieldName, fieldFormatID) VALUES (?, ?, NULL)",
                (fields[name], name),
            )
            conn.execute(
                "INSERT INTO fieldsCombined (fieldID, fieldName, label, fieldFormatID, custom) "
                "VALUES (?, ?, NULL, NULL, 0)",
                (fields[name], name),
            )
        return fields[name]

    for type_id, item_type in enumerate(schema["itemTypes"], start=1):
        name = item_type["itemType"]
        conn.execute(
            "INSERT INTO itemTypes (itemTypeID, typeName, templateItemTypeID, display) "
            "VALUES (?, ?, NULL, 1)",
            (type_id, name),
        )
        conn.execute(
            "INSERT INTO itemTypesCombined (itemTypeID, typeName, display, custom) "
            "VALUES (?, ?, 1, 0)",
            (type_id, name),
        )
        for order, spec in enumerate(item_type.get("fields", [])):
            fid = field_id(spec["field"])
            for table in ("itemTypeFields", "itemTypeFieldsCombined"):
                conn.execute(
                    f"INSERT INTO {table} (itemTypeID, fieldID, hide, orderIndex) "
                    "VALUES (?, ?, 0, ?)",
                    (type_id, fid, order),
                )
            if spec.get("baseField"):
                base = field_id(spec["baseField"])
                for table in ("baseFieldMappings", "baseFieldMappingsCombined"):
                    conn.execute(
                        f"INSERT INTO {table} (itemTypeID, baseFieldID, fieldID) VALUES (?, ?, ?)",
                        (type_id, base, fid),
                    )
        for spec in item_type.get("creatorTypes", []):
            ctype = spec["creatorType"]
            if ctype not in creator_types:
                creator_types[ctype] = len(creator_types) + 1
                conn.execute(
                    "INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (?, ?)",
                    (creator_types[ctype], ctype),
                )
            conn.execute(
                "INSERT INTO itemTypeCreatorTypes (itemTypeID, creatorTypeID, primaryField) "
                "VALUES (?, ?, ?)",
                (type_id, creator_types[ctype], 1 if spec.get("primary") else 0),
            )


_TEMPLATES: dict[tuple[str, str], Path] = {}


def make_zotero_dir(
    tmp: Path, schema_dir: Path, *, name: str = "Zotero", journal_mode: str = "delete"
) -> Path:
    """A Zotero data directory ``tmp/name`` (``zotero.sqlite`` and an empty ``storage/``).

    The empty database is built once per schema folder and copied (building it runs a few
    thousand inserts). ``journal_mode`` ``wal`` makes a database like one Zotero keeps in
    WAL mode.
    """
    data_dir = tmp / name
    (data_dir / "storage").mkdir(parents=True)
    key = (str(schema_dir), journal_mode)
    template = _TEMPLATES.get(key)
    if template is None or not template.exists():
        template = tmp / f".zotero-template-{journal_mode}.sqlite"
        create_database(template, schema_dir, journal_mode=journal_mode)
        _TEMPLATES[key] = template
    (data_dir / "zotero.sqlite").write_bytes(template.read_bytes())
    return data_dir


@contextmanager
def open_db(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """A connection on ``data_dir/zotero.sqlite`` in autocommit mode, closed afterwards."""
    conn = connect(data_dir)
    try:
        yield conn
    finally:
        conn.close()


def connect(data_dir: Path) -> sqlite3.Connection:
    """A connection on the data directory's database (autocommit; the caller closes it)."""
    conn = sqlite3.connect(data_dir / "zotero.sqlite", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


# -- lookups -----------------------------------------------------------------------------
def _one(conn: sqlite3.Connection, sql: str, *params: Any) -> Any:
    row = conn.execute(sql, params).fetchone()
    if row is None:
        raise KeyError(f"nothing for {sql!r} {params!r}")
    return row[0]


def item_id(conn: sqlite3.Connection, key: str, library_id: int = 1) -> int:
    sql = "SELECT itemID FROM items WHERE key = ? AND libraryID = ?"
    return int(_one(conn, sql, key, library_id))


def collection_id(conn: sqlite3.Connection, key: str) -> int:
    return int(_one(conn, "SELECT collectionID FROM collections WHERE key = ?", key))


def _type_id(conn: sqlite3.Connection, type_name: str) -> int:
    return int(_one(conn, "SELECT itemTypeID FROM itemTypesCombined WHERE typeName = ?", type_name))


def _field_id(conn: sqlite3.Connection, name: str) -> int:
    return int(_one(conn, "SELECT fieldID FROM fieldsCombined WHERE fieldName = ?", name))


def _value_id(conn: sqlite3.Connection, value: Any) -> int:
    conn.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
    return int(_one(conn, "SELECT valueID FROM itemDataValues WHERE value = ?", value))


def _touch(conn: sqlite3.Connection, iid: int) -> None:
    now = _now()
    conn.execute(
        "UPDATE items SET dateModified = ?, clientDateModified = ?, synced = 0 WHERE itemID = ?",
        (now, now, iid),
    )


# -- writes ------------------------------------------------------------------------------
def add_collection(
    conn: sqlite3.Connection,
    key: str,
    name: str,
    parent: str | None = None,
    *,
    library_id: int = 1,
) -> int:
    """A collection (``parent`` is the parent collection's key)."""
    parent_id = collection_id(conn, parent) if parent else None
    cur = conn.execute(
        "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) "
        "VALUES (?, ?, ?, ?)",
        (name, parent_id, library_id, key),
    )
    return int(cur.lastrowid or 0)


def _insert_item(conn: sqlite3.Connection, key: str, type_name: str, library_id: int = 1) -> int:
    now = _now()
    cur = conn.execute(
        "INSERT INTO items (itemTypeID, dateAdded, dateModified, clientDateModified, "
        "libraryID, key) VALUES (?, ?, ?, ?, ?, ?)",
        (_type_id(conn, type_name), now, now, now, library_id, key),
    )
    return int(cur.lastrowid or 0)


def set_field(conn: sqlite3.Connection, iid: int, name: str, value: Any) -> None:
    conn.execute(
        "REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)",
        (iid, _field_id(conn, name), _value_id(conn, value)),
    )


def add_item(
    conn: sqlite3.Connection,
    key: str,
    item_type: str = "journalArticle",
    fields: dict[str, Any] | None = None,
    *,
    creators: Sequence[tuple[str, str, str] | tuple[str, str, str, int]] = (),
    collections: Iterable[str] = (),
    tags: Iterable[str | tuple[str, int]] = (),
    library_id: int = 1,
) -> int:
    """A regular item with its fields, creators (first, last, role[, fieldMode]), collection
    keys and tags (a name, or (name, type) with type 1 for an automatic tag)."""
    iid = _insert_item(conn, key, item_type, library_id)
    for name, value in (fields or {}).items():
        set_field(conn, iid, name, value)
    for order, creator in enumerate(creators):
        first, last, role = creator[0], creator[1], creator[2]
        mode = creator[3] if len(creator) > 3 else 0  # type: ignore[misc]
        conn.execute(
            "INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)",
            (first, last, mode),
        )
        cid = _one(
            conn,
            "SELECT creatorID FROM creators WHERE firstName = ? AND lastName = ? AND fieldMode = ?",
            first,
            last,
            mode,
        )
        ctype = _one(conn, "SELECT creatorTypeID FROM creatorTypes WHERE creatorType = ?", role)
        conn.execute(
            "INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) "
            "VALUES (?, ?, ?, ?)",
            (iid, cid, ctype, order),
        )
    for collection in collections:
        conn.execute(
            "INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)",
            (collection_id(conn, collection), iid),
        )
    for tag in tags:
        name, kind = (tag, 0) if isinstance(tag, str) else tag
        conn.execute("INSERT OR IGNORE INTO tags (name) VALUES (?)", (name,))
        tid = _one(conn, "SELECT tagID FROM tags WHERE name = ?", name)
        conn.execute(
            "INSERT INTO itemTags (itemID, tagID, type) VALUES (?, ?, ?)", (iid, tid, kind)
        )
    return iid


def add_attachment(
    conn: sqlite3.Connection,
    data_dir: Path,
    key: str,
    parent: str | None,
    *,
    file_name: str = "paper.pdf",
    content: bytes | None = b"%PDF-1.4\n%%EOF\n",
    link_mode: int = 1,
    content_type: str = "application/pdf",
    path: str | None = None,
    title: str = "Full Text PDF",
    url: str | None = None,
) -> int:
    """A child attachment of ``parent`` (None: a standalone one).

    Link mode 0/1 stores ``storage:<file_name>`` and writes ``content`` (unless None) to
    ``storage/<key>/<file_name>``; mode 2 (linked file) records ``path`` as given (absolute
    or ``attachments:rel``); mode 3 (linked URL) records no path, only ``url``.
    """
    iid = _insert_item(conn, key, "attachment")
    if link_mode in (0, 1):
        path = f"storage:{file_name}"
        if content is not None:
            folder = data_dir / "storage" / key
            folder.mkdir(parents=True, exist_ok=True)
            (folder / file_name).write_bytes(content)
    parent_id = item_id(conn, parent) if parent else None
    conn.execute(
        "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
        "VALUES (?, ?, ?, ?, ?)",
        (iid, parent_id, link_mode, content_type, path),
    )
    set_field(conn, iid, "title", title)
    if url:
        set_field(conn, iid, "url", url)
    return iid


def add_note(conn: sqlite3.Connection, key: str, parent: str | None, html: str) -> int:
    """A child note (HTML, as Zotero's note editor writes it) of ``parent``."""
    iid = _insert_item(conn, key, "note")
    parent_id = item_id(conn, parent) if parent else None
    conn.execute(
        "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?, ?, ?, ?)",
        (iid, parent_id, html, ""),
    )
    return iid


def add_annotation(
    conn: sqlite3.Connection,
    key: str,
    attachment: str,
    *,
    kind: int = 1,
    text: str | None = "highlighted words",
    comment: str | None = None,
    color: str = "#ffd400",
    page_label: str = "1",
    page_index: int = 0,
    sort_index: str | None = None,
    position: str | None = None,
) -> int:
    """An annotation (1 highlight, 2 note, 3 image, 4 ink, 5 underline, 6 text) on an
    attachment; ``position`` overrides the JSON built from ``page_index``."""
    iid = _insert_item(conn, key, "annotation")
    conn.execute(
        "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, "
        "pageLabel, sortIndex, position, isExternal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
        (
            iid,
            item_id(conn, attachment),
            kind,
            text,
            comment,
            color,
            page_label,
            sort_index or f"{page_index:05d}|000100|00200",
            position or json.dumps({"pageIndex": page_index, "rects": [[1, 2, 3, 4]]}),
        ),
    )
    return iid


def edit_field(conn: sqlite3.Connection, key: str, name: str, value: Any) -> None:
    """Change one field the way Zotero saves an edit (new value row, dateModified bumped)."""
    iid = item_id(conn, key)
    set_field(conn, iid, name, value)
    _touch(conn, iid)


def move(conn: sqlite3.Connection, key: str, source: str | None, target: str) -> None:
    """Move an item from collection ``source`` (None: add only) to collection ``target``."""
    iid = item_id(conn, key)
    if source:
        conn.execute(
            "DELETE FROM collectionItems WHERE collectionID = ? AND itemID = ?",
            (collection_id(conn, source), iid),
        )
    conn.execute(
        "INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)",
        (collection_id(conn, target), iid),
    )
    _touch(conn, iid)


def trash(conn: sqlite3.Connection, key: str) -> None:
    """Move an item to Zotero's trash (``deletedItems``)."""
    iid = item_id(conn, key)
    conn.execute("INSERT INTO deletedItems (itemID, dateDeleted) VALUES (?, ?)", (iid, _now()))
    _touch(conn, iid)


def restore(conn: sqlite3.Connection, key: str) -> None:
    """Take an item back out of the trash."""
    iid = item_id(conn, key)
    conn.execute("DELETE FROM deletedItems WHERE itemID = ?", (iid,))
    _touch(conn, iid)


def trash_collection(conn: sqlite3.Connection, key: str) -> None:
    """Move a collection to the trash (``deletedCollections``, Zotero 7+)."""
    conn.execute(
        "INSERT INTO deletedCollections (collectionID, dateDeleted) VALUES (?, ?)",
        (collection_id(conn, key), _now()),
    )


def erase(conn: sqlite3.Connection, key: str) -> None:
    """Delete an item for good (emptying the trash): the row and its children go."""
    iid = item_id(conn, key)
    children = [
        row[0]
        for table in ("itemAttachments", "itemNotes")
        for row in conn.execute(f"SELECT itemID FROM {table} WHERE parentItemID = ?", (iid,))
    ]
    for child in children:
        conn.execute("DELETE FROM itemAnnotations WHERE parentItemID = ?", (child,))
    for target in [*children, iid]:
        conn.execute("DELETE FROM items WHERE itemID = ?", (target,))


def set_schema_version(conn: sqlite3.Connection, userdata: int) -> None:
    """Pretend the database has another userdata schema version (an old or future Zotero)."""
    conn.execute("REPLACE INTO version (schema, version) VALUES ('userdata', ?)", (userdata,))


def add_group_library(conn: sqlite3.Connection, library_id: int = 2, name: str = "Group") -> None:
    """A group library (its items are not the user's library)."""
    conn.execute(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) "
        "VALUES (?, 'group', 1, 1)",
        (library_id,),
    )
    conn.execute(
        "INSERT INTO groups (groupID, libraryID, name, description, version) "
        "VALUES (?, ?, ?, '', 0)",
        (library_id * 100, library_id, name),
    )


def add_many(conn: sqlite3.Connection, count: int, *, prefix: str = "B") -> list[str]:
    """``count`` journal articles with authors, a DOI, a collection and tags, in one
    transaction (for speed measurements); their keys."""
    keys = []
    conn.execute("BEGIN")
    try:
        add_collection(conn, f"{prefix}COLL000", "Bulk")
        for i in range(count):
            key = f"{prefix}{i:07d}"
            add_item(
                conn,
                key,
                "journalArticle",
                {
                    "title": f"Paper number {i} about things",
                    "date": f"{2000 + i % 25}-0{1 + i % 9}-00 {2000 + i % 25}",
                    "DOI": f"10.1234/bulk.{i}",
                    "publicationTitle": "Journal of Bulk",
                    "volume": str(i % 50),
                    "abstractNote": "An abstract. " * 20,
                },
                creators=[("Ada", f"Author{i % 97}", "author"), ("Bob", "Second", "author")],
                collections=[f"{prefix}COLL000"],
                tags=[f"tag{i % 13}", ("auto", 1)],
            )
            keys.append(key)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return keys
