"""The OpenAlex graph's cache and daily budget, kept in the library's database.

:class:`StoredCache` and :class:`StoredBudget` implement the two small protocols that
:class:`~prioris.sources.openalex_graph.OpenAlexGraph` is given (sources never import
storage) over ``openalex_cache`` and ``openalex_requests``
(:mod:`prioris.storage.openalex_cache`). Both live in the library, not in a process, so
the CLI, the MCP server and the web app share one cache and one count: a request taken by
one process is gone for the others that day. Time comes from the library's injected
``now`` (an ISO-8601 UTC timestamp), so tests move the clock instead of waiting.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from prioris.storage import openalex_cache as store
from prioris.storage.transaction import immediate


def _moment(now: Callable[[], str]) -> datetime:
    moment = datetime.fromisoformat(now())
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def utc_day(now: Callable[[], str]) -> str:
    """Today's UTC date (``2026-12-01``): the day OpenAlex's allowance is counted by."""
    return _moment(now).date().isoformat()


class StoredCache:
    """OpenAlex answers in ``openalex_cache``, fresh for ``days`` days (0: nothing kept),
    their bodies at most ``max_bytes``: the first write of each object and every write
    after another eighth of the bound drops the expired answers and, past the bound, the
    oldest down to three quarters of it (:func:`prune`). So a cache grows by at most an
    eighth past its bound between checks, and a check (a scan of the table) is paid once
    per command and per eighth written, not per answer."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        now: Callable[[], str],
        days: int,
        max_bytes: int = 256 << 20,
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.now = now
        self.days = days
        self.max_bytes = max_bytes
        self._written: int | None = None  # bytes written since the last check (None: none)

    def get(self, key: str) -> str | None:
        if self.days <= 0:
            return None
        oldest = _moment(self.now) - timedelta(days=self.days)
        with self.lock:
            return store.cached(self.conn, key, oldest.isoformat(timespec="seconds"))

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        if self.days <= 0 or not keys:
            return {}
        oldest = _moment(self.now) - timedelta(days=self.days)
        with self.lock:
            return store.cached_many(self.conn, list(keys), oldest.isoformat(timespec="seconds"))

    def put(self, key: str, body: str) -> None:
        self.put_many([(key, body)])

    def put_many(self, items: Sequence[tuple[str, str]]) -> None:
        """Keep the answers in one transaction (a page's works: one commit, not a hundred)."""
        if self.days <= 0 or not items:
            return
        stamp = _moment(self.now).isoformat(timespec="seconds")
        written = sum(len(body) for _, body in items)
        with self.lock, immediate(self.conn):
            store.store_many(self.conn, list(items), stamp)
            if self._written is None or self._written + written >= self.max_bytes // 8:
                self._written = 0
                prune(self.conn, self.now, self.days, self.max_bytes)
            else:
                self._written += written


def prune(conn: Any, now: Callable[[], str], days: int, max_bytes: int) -> dict[str, int]:
    """Drop the answers older than ``days`` (never read again) and, past ``max_bytes``, the
    oldest down to three quarters of it; in the caller's write transaction."""
    oldest = (_moment(now) - timedelta(days=max(days, 0))).isoformat(timespec="seconds")
    return store.prune(conn, oldest, max_bytes, max_bytes * 3 // 4)


def clean(
    conn: Any, lock: threading.RLock, now: Callable[[], str], days: int, max_bytes: int
) -> dict[str, int]:
    """``prioris reindex --openalex-cache``: :func:`prune` now, in its own transaction."""
    with lock, immediate(conn):
        return prune(conn, now, days, max_bytes)


class StoredBudget:
    """Today's requests in ``openalex_requests``, at most ``budget`` a UTC day; taking one
    is one statement in a write transaction, so two processes never both take the last."""

    def __init__(
        self, conn: Any, lock: threading.RLock, now: Callable[[], str], budget: int
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.now = now
        self.budget = budget

    def take(self) -> bool:
        day = utc_day(self.now)
        with self.lock, immediate(self.conn):
            return store.take_request(self.conn, day, self.budget)

    def used(self) -> int:
        with self.lock:
            return store.requests_on(self.conn, utc_day(self.now))

    def left(self) -> int:
        return max(0, self.budget - self.used())


class AccountBudget(StoredBudget):
    """The library's budget, of which ``account`` may take ``share`` requests a UTC day
    (accounts mode): each request is counted for both in one write transaction, so an
    account never takes past its share nor the library past its budget. ``account_spent``
    says the share (not the library's budget) refused a request."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        now: Callable[[], str],
        budget: int,
        account: str,
        share: int,
    ) -> None:
        super().__init__(conn, lock, now, budget)
        self.account = account
        self.share = share
        self.account_spent = False

    def take(self) -> bool:
        day = utc_day(self.now)
        with self.lock, immediate(self.conn):
            taken = store.take_account_request(
                self.conn, day, self.account, self.budget, self.share
            )
        self.account_spent = self.account_spent or taken == "account"
        return taken == "ok"

    def account_used(self) -> int:
        with self.lock:
            return store.account_requests_on(self.conn, utc_day(self.now), self.account)

    def left(self) -> int:
        return max(0, min(super().left(), self.share - self.account_used()))


def usage(budget: StoredBudget) -> dict[str, int]:
    """What ``prioris status`` shows of OpenAlex: today's requests and the daily budget."""
    return {"openalex_requests_today": budget.used(), "openalex_daily_budget": budget.budget}
