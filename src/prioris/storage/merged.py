"""A work's merged record written back: its records merged by :mod:`prioris.provenance`.

:func:`apply_records` is what every path that changes a work's sources calls once its
records are saved (ingest, ``ingest --force``, enrich, edit, undo, fetch, import): the
``works`` row takes the merged fields and ``origins``, the aliases follow the merged ids
(an id the user set or cleared removes the other ids of that kind), and the chunks'
copies of the year follow. Runs inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.models import Work
from prioris.provenance import (
    ALIASES,
    ID_FIELDS,
    USER,
    WORK_FIELDS,
    Merged,
    alias_of,
    fields_of,
    merge_records,
)
from prioris.storage import chunks as chunk_store
from prioris.storage import records as record_store
from prioris.storage import works as work_store


def apply_records(
    conn: Any,
    work_id: str,
    now: str,
    *,
    base: Mapping[str, Any] | None = None,
    base_origins: Mapping[str, str] | None = None,
) -> Work:
    """Write the merge of a work's records into its row and aliases; returns the work.

    ``base`` (default: the stored fields and origins) fills what no record has; undo
    passes the fields from before the edit. A work without any record (stored before
    records were kept) and no ``base`` is left as it is.
    """
    work = work_store.get_work(conn, work_id)
    if work is None:
        raise LookupError(work_id)
    records = record_store.records_of(conn, work_id)
    if not records and base is None:
        return work
    if base is None:
        base, base_origins = fields_of(work), work.origins
    merged = merge_records(records, base, base_origins)
    updates: dict[str, Any] = {}
    for name in WORK_FIELDS:
        if merged.fields[name] != getattr(work, name):
            updates[name] = merged.fields[name]
    if merged.origins != work.origins:
        updates["origins"] = merged.origins
    if updates:
        values = [
            json.dumps(v, ensure_ascii=False) if n in ("authors", "keywords", "origins") else v
            for n, v in updates.items()
        ]
        assignments = ", ".join(f"{name} = ?" for name in updates)
        conn.execute(
            f"UPDATE works SET {assignments}, updated_at = ? WHERE id = ?",
            (*values, now, work_id),
        )
        if "year" in updates:  # the title reaches the full-text index through a trigger
            chunk_store.update_work_fields(conn, work_id, merged.fields["title"], updates["year"])
    _follow_ids(conn, work, merged)
    stored = work_store.get_work(conn, work_id)
    assert stored is not None
    return stored


def _follow_ids(conn: Any, work: Work, merged: Merged) -> None:
    """Aliases after the merge: every merged id is an alias (kept by its owner when another
    work has it); an id the user set or cleared drops the work's other ids of its kind."""
    wanted = []
    for name in ID_FIELDS:
        value = merged.fields.get(name)
        keep = _alias(name, value) if value else None
        if keep:
            wanted.append(keep)
        if merged.origins.get(name) != USER:
            continue
        for alias in work.aliases:
            if alias.startswith(ALIASES[name]) and alias != keep:
                conn.execute(
                    "DELETE FROM aliases WHERE alias = ? AND work_id = ?", (alias, work.id)
                )
    work_store.add_aliases(conn, work.id, wanted)


def _alias(name: str, value: str) -> str:
    try:
        return alias_of(name, value)
    except InvalidRequestError:  # a stored value is taken as it is
        return ALIASES[name] + value
