"""Zotero's database values as Python values, and the one way its tables are queried.

Zotero's columns hold whatever a client, a plugin or a sync wrote into them: any SQLite
type, surrogates, control characters. Every table reader of this package turns what it
reads into text, a one-line field or an int here, so the cleaning is one rule for all of
them (and a hostile value fails the same way everywhere). Separate from the table readers
because each of them uses it and none owns it.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from prioris.strings import without_surrogates
from prioris.text_clean import remove_controls

_NEEDS_CLEANING = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b\u2028\u2029\u2060\ufeff\ud800-\udfff]"
)
"""What :func:`~prioris.text_clean.remove_controls` or ``without_surrogates`` would change."""


def as_text(value: Any) -> str:
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


def as_line(value: Any) -> str:
    """A one-line field (title, venue, a name): runs of white space become one space."""
    return " ".join(as_text(value).split())


def as_int(value: Any) -> int | None:
    """An integer column's value, or None for anything that is no integer (a bool too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def rows(conn: sqlite3.Connection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """All rows of one query (each table is read in one query, never one per item)."""
    return conn.execute(sql, params).fetchall()
