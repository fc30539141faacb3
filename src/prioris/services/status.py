"""What ``prioris status`` shows: the catalogue's counts and index state, and today's
OpenAlex requests against the daily budget."""

from __future__ import annotations

from typing import Any


class LibraryStatus:
    """``Library.status``: :meth:`Catalog.status` with OpenAlex's usage beside it."""

    def __init__(self, catalog: Any, openalex: Any) -> None:
        self.catalog = catalog
        self.openalex = openalex

    def status(self) -> dict[str, Any]:
        """Counts, index state, model and file size (:meth:`Catalog.status`), and today's
        OpenAlex requests against the daily budget (``openalex_requests_today``,
        ``openalex_daily_budget``)."""
        return {**self.catalog.status(), **self.openalex.usage()}
