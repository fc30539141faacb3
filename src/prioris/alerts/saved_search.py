"""A saved search: one query re-run since the last run against several providers at once
(arXiv, Europe PMC, OpenAlex), its candidates merged.

A wrapper over the provider sources rather than a provider of its own: each target keeps
its bounds and costs (arXiv's newest-first paging, Europe PMC's ``FIRST_PDATE``,
OpenAlex's ``from_publication_date`` inside the daily budget), and a paper found by two
of them is listed once (the first target's record, matched by any shared identifier).
"""

from __future__ import annotations

from collections.abc import Sequence

from prioris.alerts.protocols import Candidate, CandidateSource
from prioris.alerts.source_kit import DEFAULT_MAX_RESULTS, check_max, distinct, failing_as
from prioris.errors import InvalidRequestError


class SavedSearch:
    """``query`` re-run against ``targets`` (sources built for that query), at most
    ``max_results`` candidates in all; a failing target fails the search, named in the
    message (``alert source 'search:"…"' failed: alert source 'arxiv:…' failed: …``)."""

    def __init__(
        self,
        query: str,
        targets: Sequence[CandidateSource],
        *,
        max_results: int = DEFAULT_MAX_RESULTS,
        name: str | None = None,
    ) -> None:
        if not isinstance(query, str) or not query.strip():
            raise InvalidRequestError("a saved search needs a query")
        if not targets:
            raise InvalidRequestError(f"the saved search {query!r} has no provider to run on")
        self.query = query.strip()
        self.targets = list(targets)
        self.name = name or f'search:"{self.query}"'
        self.max_results = check_max(max_results, self.name)
        self.notes: list[str] = []

    def candidates(self, since: str | None) -> list[Candidate]:
        """Every target's candidates since ``since``, merged, up to the bound."""
        self.notes = []
        found: list[Candidate] = []
        with failing_as(self.name):
            for target in self.targets:
                found.extend(target.candidates(since))
                self.notes.extend(f"{target.name}: {n}" for n in getattr(target, "notes", []))
        return distinct(found)[: self.max_results]
