"""Rows for many keys in a few queries: ``... WHERE column IN (?, ?, ...)`` in groups.

A listing or an export reads something of every work it shows; one query per work is
slow on PostgreSQL (a round trip each) and one query for all of them can pass the
engines' bound on parameters. Groups of :data:`GROUP` keys are neither.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

GROUP = 500


def rows_in(conn: Any, sql: str, keys: Sequence[Any], *, group: int = GROUP) -> Iterator[Any]:
    """The rows of ``sql`` (which ends where ``IN ({marks})`` goes, e.g.
    ``"SELECT ... FROM t WHERE work_id IN ({marks}) ORDER BY ..."``) for every key, each
    distinct key asked once."""
    distinct = list(dict.fromkeys(keys))
    for start in range(0, len(distinct), group):
        part = distinct[start : start + group]
        yield from conn.execute(sql.format(marks=", ".join("?" for _ in part)), part).fetchall()
