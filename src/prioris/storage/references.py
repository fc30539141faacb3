"""Works' reference lists and the local citation graph (``work_references``).

A work's references are read from its text at ingest and kept here in printed order; a
reference that is a work of the library points at it (``cited_work_id``), which is what
``prioris cites`` / ``cited-by`` and the snowball read. The SQL is one text for both
engines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from prioris.models import Reference
from prioris.storage.batched import rows_in

COLUMNS = (
    "id, work_id, ordinal, raw, authors, title, year, venue, doi, arxiv, url, "
    "cited_work_id, link_method, link_score"
)


def _row(r: Any) -> dict[str, Any]:
    return {
        "id": r[0],
        "work_id": r[1],
        "ordinal": r[2],
        "raw": r[3],
        "authors": json.loads(r[4] or "[]"),
        "title": r[5],
        "year": r[6],
        "venue": r[7],
        "doi": r[8],
        "arxiv": r[9],
        "url": r[10],
        "cited_work_id": r[11],
        "link_method": r[12],
        "link_score": r[13],
    }


def replace_references(conn: Any, work_id: str, references: Sequence[Reference]) -> int:
    """Make ``references`` the work's reference list (inside the caller's transaction);
    their links are made again by the caller (:func:`set_links`)."""
    conn.execute("DELETE FROM work_references WHERE work_id = ?", (work_id,))
    conn.executemany(
        "INSERT INTO work_references(work_id, ordinal, raw, authors, title, year, venue, doi, "
        "arxiv, url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                work_id,
                r.ordinal,
                r.raw,
                json.dumps(list(r.authors), ensure_ascii=False),
                r.title,
                r.year,
                r.venue,
                r.doi,
                r.arxiv,
                r.url,
            )
            for r in references
        ],
    )
    return len(references)


def references_of(conn: Any, work_id: str) -> list[dict[str, Any]]:
    """A work's references in printed order, each with the library work it is (if any)."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM work_references WHERE work_id = ? ORDER BY ordinal", (work_id,)
    ).fetchall()
    return [_row(r) for r in rows]


def citing(conn: Any, work_id: str) -> list[dict[str, Any]]:
    """The references, in other works of the library, that are ``work_id``."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM work_references WHERE cited_work_id = ? ORDER BY work_id, ordinal",
        (work_id,),
    ).fetchall()
    return [_row(r) for r in rows]


def references_of_many(conn: Any, work_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """References of several works, a query per 500 works: ``{work_id: [reference]}``."""
    found: dict[str, list[dict[str, Any]]] = {work_id: [] for work_id in work_ids}
    sql = (
        f"SELECT {COLUMNS} FROM work_references WHERE work_id IN ({{marks}}) "
        "ORDER BY work_id, ordinal"
    )
    for r in rows_in(conn, sql, work_ids):
        found[r[1]].append(_row(r))
    return found


def unlinked(conn: Any, work_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """References not (yet) linked to a library work: of ``work_ids``, or of every work."""
    if work_ids is None:
        rows = conn.execute(
            f"SELECT {COLUMNS} FROM work_references WHERE cited_work_id IS NULL "
            "ORDER BY work_id, ordinal"
        ).fetchall()
        return [_row(r) for r in rows]
    return [
        r
        for refs in references_of_many(conn, work_ids).values()
        for r in refs
        if r["cited_work_id"] is None
    ]


def set_links(conn: Any, links: Iterable[tuple[int, str | None, str | None, float | None]]) -> None:
    """``(reference id, cited work id or None, method, score)`` for each given reference
    (inside the caller's transaction)."""
    conn.executemany(
        "UPDATE work_references SET cited_work_id = ?, link_method = ?, link_score = ? "
        "WHERE id = ?",
        [(work_id, method, score, ref_id) for ref_id, work_id, method, score in links],
    )


def citation_edges(conn: Any) -> list[tuple[str, str]]:
    """Every (citing work, cited work) pair of the library, once."""
    rows = conn.execute(
        "SELECT DISTINCT work_id, cited_work_id FROM work_references "
        "WHERE cited_work_id IS NOT NULL AND cited_work_id <> work_id ORDER BY 1, 2"
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def count_references(conn: Any) -> tuple[int, int]:
    """(references, those linked to a library work)."""
    row = conn.execute("SELECT count(*), count(cited_work_id) FROM work_references").fetchone()
    return int(row[0]), int(row[1])


def unlinked_in_years(
    conn: Any, first_year: int, last_year: int, exclude_work: str
) -> list[dict[str, Any]]:
    """Unlinked references dated ``first_year``..``last_year`` in works other than
    ``exclude_work``: the candidates a new work of those years may be."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM work_references WHERE cited_work_id IS NULL "
        "AND year BETWEEN ? AND ? AND work_id <> ? ORDER BY work_id, ordinal",
        (first_year, last_year, exclude_work),
    ).fetchall()
    return [_row(r) for r in rows]
