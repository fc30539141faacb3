"""Read-only views for browsing a library: sorted and filtered works, page spans, one chunk,
and counts by year and source.

The listing commands need only :func:`prioris.storage.works.list_works`; a person browsing
thousands of works in the web app needs sorting, a filter and paging done by SQLite, and
per-work counts of pages, chunks and OCR'd pages in one query.
"""

from __future__ import annotations

import json
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.storage.backend import index_of
from prioris.storage.passage_counts import BROWSE_COUNTS, passages_apart, row_counts

SORTS = {
    "added": "w.created_at {order}, w.id",
    "year": "w.year IS NULL, w.year {order}, lower(w.title)",
    "title": "lower(w.title) {order}, w.id",
}


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def browse_works(
    conn: Any,
    *,
    sort: str = "added",
    descending: bool = True,
    text: str | None = None,
    source: str | None = None,
    limit: int = 100,
    offset: int = 0,
    where: tuple[str, list[Any]] | None = None,
) -> dict[str, Any]:
    """``{"total", "works": [...]}``: one page of works, each with its counts.

    ``text`` matches the title, the authors or the id (case-insensitive substring);
    ``source`` is exact; ``where`` is a further SQL condition on ``w`` with its
    parameters (a collection or tag filter). Sorting by year puts works without a year
    last either way.
    """
    if sort not in SORTS:
        raise InvalidRequestError(f"unknown sort {sort!r}; accepted: {', '.join(SORTS)}")
    if limit < 1 or offset < 0:
        raise InvalidRequestError("limit must be at least 1 and offset 0 or more")
    conditions, params = [], []
    if text and text.strip():
        pattern = _like(text.strip().lower())
        conditions.append(
            "(lower(w.title) LIKE ? ESCAPE '\\' OR lower(w.authors) LIKE ? ESCAPE '\\' "
            "OR lower(w.id) LIKE ? ESCAPE '\\')"
        )
        params += [pattern, pattern, pattern]
    if source:
        conditions.append("w.source = ?")
        params.append(source)
    if where is not None:
        conditions.append(f"({where[0]})")
        params += where[1]
    clause = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    total = conn.execute(f"SELECT count(*) FROM works w {clause}", params).fetchone()[0]
    order = SORTS[sort].format(order="DESC" if descending else "ASC")
    rows = conn.execute(
        "SELECT w.id, w.title, w.authors, w.year, w.source, w.created_at, "
        "(SELECT group_concat(DISTINCT d.format) FROM documents d WHERE d.work_id = w.id) "
        f"AS formats{'' if passages_apart(conn) else BROWSE_COUNTS} "
        f"FROM works w {clause} ORDER BY {order} LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    counts = row_counts(conn, rows)
    works = [
        {
            "id": r["id"],
            "title": r["title"],
            "authors": json.loads(r["authors"]),
            "year": r["year"],
            "source": r["source"],
            "added": r["created_at"],
            "pages": counts.get(r["id"], {}).get("pages", 0),
            "ocr_pages": counts.get(r["id"], {}).get("ocr_pages", 0),
            "chunks": counts.get(r["id"], {}).get("chunks", 0),
            "formats": sorted((r["formats"] or "").split(",")) if r["formats"] else [],
        }
        for r in rows
    ]
    return {"total": total, "works": works}


def page_spans(conn: Any, work_id: str) -> list[dict[str, Any]]:
    """A work's pages: number, character span in its Markdown, whether OCR produced it."""
    rows = conn.execute(
        "SELECT number, char_start, char_end, ocr FROM pages WHERE work_id = ? ORDER BY number",
        (work_id,),
    ).fetchall()
    return [{"number": r[0], "char_start": r[1], "char_end": r[2], "ocr": bool(r[3])} for r in rows]


def get_chunk(conn: Any, chunk_id: int) -> dict[str, Any] | None:
    """One chunk (a search hit's passage) with where it sits in its work's Markdown."""
    row = conn.execute(
        "SELECT id, work_id, text, page_start, page_end, char_start, char_end, heading "
        "FROM chunks WHERE id = ?",
        (chunk_id,),
    ).fetchone()
    if row is None:
        return None
    found = {key: row[key] for key in row.keys()}  # noqa: SIM118
    found["text"] = index_of(conn).read_text(found["text"], found["work_id"])
    return found


def year_source_counts(conn: Any) -> list[dict[str, Any]]:
    """How many works per (year, source); ``year`` is None for works without one."""
    rows = conn.execute(
        "SELECT year, source, count(*) AS n FROM works GROUP BY year, source ORDER BY year, source"
    ).fetchall()
    return [{"year": r[0], "source": r[1], "count": r[2]} for r in rows]
