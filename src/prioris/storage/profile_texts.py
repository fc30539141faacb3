"""What the alerts' ranking reads of every stored work: its id, title, year and the text
its profile is built from (the abstract, else the head of its Markdown, as the work's own
vector reads it), in id order, with the same SQL on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from prioris.storage.work_vectors import WORK_TEXT_CHARS


def work_texts(conn: Any) -> list[tuple[str, str, int | None, str]]:
    """``(id, title, year, text)`` of every work, by id."""
    rows = conn.execute(
        "SELECT id, title, year, abstract, substr(markdown, 1, ?) FROM works ORDER BY id",
        (WORK_TEXT_CHARS,),
    ).fetchall()
    return [
        (
            str(r[0]),
            str(r[1] or ""),
            int(r[2]) if r[2] is not None else None,
            (str(r[3] or "").strip() or str(r[4] or "").strip()),
        )
        for r in rows
    ]
