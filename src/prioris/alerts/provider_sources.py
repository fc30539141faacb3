"""Candidates from arXiv and Europe PMC: new submissions by category or query, and a query
re-run since a date, through the existing clients (:mod:`prioris.sources.arxiv`,
:mod:`prioris.sources.europepmc`) and so through their HTTP layer (request spacing, 429
backoff, bounded answers, the configured base URLs).

Each source is bounded twice: ``max_results`` candidates a run (never more, whatever the
provider holds) and the HTTP layer's cap on one answer's size
(``PRIORIS_MCP_MAX_RESPONSE_BYTES``: a larger answer is refused, provider_unavailable).
A failure is re-raised naming the source (:func:`~prioris.alerts.source_kit.failing_as`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

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
from prioris.sources.arxiv import MAX_RESULTS as ARXIV_MAX_PAGE
from prioris.sources.arxiv import MAX_WINDOW as ARXIV_MAX_WINDOW
from prioris.sources.arxiv import ArxivClient, build_query
from prioris.sources.europepmc import MAX_PAGE_SIZE as EUROPEPMC_MAX_PAGE
from prioris.sources.europepmc import EuropePmcClient

CATEGORY_RE = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z\-]+)?$")
"""An arXiv category as ``cat:`` takes it (``cs.LG``, ``q-bio.NC``, ``hep-th``)."""
FAR_FUTURE = "3000-12-31"
"""The open end of Europe PMC's ``FIRST_PDATE`` range (its documented form is a closed range)."""


def arxiv_categories_query(categories: Sequence[str]) -> str:
    """``cat:cs.LG`` or ``(cat:cs.LG OR cat:stat.ML)``; a name that is no arXiv category
    is invalid_request (it would be sent as a search and match nothing)."""
    cats = list(dict.fromkeys(c.strip() for c in categories if c and c.strip()))
    if not cats:
        raise InvalidRequestError("an arXiv alert source needs a category such as cs.LG")
    for cat in cats:
        if not CATEGORY_RE.match(cat):
            raise InvalidRequestError(f"{cat!r} is not an arXiv category (e.g. cs.LG, q-bio.NC)")
    query = " OR ".join(f"cat:{c}" for c in cats)
    return f"({query})" if len(cats) > 1 else query


class ArxivNewSource(PagedSource):
    """arXiv's submissions newest first (``sortBy=submittedDate``, descending), page by
    page until an entry is older than ``since`` or ``max_results`` are in hand.

    ``categories`` (``cs.LG``) or a ``query`` (plain words become ``all:`` terms, as the
    arXiv client builds them: a saved search). Each page is one request spaced by the
    arXiv provider's interval (3 s by default); a run makes at most
    ``ceil(max_results / page_size)`` requests.
    """

    def __init__(
        self,
        client: ArxivClient,
        *,
        categories: Sequence[str] = (),
        query: str | None = None,
        max_results: int = DEFAULT_MAX_RESULTS,
        page_size: int = 100,
        name: str | None = None,
    ) -> None:
        if bool(categories) == bool(query and query.strip()):
            raise InvalidRequestError("an arXiv alert source takes categories or a query")
        self.client = client
        self.search_query = (
            arxiv_categories_query(categories) if categories else build_query(query or "")
        )
        self.name = name or (f"arxiv:{','.join(categories)}" if categories else f"arxiv:{query}")
        self.max_results = check_max(max_results, self.name)
        self.page_size = max(1, min(int(page_size), ARXIV_MAX_PAGE))
        self.notes: list[str] = []

    def _collect(self, since: str | None) -> list[Candidate]:
        found: list[Candidate] = []
        start = 0
        for _ in range(math.ceil(self.max_results / self.page_size) + 1):
            size = min(self.page_size, self.max_results - len(found))
            if size <= 0 or start + size > ARXIV_MAX_WINDOW:
                break
            feed = self.client.search(
                self.search_query, start, size, sort_by="submittedDate", sort_order="descending"
            )
            reached_old = False
            for work in feed.works:
                candidate = candidate_from_work(
                    work, self.name, primary_category=work.extra.get("primary_category")
                )
                if is_new(candidate.published, since):
                    found.append(candidate)
                else:
                    reached_old = True  # newest first: the rest of the list is older still
            start += len(feed.works)
            if reached_old or len(feed.works) < size or (feed.total and start >= feed.total):
                break
        return distinct(found)[: self.max_results]


class EuropePmcSource(PagedSource):
    """A Europe PMC search restricted to what was first published since ``since``
    (``FIRST_PDATE:[since TO ...]`` added to the query), cursor-paged until
    ``max_results``; preprints (source PPR or publication type Preprint) carry
    ``extra["preprint"] = "true"``, and ``preprints_only`` asks for them alone
    (``SRC:PPR``). At most ``ceil(max_results / page_size)`` requests a run.
    """

    def __init__(
        self,
        client: EuropePmcClient,
        query: str,
        *,
        max_results: int = DEFAULT_MAX_RESULTS,
        page_size: int = 100,
        preprints_only: bool = False,
        name: str | None = None,
    ) -> None:
        if not isinstance(query, str) or not query.strip():
            raise InvalidRequestError("a Europe PMC alert source needs a query")
        self.client = client
        self.query = query.strip()
        self.name = name or f"europepmc:{self.query}"
        self.max_results = check_max(max_results, self.name)
        self.page_size = max(1, min(int(page_size), EUROPEPMC_MAX_PAGE))
        self.preprints_only = preprints_only
        self.notes: list[str] = []

    def search_text(self, since: str | None) -> str:
        """The query Europe PMC is sent for ``since`` (a normal-form date or None)."""
        clauses = [f"({self.query})"]
        if self.preprints_only:
            clauses.append("(SRC:PPR)")
        if since is not None:
            clauses.append(f"(FIRST_PDATE:[{since_day(since)} TO {FAR_FUTURE}])")
        return " AND ".join(clauses) if len(clauses) > 1 else self.query

    def _collect(self, since: str | None) -> list[Candidate]:
        query = self.search_text(since)
        found: list[Candidate] = []
        cursor: str | None = "*"
        for _ in range(math.ceil(self.max_results / self.page_size) + 1):
            size = min(self.page_size, self.max_results - len(found))
            if size <= 0 or cursor is None:
                break
            page = self.client.search(query, page_size=size, cursor=cursor)
            for work in page.works:
                candidate = candidate_from_work(
                    work, self.name, europepmc_source=work.extra.get("source")
                )
                if is_new(candidate.published, since):  # the server's filter, held here too
                    found.append(candidate)
            cursor = page.next_cursor if page.works else None
        return distinct(found)[: self.max_results]
