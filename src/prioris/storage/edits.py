"""The edit history of works: one row per user edit, what undo needs to restore.

Each row keeps the patch as given (``changes``) and the state before it (``before``: the
``user`` record, the merged fields and origins, and the aliases the edit added and
removed). Undo takes the newest row of a work, restores that state and deletes the row,
so undo can be repeated back to the first edit.
"""

from __future__ import annotations

import json
from typing import Any


def add_edit(
    conn: Any, work_id: str, changes: dict[str, Any], before: dict[str, Any], now: str
) -> None:
    """Record an edit (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO work_edits(work_id, edited_at, changes, before) VALUES (?, ?, ?, ?)",
        (
            work_id,
            now,
            json.dumps(changes, ensure_ascii=False),
            json.dumps(before, ensure_ascii=False),
        ),
    )


def edits_of(conn: Any, work_id: str, *, limit: int | None = None) -> list[dict[str, Any]]:
    """A work's edits, newest first: ``id``, ``edited_at``, ``changes``, ``before``."""
    sql = "SELECT id, edited_at, changes, before FROM work_edits WHERE work_id = ? ORDER BY id DESC"
    rows = conn.execute(sql + (f" LIMIT {int(limit)}" if limit else ""), (work_id,)).fetchall()
    return [
        {
            "id": int(row[0]),
            "edited_at": row[1],
            "changes": json.loads(row[2]),
            "before": json.loads(row[3]),
        }
        for row in rows
    ]


def delete_edit(conn: Any, edit_id: int) -> None:
    conn.execute("DELETE FROM work_edits WHERE id = ?", (edit_id,))


def count_edits(conn: Any, work_id: str) -> int:
    return int(
        conn.execute("SELECT count(*) FROM work_edits WHERE work_id = ?", (work_id,)).fetchone()[0]
    )
