"""``prioris reindex --references``: every stored work's reference list read again.

A library made before reference lists were read, or one read by an older parser, gets
its lists from the Markdown it already stores (no download, no re-parse of the PDF):
each work's list replaced and linked to the library in one transaction of its own, in
work-id order. The last work done is remembered (``index_state``), so a stopped run
resumes after it when run again; a finished run forgets it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from typing import Any

from prioris.ingest.citation_links import store_references
from prioris.storage import references as reference_store
from prioris.storage.chunks import get_state, set_state
from prioris.storage.transaction import immediate

RESUME_KEY = "references_reread_after"  # the last work id whose list was read again
BATCH = 100  # work ids fetched per query


@dataclass
class RereadReport:
    works: int = 0  # works whose text was read again by this run
    references: int = 0  # entries stored for them
    linked: int = 0  # references of the library linked to a library work, after the run
    resumed: bool = False  # this run continued a stopped one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def reread_references(
    conn: Any,
    lock: AbstractContextManager[Any],
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> RereadReport:
    """Read every stored work's references again (see the module text)."""
    report = RereadReport()
    with lock:
        after = get_state(conn, RESUME_KEY) or ""
        total = conn.execute(
            "SELECT count(*) FROM works WHERE markdown IS NOT NULL AND id > ?", (after,)
        ).fetchone()[0]
    report.resumed = bool(after)
    while True:
        with lock:
            rows = conn.execute(
                "SELECT id, markdown FROM works WHERE markdown IS NOT NULL AND id > ? "
                "ORDER BY id LIMIT ?",
                (after, BATCH),
            ).fetchall()
        if not rows:
            break
        for work_id, markdown in rows:
            with lock, immediate(conn):
                report.references += store_references(conn, work_id, markdown or "")
                set_state(conn, RESUME_KEY, work_id)
            report.works += 1
            after = work_id
            if on_progress:
                on_progress(report.works, total)
    with lock, immediate(conn):
        conn.execute("DELETE FROM index_state WHERE key = ?", (RESUME_KEY,))
    with lock:
        report.linked = reference_store.count_references(conn)[1]
    return report
