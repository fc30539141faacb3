"""What an alert remembers and the small steps of its run, beside
:mod:`prioris.services.alerts`: :class:`AlertStore` (the library's
:class:`~prioris.alerts.protocols.AlertState`: last run, dismissals, a run's results
stored in one transaction, a failure's error), the seeds of ``openalex-cites``, the
identifier an accepted candidate is fetched by and a ranking turned into stored rows."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from prioris.alerts.protocols import Candidate
from prioris.errors import InvalidRequestError, PriorisError
from prioris.identifiers import parse_identifier
from prioris.storage import alerts as store
from prioris.storage import labels as label_store
from prioris.storage.transaction import immediate

FETCHABLE = ("arxiv", "europepmc", "pmid", "doi", "openalex")
"""Identifier schemes accepting a candidate fetches by, in the order tried."""


class AlertStore:
    """What an alert remembers between runs, over the library's storage: the
    :class:`~prioris.alerts.protocols.AlertState` of this library."""

    def __init__(self, conn: Any, lock: threading.RLock) -> None:
        self.conn = conn
        self.lock = lock

    def last_run(self, alert: str) -> str | None:
        """The moment of the alert's last successful run (None: never run)."""
        with self.lock:
            found = store.get_alert(self.conn, alert)
        return found["last_run"] if found else None

    def dismissed(self, alert: str) -> set[str]:
        """Every id and identifier of the candidates dismissed for the alert."""
        with self.lock:
            rows = store.triage(self.conn, alert)
        return {
            k for t in rows if t["verdict"] == "dismissed" for k in (t["id"], *t["identifiers"])
        }

    def record_run(self, alert: str, when: str, ranked: Sequence[Any]) -> None:
        """A successful run: ``ranked`` (result rows, best first: ``{"id", "title",
        "score", "why", "in_library", ...}``) replaces the alert's results and ``when``
        becomes its last run, both in one transaction."""
        with self.lock, immediate(self.conn):
            store.replace_results(self.conn, alert, when, ranked)

    def record_error(self, alert: str, error: Mapping[str, Any]) -> None:
        """A failed run: its error is remembered; results and last run stay."""
        with self.lock, immediate(self.conn):
            store.set_error(self.conn, alert, error)


def error_of(exc: PriorisError) -> dict[str, Any]:
    return {**exc.to_dict(), "source": getattr(exc, "source", None)}


def fetchable(found: Mapping[str, Any]) -> str:
    """The identifier an accepted candidate is fetched by (arXiv, Europe PMC, DOI, ...)."""
    known: dict[str, str] = {}
    for value in (found["id"], *found["identifiers"]):
        try:
            ident = parse_identifier(value)
        except InvalidRequestError:
            continue
        known.setdefault(ident.scheme, ident.canonical)
    for scheme in FETCHABLE:
        if scheme in known:
            return known[scheme]
    raise InvalidRequestError(
        f"candidate {found['id']!r} carries no identifier Prioris can fetch (arXiv, Europe "
        "PMC, DOI, OpenAlex); ingest it by hand or dismiss it"
    )


def seeds_of(conn: Any, lock: threading.RLock, collection: str | None) -> list[str]:
    """The ids and aliases of the collection's works (what openalex-cites asks about);
    [] when it holds no work."""
    if collection is None:
        return []
    with lock:
        members = sorted(label_store.works_in(conn, collections=(collection,), tags=()) or ())
        aliases: list[str] = []
        for at in range(0, len(members), 500):
            part = members[at : at + 500]
            marks = ", ".join("?" for _ in part)
            aliases += [
                r[0]
                for r in conn.execute(
                    f"SELECT alias FROM aliases WHERE work_id IN ({marks}) ORDER BY alias",
                    part,
                )
            ]
    return list(dict.fromkeys([*members, *aliases]))


def result_rows(ranked: Sequence[Mapping[str, Any]], pool: Sequence[Candidate]) -> list[dict]:
    """A profile's ranked candidates (``rank_alerts``' ``{"id", "title", "score", "why",
    "in_library", "link"?}``) with what the results keep of each candidate: its text (for
    a later triage), link, identifiers, date and source."""
    by_id = {c.id: c for c in pool}
    rows = []
    for item in ranked:
        cand = by_id[item["id"]]
        url = item.get("link") or cand.extra.get("url") or cand.extra.get("link")
        rows.append(
            {
                **item,
                "text": cand.text,
                "url": url or None,
                "identifiers": list(cand.identifiers),
                "published": cand.published,
                "source": cand.source,
            }
        )
    return rows
