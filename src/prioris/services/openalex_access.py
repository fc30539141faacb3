"""OpenAlex as the library uses it: keyword and semantic search marked against the
library, and the citation graph over the library's cache and daily request budget
(:mod:`prioris.services.openalex_graph`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from prioris.config import Settings
from prioris.errors import ConfigurationError, QuotaExceededError


class OpenAlexAccess:
    """The OpenAlex client, its cache and budget for one library."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        settings: Settings,
        now: Callable[[], str],
        *,
        remote: Callable[[], Any],
        known_aliases: Callable[..., Any],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.settings = settings
        self.now = now
        self._remote = remote  # the providers, built on first use
        self.known_aliases = known_aliases

    @property
    def remote(self) -> Any:
        return self._remote()

    def openalex_client(self) -> Any:
        """The OpenAlex client of :attr:`remote` (semantic search spaced as ``discovery``)."""
        return self.remote.openalex

    def discover(
        self,
        text: str,
        *,
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
        open_access_only: bool = False,
    ) -> Any:
        """OpenAlex semantic search marked against this library (a ``DiscoveryPage``)."""
        from prioris.discovery import DiscoveryService

        service = DiscoveryService(self.openalex_client(), self.known_aliases)
        return service.discover(
            text,
            page=page,
            per_page=per_page,
            from_year=from_year,
            to_year=to_year,
            open_access_only=open_access_only,
        )

    def openalex_search(
        self,
        query: str,
        *,
        sort: str = "relevance",
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
    ) -> Any:
        """OpenAlex keyword search (``sort``: relevance, or citations), nothing stored."""
        sort = {"citations": "cited_by_count"}.get(sort, sort)
        return self.openalex_client().search(
            query, sort=sort, page=page, per_page=per_page, from_year=from_year, to_year=to_year
        )

    def openalex_work_types(self) -> list[dict[str, Any]]:
        """OpenAlex's work-type vocabulary (reference data for interpreting hits)."""
        return self.openalex_client().list_work_types()

    # -- the OpenAlex citation graph (:mod:`prioris.services.openalex_graph`) -----------
    def _openalex_budget(self, account: str | None = None) -> Any:
        from prioris.services.openalex_graph import AccountBudget, StoredBudget

        budget = self.settings.openalex_daily_budget
        if account is None:
            return StoredBudget(self.conn, self.lock, self.now, budget)
        share = self.settings.openalex_account_daily_budget
        return AccountBudget(self.conn, self.lock, self.now, budget, account, share)

    def request_budget(self, account: str | None = None) -> Any:
        """The daily OpenAlex request budget (an account's share in accounts mode) that
        a keyword search outside the graph (an alert's ``openalex:`` source) spends."""
        return self._openalex_budget(account)

    def openalex_graph(self, account: str | None = None) -> Any:
        """A new :class:`~prioris.sources.openalex_graph.OpenAlexGraph` (its ``requests``
        count one command's requests) over the library's cache of OpenAlex answers
        (``PRIORIS_MCP_OPENALEX_CACHE_DAYS``, ``PRIORIS_MCP_OPENALEX_CACHE_MAX_BYTES``) and
        its daily request budget, shared by every process
        (``PRIORIS_MCP_OPENALEX_DAILY_BUDGET``); for an ``account`` (accounts mode) at most
        its share of that budget (``PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET``):
        quota_exceeded when the share is already spent today. configuration_error without
        an OpenAlex API key, before anything is built."""
        from prioris.services.openalex_graph import StoredCache
        from prioris.sources.openalex import API_KEY_HELP

        if not self.settings.openalex_api_key:
            raise ConfigurationError(
                f"The citation graph from OpenAlex needs an OpenAlex API key. {API_KEY_HELP}"
            )
        budget = self._openalex_budget(account)
        if account is not None and budget.account_used() >= budget.share:
            raise QuotaExceededError(
                f"account {account!r} has taken its share of today's OpenAlex requests "
                f"({budget.share} of the library's {budget.budget} a UTC day, "
                "PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET); run it offline, or tomorrow"
            )
        settings = self.settings
        cache = StoredCache(
            self.conn,
            self.lock,
            self.now,
            settings.openalex_cache_days,
            settings.openalex_cache_max_bytes,
        )
        return self.remote.openalex_graph(cache, budget)

    def clean_openalex_cache(self) -> dict[str, int]:
        """Drop the cached OpenAlex answers older than ``PRIORIS_MCP_OPENALEX_CACHE_DAYS``
        and, past ``PRIORIS_MCP_OPENALEX_CACHE_MAX_BYTES``, the oldest down to three
        quarters of it (``prioris reindex --openalex-cache``; writes do it as they go).
        Returns ``{expired, evicted, entries, bytes}`` (what is left)."""
        from prioris.services.openalex_graph import clean

        settings = self.settings
        return clean(
            self.conn,
            self.lock,
            self.now,
            settings.openalex_cache_days,
            settings.openalex_cache_max_bytes,
        )

    def usage(self) -> dict[str, int]:
        """Today's OpenAlex requests against the daily budget (what ``status`` shows)."""
        from prioris.services.openalex_graph import usage

        return usage(self._openalex_budget())
