"""Candidates from OpenAlex: the works citing a collection's works since the last run, and
a keyword search re-run since a date.

OpenAlex wants an API key on every request and the library allows it a number of requests
a day (``PRIORIS_MCP_OPENALEX_DAILY_BUDGET``, shared by every process and, in accounts
mode, split into shares). Both sources spend that same budget:

* :class:`OpenAlexCitingSource` goes through the citation graph
  (:class:`~prioris.sources.openalex_graph.OpenAlexGraph`), the library's cache and daily
  budget already inside it: ``filter=cites:W1|...|W50,from_publication_date:SINCE``, 50
  seeds a request (OpenAlex's documented OR limit), cursor pages of 100, each page kept in
  the cache so a second run the same day asks nothing again. Seeds given as DOIs are
  first resolved to OpenAlex ids (50 a request, cached for good).
* :class:`OpenAlexSearchSource` goes through the keyword client and takes one request
  from the budget it is given before each page.

When the budget is spent the source returns what it has and says so in ``notes`` (a
partial run, not an error: tomorrow's run starts where the budget allows).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

from prioris.alerts.protocols import Candidate
from prioris.alerts.source_kit import (
    DEFAULT_MAX_RESULTS,
    PagedSource,
    candidate_from_work,
    check_max,
    distinct,
)
from prioris.alerts.when import is_new, since_day
from prioris.errors import InvalidRequestError
from prioris.identifiers import parse_identifier
from prioris.sources.openalex import MAX_PER_PAGE, OpenAlexClient
from prioris.sources.openalex_graph import record_work
from prioris.sources.openalex_graph_cache import RequestBudget


class CitationGraph(Protocol):
    """What the citing source needs of :class:`~prioris.sources.openalex_graph.OpenAlexGraph`."""

    budget_reached: bool
    requests: int
    warnings: list[str]

    def resolve_dois(self, dois: Sequence[str]) -> dict[str, str]: ...

    def citing(
        self, ids: Sequence[str], *, limit: int, since: str | None = None
    ) -> list[dict[str, Any]]: ...


def split_seeds(seeds: Sequence[str]) -> tuple[list[str], list[str]]:
    """(OpenAlex ids ``W123``, DOIs) among ``seeds`` (any form the library writes); other
    identifiers (an arXiv id with no DOI) cannot be asked about and are left out."""
    ids: list[str] = []
    dois: list[str] = []
    for seed in seeds:
        try:
            ident = parse_identifier(seed)
        except InvalidRequestError:
            continue
        if ident.scheme == "openalex":
            ids.append(ident.value)
        elif ident.scheme == "doi":
            dois.append(ident.value)
    return list(dict.fromkeys(ids)), list(dict.fromkeys(dois))


class OpenAlexCitingSource(PagedSource):
    """Works citing any of ``seeds`` published since ``since`` (see the module docstring).

    Costs, in OpenAlex requests a run: ``ceil(DOI seeds / 50)`` to resolve DOIs (once:
    cached), then ``ceil(seeds / 50)`` first pages plus one per further 100 citing works,
    stopping at ``max_results``; cached pages cost nothing.
    """

    def __init__(
        self,
        graph: CitationGraph,
        seeds: Sequence[str],
        *,
        max_results: int = DEFAULT_MAX_RESULTS,
        name: str = "openalex-cites",
    ) -> None:
        self.graph = graph
        self.seeds = list(seeds)
        self.name = name
        self.max_results = check_max(max_results, name)
        self.notes: list[str] = []

    def _collect(self, since: str | None) -> list[Candidate]:
        ids, dois = split_seeds(self.seeds)
        if dois:
            ids = list(dict.fromkeys([*ids, *self.graph.resolve_dois(dois).values()]))
        if not ids:
            self.notes.append("no seed work has an OpenAlex id or a DOI: nothing to ask")
            return []
        records = self.graph.citing(
            ids, limit=self.max_results, since=since_day(since) if since else None
        )
        seeds = set(ids)
        found: list[Candidate] = []
        for record in records:
            if record.get("id") in seeds:
                continue  # a seed citing another seed is already in the library
            work = record_work(record)
            candidate = candidate_from_work(work, self.name, cites_seeds="true")
            if is_new(candidate.published, since):
                found.append(candidate)
        if self.graph.budget_reached:
            self.notes.append(
                "OpenAlex's daily request budget is spent (PRIORIS_MCP_OPENALEX_DAILY_BUDGET):"
                " the citing works are partial"
            )
        self.notes.extend(self.graph.warnings)
        return distinct(found)[: self.max_results]


class OpenAlexSearchSource(PagedSource):
    """An OpenAlex keyword search (``search=``) restricted to works published since
    ``since`` (``from_publication_date``): a saved search. One request a page of up to
    200, each taken from ``budget`` first when one is given (the library's daily budget),
    so at most ``ceil(max_results / 200)`` requests a run.
    """

    def __init__(
        self,
        client: OpenAlexClient,
        query: str,
        *,
        budget: RequestBudget | None = None,
        max_results: int = DEFAULT_MAX_RESULTS,
        page_size: int = MAX_PER_PAGE,
        name: str | None = None,
    ) -> None:
        if not isinstance(query, str) or not query.strip():
            raise InvalidRequestError("an OpenAlex alert source needs a query")
        self.client = client
        self.query = query.strip()
        self.budget = budget
        self.name = name or f"openalex:{self.query}"
        self.max_results = check_max(max_results, self.name)
        self.page_size = max(1, min(int(page_size), MAX_PER_PAGE))
        self.notes: list[str] = []

    def _collect(self, since: str | None) -> list[Candidate]:
        found: list[Candidate] = []
        for page_number in range(1, math.ceil(self.max_results / self.page_size) + 1):
            if self.budget is not None and not self.budget.take():
                self.notes.append(
                    "OpenAlex's daily request budget is spent (PRIORIS_MCP_OPENALEX_DAILY_BUDGET):"
                    " the search results are partial"
                )
                break
            page = self.client.search(
                self.query,
                page=page_number,
                per_page=self.page_size,
                from_date=since_day(since) if since else None,
            )
            for work in page.works:
                candidate = candidate_from_work(work, self.name)
                if is_new(candidate.published, since):
                    found.append(candidate)
            if not page.has_more or not page.works or len(found) >= self.max_results:
                break
        return distinct(found)[: self.max_results]
