"""Which Zotero databases this reader understands, from Zotero's own ``version`` table.

Zotero records the version of each part of its schema in ``version`` (``userdata``,
``system``, ``triggers``, ``globalSchema``...). The tables and columns the reader queries
are those of ``userdata`` 120 (Zotero 6.0.20) up to 129 (the current source): 121 is
Zotero 6.0.30, 123 Zotero 7.0, 125 Zotero 9.0.6. Versions 124-129 only *add* columns
(``valueNormalized``, ``nameNormalized``, ``clientVersion``...) that the reader does not
need, so one set of queries serves the whole range.

Older databases are refused: Zotero 5 (userdata 107/111) has no ``itemAnnotations`` and
was never tested here; Zotero 4 (77/78) has other columns. Opening such a library in a
current Zotero upgrades it. A newer ``userdata`` than 129 is refused too: its tables may
have changed in a way that would make a sync silently skip items, which is the failure
this reader exists to avoid. Both are :class:`~prioris.errors.ConfigurationError` naming
the version found and the supported range.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from prioris.errors import ConfigurationError

USERDATA_MIN = 120
"""Zotero 6.0.20, the oldest schema tested (a real database of it is a test fixture)."""
USERDATA_MAX = 129
"""The schema of Zotero's current source (``resource/schema/userdata.sql``)."""
SUPPORTED = f"userdata {USERDATA_MIN}-{USERDATA_MAX} (Zotero 6, 7, 8 and 9)"

REQUIRED_TABLES = (
    "items",
    "itemTypesCombined",
    "itemData",
    "itemDataValues",
    "fieldsCombined",
    "baseFieldMappingsCombined",
    "itemCreators",
    "creators",
    "creatorTypes",
    "itemAttachments",
    "itemNotes",
    "itemAnnotations",
    "collections",
    "collectionItems",
    "tags",
    "itemTags",
    "deletedItems",
    "libraries",
)
"""Tables the reader queries; a database without one of them is not a Zotero 6+ one."""


@dataclass(frozen=True)
class SchemaVersion:
    """The schema versions a Zotero database says it has."""

    userdata: int
    system: int | None = None
    global_schema: int | None = None
    has_deleted_collections: bool = True
    """``deletedCollections`` (the collection trash) exists; older databases lack it."""
    has_feed_items: bool = True


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def check_schema(conn: sqlite3.Connection, name: str = "zotero.sqlite") -> SchemaVersion:
    """The database's schema version, or a ConfigurationError saying why it is not usable.

    ``name`` is how the file is called in messages (the original path, not the private
    copy the connection is open on).
    """
    try:
        tables = {
            str(row[0])
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.DatabaseError as exc:
        raise ConfigurationError(f"{name} is not a readable SQLite database: {exc}") from exc
    if "version" not in tables:
        raise ConfigurationError(
            f"{name} is not a Zotero database (it has no 'version' table); point "
            "--zotero-dir at Zotero's data directory (Zotero: Settings > Advanced > Files "
            "and Folders > Data Directory Location)"
        )
    try:
        rows = conn.execute("SELECT schema, version FROM version").fetchall()
    except sqlite3.DatabaseError as exc:
        raise ConfigurationError(f"{name}: cannot read its 'version' table: {exc}") from exc
    versions = {str(schema): _int(version) for schema, version in rows}
    userdata = versions.get("userdata")
    if userdata is None:
        raise ConfigurationError(
            f"{name} is not a Zotero database (its 'version' table has no userdata schema version)"
        )
    if userdata < USERDATA_MIN:
        raise ConfigurationError(
            f"{name} has Zotero schema userdata {userdata}, older than this reader "
            f"supports ({SUPPORTED}); open the library once in a current Zotero to "
            "upgrade it"
        )
    if userdata > USERDATA_MAX:
        raise ConfigurationError(
            f"{name} has Zotero schema userdata {userdata}, newer than this reader "
            f"knows ({SUPPORTED}); a newer Prioris may read it"
        )
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise ConfigurationError(
            f"{name} says Zotero schema userdata {userdata} but lacks the table(s) "
            f"{', '.join(missing)}: it is not a Zotero database this reader can read"
        )
    return SchemaVersion(
        userdata=userdata,
        system=versions.get("system"),
        global_schema=versions.get("globalSchema"),
        has_deleted_collections="deletedCollections" in tables,
        has_feed_items="feedItems" in tables,
    )
