"""A listing's per-work passage and page counts: inline on one server, apart over shards.

``list`` and ``browse`` show each work's passages and pages beside its row. On one
server the counts are subqueries of the statement that reads the rows (one round trip).
A sharded library keeps passages and pages on the works' shards and the rows on its
primary, so no statement sees both: its connection says so (``passages_apart``) and the
counts are asked apart, grouped by work (each shard answers for its own works).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

LIST_COUNTS = (
    ", (SELECT count(*) FROM chunks c WHERE c.work_id = w.id) AS chunks, "
    "(SELECT max(number) FROM pages p WHERE p.work_id = w.id) AS last_page"
)
BROWSE_COUNTS = (
    ", (SELECT count(*) FROM pages p WHERE p.work_id = w.id) AS pages, "
    "(SELECT coalesce(sum(p.ocr), 0) FROM pages p WHERE p.work_id = w.id) AS ocr_pages, "
    "(SELECT count(*) FROM chunks c WHERE c.work_id = w.id) AS chunks"
)
"""A work's passage and page counts beside its row, as subqueries of the one statement
that reads the rows (``list``, ``browse``), unless the connection keeps them apart."""


def passages_apart(conn: Any) -> bool:
    """Whether the connection keeps passages and pages away from the works' rows (a
    sharded library: :func:`passage_counts` asks for them apart)."""
    return bool(getattr(conn, "passages_apart", False))


def row_counts(conn: Any, rows: Sequence[Any]) -> dict[str, dict[str, int]]:
    """The counts read with the works' rows (:data:`LIST_COUNTS`, :data:`BROWSE_COUNTS`),
    or asked apart."""
    if passages_apart(conn):
        return passage_counts(conn, [r["id"] for r in rows])
    keys = ("chunks", "pages", "ocr_pages", "last_page")
    present = [k for k in keys if rows and k in rows[0].keys()]  # noqa: SIM118 - a row
    return {r["id"]: {k: int(r[k] or 0) for k in present} for r in rows}


def passage_counts(conn: Any, work_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """Per work: ``chunks`` (passages), ``pages``, ``ocr_pages`` and ``last_page`` (the
    highest page number), in one statement. Asked apart from the works' rows, grouped by
    work: a sharded library keeps passages and pages on the works' shards, the rows on its
    primary (each shard answers for its works)."""
    found: dict[str, dict[str, int]] = {}
    for start in range(0, len(work_ids), 500):
        group = list(work_ids[start : start + 500])
        if not group:
            continue
        marks = ", ".join("?" for _ in group)
        rows = conn.execute(
            "SELECT work_id, sum(chunks), sum(pages), sum(ocr_pages), max(last_page) FROM ("
            "SELECT work_id, count(*) AS chunks, 0 AS pages, 0 AS ocr_pages, 0 AS last_page "
            f"FROM chunks WHERE work_id IN ({marks}) GROUP BY work_id UNION ALL "
            "SELECT work_id, 0, count(*), coalesce(sum(ocr), 0), coalesce(max(number), 0) "
            f"FROM pages WHERE work_id IN ({marks}) GROUP BY work_id) t GROUP BY work_id",
            [*group, *group],
        ).fetchall()
        for r in rows:
            found[str(r[0])] = {
                "chunks": int(r[1]),
                "pages": int(r[2]),
                "ocr_pages": int(r[3]),
                "last_page": int(r[4] or 0),
            }
    return found
