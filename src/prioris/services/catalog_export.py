"""Stored works as citations and exports: the format check, what a ``jsonl`` export
carries besides the records, and the shape of a cite answer.

:class:`~prioris.services.catalog.Catalog` chooses the works (by id or by a collection
and tag filter, under its lock) and hands them here; the formatting itself is
:mod:`prioris.export`, imported only when a work is exported or cited (it loads the CSL
machinery), as it was when this lived in the catalog. Kept apart so the catalog holds
finding, reading and deleting works, and the text a citation becomes is one job here.
"""

from __future__ import annotations

import threading
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.models import Work
from prioris.provenance import REFERENCE_MANAGERS, ranked
from prioris.storage import labels as label_store
from prioris.storage import records as record_store


def check_format(fmt: str) -> None:
    """An export format must be one :mod:`prioris.export` writes (else invalid_request,
    listing them)."""
    from prioris.export import FORMATS

    if fmt not in FORMATS:
        raise InvalidRequestError(f"unknown export format {fmt!r}; accepted: {', '.join(FORMATS)}")


def with_own_records(conn: Any, lock: threading.RLock, works: list[Work]) -> list[Work]:
    """The works, each carrying its reference manager's record (the newest of the best
    tier) in ``extra["own_record"]`` and that record's URL in ``extra["url"]``: the
    exporters write what the user wrote there (their DOI spelling, URL, names split their
    way, a BibTeX entry's own fields) wherever the library's merged value still agrees
    with it (:mod:`prioris.export.own`)."""
    import dataclasses

    out: list[Work] = []
    with lock:
        for work in works:
            records = record_store.records_of(conn, work.id)
            origin = next((o for o in ranked(records) if o in REFERENCE_MANAGERS), None)
            if origin is None:
                out.append(work)
                continue
            record = dict(records[origin])
            extra = {**work.extra, "own_record": record}
            if record.get("url"):
                extra["url"] = record["url"]
            out.append(dataclasses.replace(work, extra=extra))
    return out


def render_export(
    conn: Any,
    lock: threading.RLock,
    works: list[Work],
    fmt: str,
    style: str | None,
    *,
    allow_style_file: bool,
) -> str:
    """The works as text in ``fmt``; ``jsonl`` records carry each work's collections,
    tags and notes, read under ``lock``."""
    from prioris.export import render

    works = with_own_records(conn, lock, works)
    labels = None
    if fmt == "jsonl":
        from prioris.storage.notes import notes_of_many

        with lock:
            ids = [w.id for w in works]
            labels = label_store.labels_of_many(conn, ids)
            for work_id, notes in notes_of_many(conn, ids).items():
                labels.setdefault(work_id, {"collections": [], "tags": []})
                labels[work_id]["notes"] = notes  # type: ignore[assignment]
    return render(works, fmt, style, allow_path=allow_style_file, labels=labels)


def cite_works(
    conn: Any, lock: threading.RLock, works: list[Work], style: str | None, fmt: str
) -> dict[str, Any]:
    """``{"format", "style", "items": [{"id", "key", "citation"}], "text"}``: each work's
    citation and all of them together (``style`` only for the ``text`` format)."""
    from prioris.export import cite_each, render

    works = with_own_records(conn, lock, works)
    items = cite_each(works, fmt, style)
    return {
        "format": fmt,
        "style": (style or "apa") if fmt == "text" else None,
        "items": items,
        "text": render(works, fmt, style),
    }
