"""Alerts that run and remember (issue 37): what ``prioris alerts add/run/list/show/accept/
dismiss/feed``, MCP ``research_alerts`` and the web app's Alerts page call.

An alert is a name, the profile it ranks for and its sources (:mod:`prioris.alerts.spec`):

* ``collection``: candidates are ranked for that collection (a model trained on its works
  against the rest of the library, :class:`~prioris.services.alerts_ranking.AlertsRanking`);
* ``search``: a saved search. Its query is the alert's source (``search:"query"``: the
  query re-run on arXiv, Europe PMC and, with a key, OpenAlex, beside any ``sources``
  given) and the profile is the whole library: a search names no works to train on, while
  the library says what its owner reads.

A run (:meth:`Alerts.alerts_run`) asks each source for what is new since the alert's last
successful run (or ``since``), drops what the user dismissed for that alert, ranks the rest
with every accept (a positive) and dismissal (a negative) remembered, marks what the
library already holds, and stores the results and ``last_run`` in ONE transaction. A
source that fails leaves the previous results and ``last_run`` as they were; the run's
report, and the alert's ``last_error``, name the source and carry its error's code.

Lab mode (accounts): an alert belongs to the account that made it. Every account may read
every collection (roles are reader < writer < admin, with no per-collection rights), so an
alert may rank for any collection; what is enforced is that an account other than an
admin sees, runs, triages and removes only its own alerts (another's answers as not
found). ``account=None`` is the local user, who sees every alert.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prioris.alerts.protocols import Candidate
from prioris.alerts.source_kit import DEFAULT_MAX_RESULTS, distinct, failing_as
from prioris.alerts.when import check_since
from prioris.errors import InvalidRequestError, NotFoundError, ParseError, PriorisError
from prioris.services.alert_state import (
    AlertStore,
    error_of,
    fetchable,
    result_rows,
    seeds_of,
)
from prioris.services.alerts_ranking import LIBRARY, MAX_K
from prioris.storage import alerts as store
from prioris.storage.transaction import immediate

if TYPE_CHECKING:  # the sources' module pulls in the HTTP layer: imported when used
    from prioris.alerts.spec import AlertClients

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""An alert's name: it appears in URLs (``/alerts/NAME.atom``) and on command lines."""
DEFAULT_K = 50
"""Ranked candidates a run keeps per alert unless told otherwise."""


