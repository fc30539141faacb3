"""A search with its filters resolved against the library: ids of any form, a source
name checked against the stored ones, collections and tags; the search service does the
rest (:mod:`prioris.search.service`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from prioris.search.protocols import SearchFilters
from prioris.storage.labels import filter_names
from prioris.strings import without_surrogates

# the facade's logger, as before the search moved here: log filters keep working
log = logging.getLogger("prioris.library")

if TYPE_CHECKING:
    from prioris.search.service import SearchResponse


class Searching:
    """``Library.search``: filters built and checked, then the search service asked."""

    def __init__(self, searcher: Callable[[], Any], catalog: Any) -> None:
        self.searcher = searcher  # built on first search: importing it costs numpy and more
        self.catalog = catalog

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        k: int = 10,
        chunks: bool = False,
        source: str | None = None,
        from_year: int | None = None,
        to_year: int | None = None,
        ids: Sequence[str] | None = None,
        syntax: str = "plain",
        include_undated: bool = False,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> SearchResponse:
        """Search what the library holds; ``ids`` restrict to works (any id form),
        ``collections`` (any of them, subcollections included) and ``tags`` (all of them)
        too (:mod:`prioris.storage.labels`). A year filter leaves out works without a year
        (the response's ``left_out_no_year`` says how many) unless ``include_undated``."""
        filters = self.filters(
            source=source,
            from_year=from_year,
            to_year=to_year,
            ids=ids,
            include_undated=include_undated,
            collections=collections,
            tags=tags,
        )
        # no lock: the searcher reads through its own WAL read connections
        response = self.searcher().search(
            query, mode=mode, k=k, chunks=chunks, filters=filters, syntax=syntax
        )
        hits, took = len(response.hits), response.took_ms
        log.debug("search %r: mode %s, k %d, %d hits in %.1f ms", query, mode, k, hits, took)
        return response

    def filters(
        self,
        *,
        source: str | None = None,
        from_year: int | None = None,
        to_year: int | None = None,
        ids: Sequence[str] | None = None,
        include_undated: bool = False,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> SearchFilters:
        """The search filters of the arguments, ids resolved and the source checked (also
        what evidence searches with: :mod:`prioris.services.evidence`)."""
        work_ids = tuple(self.catalog.resolve_work_id(i) for i in ids) if ids else None
        if isinstance(source, str):
            source = without_surrogates(source)
            self.catalog.check_source(source)
        return SearchFilters(
            source=source,
            from_year=from_year,
            to_year=to_year,
            work_ids=work_ids,
            include_undated=include_undated,
            collections=filter_names(collections, "collection"),
            tags=filter_names(tags, "tag"),
        )
