"""Which of the database's libraries is read, and the others it holds.

A Zotero database holds the user library, group libraries and feeds, each a row of
``libraries``. A sync reads one of them (the user library unless another is asked for)
and reports the others, with their names and sizes, so a user sees what was left out.
Separate from the table readers: it runs first and decides the ``libraryID`` every one
of them filters on.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass

from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.refman.zotero.values import as_int, as_text, rows


@dataclass(frozen=True)
class OtherLibrary:
    """A library of the database that was not read (a group library or a feed)."""

    library_id: int
    type: str
    name: str
    items: int


def choose_library(
    conn: sqlite3.Connection, name: str, wanted: int | None
) -> tuple[int, tuple[OtherLibrary, ...]]:
    """The ``libraryID`` to read (``wanted``, else the user library) and the libraries not
    read. ConfigurationError when there is no user library, InvalidRequestError when
    ``wanted`` is not one of the database's libraries (``name`` names the database)."""
    libraries = [
        (as_int(lib), as_text(kind))
        for lib, kind in rows(conn, "SELECT libraryID, type FROM libraries")
    ]
    counts = {
        as_int(lib): as_int(n) or 0
        for lib, n in rows(conn, "SELECT libraryID, count(*) FROM items GROUP BY libraryID")
    }
    names: dict[int | None, str] = {}
    for table, column in (("groups", "name"), ("feeds", "name")):
        with contextlib.suppress(sqlite3.OperationalError):  # a table it lacks
            names.update(
                (as_int(lib), as_text(n))
                for lib, n in rows(conn, f"SELECT libraryID, {column} FROM {table}")
            )
    if wanted is None:
        users = [lib for lib, kind in libraries if kind == "user" and lib is not None]
        if not users:
            raise ConfigurationError(f"{name} has no user library")
        chosen = min(users)
    elif any(lib == wanted for lib, _ in libraries):
        chosen = wanted
    else:
        raise InvalidRequestError(
            f"{name} has no library {wanted}; its libraries: "
            + ", ".join(f"{lib} ({kind})" for lib, kind in libraries)
        )
    others = tuple(
        OtherLibrary(lib, kind, names.get(lib, ""), counts.get(lib, 0))
        for lib, kind in libraries
        if lib is not None and lib != chosen
    )
    return chosen, others
