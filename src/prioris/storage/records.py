"""Per-source records of a work: what its PDF printed and what each provider said.

One row per (work, origin); ``origin`` is ``printed`` or a provider name. The ``works`` row
is the merged record shown everywhere; these rows keep what it was merged from, so a
provider's answer never erases what the paper itself printed (and the reverse).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def save_records(conn: Any, work_id: str, records: Mapping[str, Any], now: str) -> None:
    """Store or replace records by origin (inside the caller's transaction)."""
    conn.executemany(
        "INSERT INTO work_records(work_id, origin, record, recorded_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(work_id, origin) DO UPDATE SET record = excluded.record, "
        "recorded_at = excluded.recorded_at",
        [
            (work_id, origin, json.dumps(record, ensure_ascii=False, default=str), now)
            for origin, record in records.items()
        ],
    )


def records_of(conn: Any, work_id: str) -> dict[str, dict[str, Any]]:
    """``{origin: record}`` of a work, each record with its ``recorded_at``."""
    rows = conn.execute(
        "SELECT origin, record, recorded_at FROM work_records WHERE work_id = ? ORDER BY origin",
        (work_id,),
    ).fetchall()
    return {row[0]: {**json.loads(row[1]), "recorded_at": row[2]} for row in rows}
