"""A work's Markdown with its page spans, and paging through it by page or offset.

Offsets are characters of the work's Markdown (what search hits report); with a page,
the offset counts from that page's first character, so an agent can walk one page in
slices.
"""

from __future__ import annotations

from typing import Any

from prioris.errors import InvalidRequestError


def load_markdown(conn: Any, work_id: str) -> tuple[str, str, list[tuple[int, int, int]]]:
    """(title, markdown, [(page number, char_start, char_end), ...])."""
    row = conn.execute("SELECT title, markdown FROM works WHERE id = ?", (work_id,)).fetchone()
    pages = conn.execute(
        "SELECT number, char_start, char_end FROM pages WHERE work_id = ? ORDER BY number",
        (work_id,),
    ).fetchall()
    return row["title"], row["markdown"], [(p[0], p[1], p[2]) for p in pages]


def markdown_view(
    work_id: str,
    title: str,
    markdown: str,
    pages: list[tuple[int, int, int]],
    *,
    page: int | None = None,
    offset: int | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """The slice asked for, with what a caller needs to ask for the next one."""
    if limit is not None and limit < 1:
        raise InvalidRequestError("limit must be at least 1")
    if offset is not None and offset < 0:
        raise InvalidRequestError("offset must be 0 or more")
    start, end = 0, len(markdown)
    if page is not None:
        span = next((p for p in pages if p[0] == page), None)
        if span is None:
            raise InvalidRequestError(
                f"page {page} does not exist; {work_id} has {len(pages)} page(s)"
            )
        start, end = span[1], span[2]
    if offset is not None and start + offset > end:
        raise InvalidRequestError(f"offset {offset} is past the end ({end - start} chars)")
    start += offset or 0
    stop = end if limit is None else min(end, start + limit)
    page_of = next((p[0] for p in pages if p[1] <= start <= p[2]), None)
    return {
        "id": work_id,
        "title": title,
        "markdown": markdown[start:stop],
        "offset": start,
        "limit": limit,
        "total_length": len(markdown),
        "has_more": stop < end,
        "next_offset": stop if stop < end else None,
        "page": page if page is not None else page_of,
        "total_pages": len(pages),
    }