class Alerts:
    """Alerts: made, listed, run, triaged, removed and read as a feed."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        now: Callable[[], str],
        *,
        rank: Callable[..., list[dict[str, Any]]],
        clients: Callable[[str | None], AlertClients],
        fetch_one: Callable[[str], Any],
        allowed_roots: Sequence[str | Path] = (),
        max_results: int = DEFAULT_MAX_RESULTS,
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.now = now
        self.rank = rank
        self.clients = clients
        self.fetch_one = fetch_one
        self.allowed_roots = list(allowed_roots)
        self.max_results = max_results
        self.state = AlertStore(conn, lock)

    # -- who sees what -----------------------------------------------------------------
    def _is_admin(self, account: str) -> bool:
        from prioris.storage.accounts import get_account

        with self.lock:
            found = get_account(self.conn, account)
        return found is not None and found.role == "admin" and not found.revoked_at

    def _visible(self, alert: Mapping[str, Any], account: str | None) -> bool:
        return account is None or alert["owner"] == account or self._is_admin(account)

    def _alert(self, name: str, account: str | None) -> dict[str, Any]:
        if not isinstance(name, str) or not name:
            raise InvalidRequestError("an alert's name is needed")
        with self.lock:
            found = store.get_alert(self.conn, name)
        if found is None or not self._visible(found, account):
            raise NotFoundError(f"no alert {name!r} (prioris alerts list shows them)")
        return found

    def _roots(self, owner: str | None) -> list[str | Path] | None:
        """The folders an alert's files may lie in: any for the local user's, the import
        folders (PRIORIS_MCP_ALLOWED_IMPORT_DIRS) for an account's."""
        return None if owner is None else self.allowed_roots

    # -- making and reading alerts -----------------------------------------------------
    def alerts_add(
        self,
        name: str,
        *,
        collection: str | None = None,
        search: str | None = None,
        sources: str | None = None,
        account: str | None = None,
    ) -> dict[str, Any]:
        """Make an alert named ``name`` (letters, digits, ``.``, ``_``, ``-``; at most 64)
        for a ``collection`` (its path or last name; it must hold works) or a saved
        ``search``, exactly one of them. ``sources`` (``arxiv:cs.LG,europepmc:"q",
        openalex-cites,feed:URL,jsonl:PATH``) is checked now; a collection alert needs it,
        a search alert adds ``search:"query"`` to it. ``account``: its owner in accounts
        mode. Returns the alert as :meth:`alerts_show` does (no results yet)."""
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InvalidRequestError(
                f"alert name {name!r}: 1 to 64 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit"
            )
        if (collection is None) == (search is None):
            raise InvalidRequestError("an alert needs a collection or a search (one of them)")
        from prioris.alerts.spec import SourceSpec, confined_path, parse_sources

        items: list[SourceSpec] = parse_sources(sources) if sources else []
        if search is not None:
            if not isinstance(search, str) or not search.strip():
                raise InvalidRequestError("the alert's search is empty")
            search = search.strip()
            items = [*parse_sources(SourceSpec("search", search, True).text), *items]
        elif not items:
            raise InvalidRequestError(
                "a collection alert needs --sources (e.g. arxiv:cs.LG,openalex-cites)"
            )
        elif not seeds_of(self.conn, self.lock, collection):
            raise NotFoundError(f"no collection {collection!r} with works in the library")
        if search is not None and any(i.kind == "openalex-cites" for i in items):
            raise InvalidRequestError("openalex-cites needs a collection, not a search")
        roots = self._roots(account)
        for item in items:  # a file source outside an account's folders is refused now
            if roots is not None and item.kind in ("jsonl", "feed") and "://" not in item.value:
                confined_path(item.value, roots)
        spec = ",".join(dict.fromkeys(i.text for i in items))
        with self.lock, immediate(self.conn):
            if store.get_alert(self.conn, name) is not None:
                raise InvalidRequestError(f"an alert named {name!r} exists already")
            store.insert_alert(
                self.conn,
                name,
                owner=account,
                collection=collection,
                search=search,
                sources=spec,
                now=self.now(),
            )
        return self.alerts_show(name, account=account)

    def alerts_remove(self, name: str, *, account: str | None = None) -> dict[str, Any]:
        """Remove an alert with its results and what was accepted or dismissed for it
        (works accepted into the library stay there)."""
        self._alert(name, account)
        with self.lock, immediate(self.conn):
            store.delete_alert(self.conn, name)
        return {"removed": name}

    def alerts_list(self, *, account: str | None = None) -> list[dict[str, Any]]:
        """Every alert ``account`` may see (all for the local user and admins), by name:
        ``{"name", "owner", "collection", "search", "sources", "created_at", "last_run",
        "last_error", "results"}`` (``results``: how many the last run stored)."""
        with self.lock:
            every = store.list_alerts(self.conn)
        return [a for a in every if self._visible(a, account)]

    def alerts_show(self, name: str, *, account: str | None = None) -> dict[str, Any]:
        """One alert and its last run's results, best first: the alert's fields, then
        ``results`` (``[{"place", "id", "title", "text", "url", "identifiers",
        "published", "score", "why", "in_library", "source"}]``), ``accepted`` and
        ``dismissed`` (the candidates' ids, oldest decision first)."""
        alert = self._alert(name, account)
        with self.lock:
            results = store.results(self.conn, name)
            triaged = store.triage(self.conn, name)
        return {
            **alert,
            "results": results,
            "accepted": [t["id"] for t in triaged if t["verdict"] == "accepted"],
            "dismissed": [t["id"] for t in triaged if t["verdict"] == "dismissed"],
        }

    def alerts_feed(self, name: str, *, account: str | None = None) -> str:
        """The alert's stored results as an Atom feed (RFC 4287), for a feed reader; its
        ``updated`` is the last run (or the alert's creation)."""
        from prioris.alerts.atom import atom_feed

        shown = self.alerts_show(name, account=account)
        moment = check_since(shown["last_run"] or shown["created_at"]) or ""
        items = [{**r, **({"link": r["url"]} if r["url"] else {})} for r in shown["results"]]
        return atom_feed(name, items, moment)

    # -- triage ------------------------------------------------------------------------
    def _stored(self, name: str, candidate: str, account: str | None) -> dict[str, Any]:
        self._alert(name, account)
        with self.lock:
            found = store.result(self.conn, name, candidate)
        if found is None:
            raise NotFoundError(
                f"no candidate {candidate!r} among alert {name!r}'s results (alerts show)"
            )
        return found

    def alerts_dismiss(
        self, name: str, candidate: str, *, account: str | None = None
    ) -> dict[str, Any]:
        """Dismiss one of the alert's results: it leaves the results now, is never shown
        again for this alert (by its id or any identifier), and is a negative in the
        alert's next rankings (its title and text are kept for that)."""
        found = self._stored(name, candidate, account)
        with self.lock, immediate(self.conn):
            store.record_triage(self.conn, name, "dismissed", found, self.now())
            store.drop_result(self.conn, name, candidate)
        return {"alert": name, "dismissed": candidate}

    def alerts_accept(
        self, name: str, candidate: str, *, account: str | None = None
    ) -> dict[str, Any]:
        """Accept one of the alert's results: fetch it into the library (the same fetch as
        ``prioris fetch``, by its arXiv, Europe PMC, DOI or OpenAlex identifier), mark it
        in the library and remember it as a positive of the alert's next rankings. A
        failed fetch raises its error and remembers nothing."""
        found = self._stored(name, candidate, account)
        fetched = self.fetch_one(fetchable(found))
        with self.lock, immediate(self.conn):
            store.record_triage(self.conn, name, "accepted", found, self.now())
            store.mark_in_library(self.conn, name, candidate)
        return {
            "alert": name,
            "accepted": candidate,
            "work_id": fetched.id,
            "status": fetched.status,
        }

    # -- running -----------------------------------------------------------------------
    def alerts_run(
        self,
        name: str | None = None,
        *,
        since: str | None = None,
        k: int = DEFAULT_K,
        account: str | None = None,
        on_progress: Callable[[str], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Run one alert (``name``) or every alert ``account`` sees, each on its own:
        ``[{"alert", "ok", "since", "candidates", "results", "last_run", "notes",
        "error"}]``. ``since`` (a day or ISO moment) overrides each alert's last run;
        ``k``: results kept. A failed alert has ``ok`` false and ``error`` ``{"code",
        "message", "source"}`` (``source``: the failing source's name, None when the
        failure was not a source's); its previous results and last run stay. Progress
        goes to ``on_progress`` (a line each)."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidRequestError(f"k must be between 1 and {MAX_K}, got {k!r}")
        since = check_since(since)
        alerts = (
            [self._alert(name, account)] if name is not None else self.alerts_list(account=account)
        )
        say = on_progress or (lambda _line: None)
        return [self._run_one(alert, since, k, say) for alert in alerts]

    def _run_one(
        self, alert: Mapping[str, Any], since: str | None, k: int, say: Callable[[str], None]
    ) -> dict[str, Any]:
        name = alert["name"]
        asked = since or alert["last_run"]
        report: dict[str, Any] = {"alert": name, "since": asked, "notes": []}
        try:
            pool = self._gather(alert, asked, say, report["notes"])
            rows = self._rank(alert, pool, k)
        except PriorisError as exc:
            error = error_of(exc)
            self.state.record_error(name, error)
            say(f"{name}: failed: {error['message']}")
            return {**report, "ok": False, "last_run": alert["last_run"], "error": error}
        when = self.now()
        self.state.record_run(name, when, rows)
        say(f"{name}: {len(rows)} result(s) stored from {len(pool)} candidate(s)")
        return {
            **report,
            "ok": True,
            "candidates": len(pool),
            "results": len(rows),
            "last_run": when,
            "error": None,
        }

    def _gather(
        self,
        alert: Mapping[str, Any],
        since: str | None,
        say: Callable[[str], None],
        notes: list[str],
    ) -> list[Candidate]:
        """Every source's candidates since ``since``, without repeats or dismissals; the
        first failing source stops the run, named."""
        from prioris.alerts.spec import build_source, parse_sources

        name, owner = alert["name"], alert["owner"]
        items = parse_sources(alert["sources"])
        clients = self.clients(owner)
        seeds = seeds_of(self.conn, self.lock, alert["collection"]) if alert["collection"] else None
        found: list[Candidate] = []
        for item in items:
            with failing_as(item.text):
                try:
                    source = build_source(
                        item,
                        clients,
                        seeds=seeds,
                        max_results=self.max_results,
                        allowed_roots=self._roots(owner),
                    )
                    say(f"{name}: asking {item.text} since {since or 'the start'}")
                    got = list(source.candidates(since))
                except PriorisError:
                    raise
                except Exception as exc:  # a source's bug must not stop the other alerts
                    raise ParseError(f"unexpected {type(exc).__name__}: {exc}") from exc
            got = [c if c.source else replace(c, source=item.text) for c in got]
            notes += [f"{item.text}: {n}" for n in getattr(source, "notes", [])]
            say(f"{name}: {len(got)} candidate(s) from {item.text}")
            found += got
        hidden = self.state.dismissed(name)
        return [c for c in distinct(found) if not ({c.id, *c.identifiers} & hidden)]

    def _rank(
        self, alert: Mapping[str, Any], pool: Sequence[Candidate], k: int
    ) -> list[dict[str, Any]]:
        """The pool ranked for the alert's profile with its remembered triage, as rows."""
        profile = alert["collection"] or LIBRARY
        with self.lock:
            triaged = store.triage(self.conn, alert["name"])
        feedback = [Candidate(t["id"], t["title"], t["text"]) for t in triaged]
        by_verdict = {
            verdict: [t["id"] for t in triaged if t["verdict"] == verdict]
            for verdict in ("accepted", "dismissed")
        }
        (ranking,) = self.rank(
            list(pool),
            [profile],
            k,
            feedback=feedback,
            accepted={profile: by_verdict["accepted"]},
            dismissed={profile: by_verdict["dismissed"]},
        )
        return result_rows(ranking["candidates"], pool)
