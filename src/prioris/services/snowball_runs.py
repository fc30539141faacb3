"""Snowballs as the library runs them: the seeds chosen, OpenAlex's graph joined when
there is a key (else the local graph, with the reason), dismissals remembered
(:class:`~prioris.services.snowball.Snowball` ranks)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from prioris.config import Settings


class SnowballRuns:
    """``Library.snowball``, the dismissals and ``citation_graph``."""

    def __init__(
        self,
        snowballer: Callable[[], Any],
        openalex: Any,
        settings: Settings,
        now: Callable[[], str],
    ) -> None:
        self._snowballer = snowballer  # the ranking (numpy, the graph), built on first use
        self.openalex = openalex
        self.settings = settings
        self.now = now

    @property
    def snowballer(self) -> Any:
        return self._snowballer()

    def _snowball_graph(
        self, offline: bool, graph: Any, account: str | None
    ) -> tuple[Any, str | None]:
        """The OpenAlex graph a snowball reads, or None and why it reads the local one."""
        if graph is not None:
            return graph, None
        if offline:
            return None, "offline was asked for"
        if not self.settings.openalex_api_key:
            return None, "no OpenAlex API key: set PRIORIS_MCP_OPENALEX_API_KEY to go online"
        if account is None:  # the library's budget alone (the CLI, loopback use)
            return self.openalex.openalex_graph(), None
        return self.openalex.openalex_graph(account), None

    def snowball(
        self,
        ids: Sequence[str] = (),
        *,
        all: bool = False,
        collection: str | None = None,
        direction: str = "both",
        limit: int = 25,
        offline: bool = False,
        graph: Any = None,
        account: str | None = None,
    ) -> dict[str, Any]:
        """Works not in the library that the seeds cite (backward) or that cite them
        (forward), ranked and explained (:mod:`prioris.discovery.snowball`); never
        fetches. Seeds: ``ids``, ``all`` works, or a ``collection``. Online (an OpenAlex
        key and not ``offline``) OpenAlex's graph joins the local one; ``graph`` replaces
        the OpenAlex client (tests). ``account`` (accounts mode): its requests count
        against its share of the daily budget (quota_exceeded once spent)."""
        seeds = self.snowballer.seeds(ids, all=all, collection=collection)
        chosen, reason = self._snowball_graph(offline, graph, account)
        return self.snowballer.run(
            seeds, direction=direction, limit=limit, graph=chosen, offline_reason=reason
        )

    def dismiss_candidate(self, key: str, title: str = "") -> dict[str, Any]:
        """Remember a snowball candidate (its ``key``) as not wanted: not shown again."""
        return self.snowballer.dismiss(key, title, self.now())

    def undismiss_candidate(self, key: str) -> dict[str, Any]:
        """Show a dismissed snowball candidate again."""
        return self.snowballer.undismiss(key)

    def citation_graph(
        self,
        candidates: bool = False,
        *,
        limit: int = 50,
        offline: bool = False,
        graph: Any = None,
        account: str | None = None,
    ) -> dict[str, Any]:
        """The library's works and citation edges (``{"nodes", "edges"}``); with
        ``candidates``, a whole-library snowball's top ``limit`` candidates too."""
        answer = None
        if candidates and self.snowballer.has_works():
            answer = self.snowball(
                all=True, limit=limit, offline=offline, graph=graph, account=account
            )
        return self.snowballer.graph(answer)
