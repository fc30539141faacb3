"""Zotero's data directory, read without writing it and correctly while Zotero runs.

- :mod:`.snapshot`: a private, checked copy of ``zotero.sqlite`` (with its ``-wal``, or a
  hot ``-journal`` rolled back in the copy), never opening Zotero's own file with SQLite;
- :mod:`.schema`: which Zotero schema versions are understood (userdata 120-129);
- :mod:`.reader`: the user library's regular items as :class:`~prioris.refman.items.RefItem`,
  assembled from the table readers (:mod:`.libraries`, :mod:`.item_rows`, :mod:`.creators`,
  :mod:`.labels`, :mod:`.attachments`, :mod:`.notes`) and :mod:`.record` (the fields as a
  record), all cleaning values through :mod:`.values`.
"""

from __future__ import annotations

from prioris.refman.zotero.reader import OtherLibrary, ZoteroLibrary, read_connection, read_library
from prioris.refman.zotero.schema import SUPPORTED, USERDATA_MAX, USERDATA_MIN, SchemaVersion
from prioris.refman.zotero.snapshot import ZoteroSnapshot

__all__ = [
    "SUPPORTED",
    "USERDATA_MAX",
    "USERDATA_MIN",
    "OtherLibrary",
    "SchemaVersion",
    "ZoteroLibrary",
    "ZoteroSnapshot",
    "read_connection",
    "read_library",
]
