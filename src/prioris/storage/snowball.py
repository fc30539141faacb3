"""Snowball candidates the user dismissed (``snowball_dismissed``): not shown again."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def dismiss(conn: Any, key: str, title: str, now: str) -> None:
    conn.execute(
        "INSERT INTO snowball_dismissed(key, title, dismissed_at) VALUES (?, ?, ?) "
        "ON CONFLICT(key) DO NOTHING",
        (key, title, now),
    )


def undismiss(conn: Any, key: str) -> bool:
    cur = conn.execute("DELETE FROM snowball_dismissed WHERE key = ?", (key,))
    return bool(cur.rowcount)


def dismissed(conn: Any, keys: Iterable[str] | None = None) -> set[str]:
    """The dismissed keys (of ``keys``, or all)."""
    rows = conn.execute("SELECT key FROM snowball_dismissed").fetchall()
    found = {str(r[0]) for r in rows}
    return found if keys is None else found & set(keys)
