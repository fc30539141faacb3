"""Alerts, their latest results and the user's triage (``alerts``, ``alert_results``,
``alert_triage``: migration ``0019_alerts.sql``, PostgreSQL ``0017_alerts.sql``).

Plain statements on a connection; the caller holds the library's lock and, where several
statements must land together (a run's results and its ``last_run``), one transaction.
JSON columns (``identifiers``, ``why``, ``last_error``) are read back as Python values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

ALERT_COLUMNS = (
    "name",
    "owner",
    "collection",
    "search",
    "sources",
    "created_at",
    "last_run",
    "last_error",
)
RESULT_COLUMNS = (
    "place",
    "candidate",
    "title",
    "text",
    "url",
    "identifiers",
    "published",
    "score",
    "why",
    "in_library",
    "source",
)
TRIAGE_COLUMNS = ("candidate", "verdict", "title", "text", "identifiers", "decided_at")


def _alert(row: Sequence[Any]) -> dict[str, Any]:
    alert = dict(zip(ALERT_COLUMNS, row, strict=True))
    alert["last_error"] = json.loads(alert["last_error"]) if alert["last_error"] else None
    return alert


def insert_alert(
    conn: Any,
    name: str,
    *,
    owner: str | None,
    collection: str | None,
    search: str | None,
    sources: str,
    now: str,
) -> None:
    conn.execute(
        "INSERT INTO alerts(name, owner, collection, search, sources, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (name, owner, collection, search, sources, now),
    )


def get_alert(conn: Any, name: str) -> dict[str, Any] | None:
    columns = ", ".join(ALERT_COLUMNS)
    row = conn.execute(f"SELECT {columns} FROM alerts WHERE name = ?", (name,)).fetchone()
    return _alert(row) if row else None


def list_alerts(conn: Any) -> list[dict[str, Any]]:
    """Every alert by name, each with its stored results' count."""
    columns = ", ".join(f"a.{c}" for c in ALERT_COLUMNS)
    rows = conn.execute(
        f"SELECT {columns}, (SELECT COUNT(*) FROM alert_results r WHERE r.alert = a.name) "
        "FROM alerts a ORDER BY a.name"
    ).fetchall()
    return [{**_alert(r[:-1]), "results": int(r[-1])} for r in rows]


def delete_alert(conn: Any, name: str) -> bool:
    """Drop an alert with its results and triage; False when there was none."""
    conn.execute("DELETE FROM alert_results WHERE alert = ?", (name,))
    conn.execute("DELETE FROM alert_triage WHERE alert = ?", (name,))
    return bool(conn.execute("DELETE FROM alerts WHERE name = ?", (name,)).rowcount)


def set_error(conn: Any, name: str, error: Mapping[str, Any]) -> None:
    """Remember a failed run's error; results and ``last_run`` are not touched."""
    conn.execute("UPDATE alerts SET last_error = ? WHERE name = ?", (json.dumps(error), name))


def replace_results(conn: Any, name: str, when: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """A successful run: the alert's results become ``rows`` (best first), ``last_run``
    ``when`` and its error is cleared; nothing when the alert was removed meanwhile. Call
    inside one transaction."""
    updated = conn.execute(
        "UPDATE alerts SET last_run = ?, last_error = NULL WHERE name = ?", (when, name)
    )
    if not updated.rowcount:
        return
    conn.execute("DELETE FROM alert_results WHERE alert = ?", (name,))
    placeholders = ", ".join("?" for _ in range(len(RESULT_COLUMNS) + 1))
    conn.executemany(
        f"INSERT INTO alert_results(alert, {', '.join(RESULT_COLUMNS)}) VALUES ({placeholders})",
        [
            (
                name,
                place,
                row["id"],
                row.get("title") or "",
                row.get("text") or "",
                row.get("url"),
                json.dumps(list(row.get("identifiers") or ())),
                row.get("published"),
                float(row["score"]),
                json.dumps(row.get("why") or {}),
                1 if row.get("in_library") else 0,
                row.get("source") or "",
            )
            for place, row in enumerate(rows, 1)
        ],
    )


def _result(row: Sequence[Any]) -> dict[str, Any]:
    found = dict(zip(RESULT_COLUMNS, row, strict=True))
    found["id"] = found.pop("candidate")
    found["identifiers"] = json.loads(found["identifiers"])
    found["why"] = json.loads(found["why"])
    found["in_library"] = bool(found["in_library"])
    found["score"] = float(found["score"])
    return found


def results(conn: Any, name: str) -> list[dict[str, Any]]:
    """The alert's stored results, best first."""
    rows = conn.execute(
        f"SELECT {', '.join(RESULT_COLUMNS)} FROM alert_results WHERE alert = ? ORDER BY place",
        (name,),
    ).fetchall()
    return [_result(r) for r in rows]


def result(conn: Any, name: str, candidate: str) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {', '.join(RESULT_COLUMNS)} FROM alert_results WHERE alert = ? AND candidate = ?",
        (name, candidate),
    ).fetchone()
    return _result(row) if row else None


def drop_result(conn: Any, name: str, candidate: str) -> None:
    conn.execute("DELETE FROM alert_results WHERE alert = ? AND candidate = ?", (name, candidate))


def mark_in_library(conn: Any, name: str, candidate: str) -> None:
    conn.execute(
        "UPDATE alert_results SET in_library = 1 WHERE alert = ? AND candidate = ?",
        (name, candidate),
    )


def record_triage(conn: Any, name: str, verdict: str, found: Mapping[str, Any], now: str) -> None:
    """Remember ``verdict`` ('accepted' or 'dismissed') on a candidate (a stored result's
    row), replacing an earlier one on the same candidate."""
    conn.execute(
        "INSERT INTO alert_triage(alert, candidate, verdict, title, text, identifiers, "
        "decided_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(alert, candidate) DO UPDATE "
        "SET verdict = excluded.verdict, decided_at = excluded.decided_at",
        (
            name,
            found["id"],
            verdict,
            found.get("title") or "",
            found.get("text") or "",
            json.dumps(list(found.get("identifiers") or ())),
            now,
        ),
    )


def triage(conn: Any, name: str) -> list[dict[str, Any]]:
    """What the user decided on the alert's candidates, oldest first."""
    rows = conn.execute(
        f"SELECT {', '.join(TRIAGE_COLUMNS)} FROM alert_triage WHERE alert = ? "
        "ORDER BY decided_at, candidate",
        (name,),
    ).fetchall()
    out = []
    for row in rows:
        item = dict(zip(TRIAGE_COLUMNS, row, strict=True))
        item["id"] = item.pop("candidate")
        item["identifiers"] = json.loads(item["identifiers"])
        out.append(item)
    return out


def copy_rows(src: Any, dst: Any) -> None:
    """Every alert with its results and triage, from ``src`` to ``dst`` (``prioris
    migrate-to``), inside the caller's transaction; a resumed copy adds none twice."""
    for table, columns in (
        ("alerts", ALERT_COLUMNS),
        ("alert_results", ("alert", *RESULT_COLUMNS)),
        ("alert_triage", ("alert", *TRIAGE_COLUMNS)),
    ):
        names = ", ".join(columns)
        rows = [tuple(r) for r in src.execute(f"SELECT {names} FROM {table}")]
        marks = ", ".join("?" for _ in columns)
        dst.executemany(
            f"INSERT INTO {table}({names}) VALUES ({marks}) ON CONFLICT DO NOTHING", rows
        )
