"""A search request checked and turned into what the candidate lists are built from.

Before any list is ranked, :class:`~prioris.search.service.SearchService` checks the mode,
syntax, ``k`` and query length, turns a collection and tag filter into a work-id
restriction, and turns the query into the FTS expression and the words snippets mark.
None of that touches the ranking, so it lives here, apart from the service's flow (which
re-exports ``MODES``, ``SYNTAXES`` and ``MAX_K``).
"""

from __future__ import annotations

from dataclasses import replace

from prioris.errors import InvalidRequestError
from prioris.search.fusion_config import FusionConfig
from prioris.search.protocols import SearchBackend, SearchFilters, WorkLabels
from prioris.search.query import (
    EXTENDED_STOPWORDS,
    STOPWORDS,
    fts5_expression_terms,
    plain_to_fts5,
    query_terms,
)

MODES = ("fts", "vector", "hybrid")
SYNTAXES = ("plain", "fts5")
MAX_K = 1000


def validate(query: str, mode: str, k: int | None, syntax: str, max_query_chars: int) -> None:
    """A known mode and syntax, ``k`` in range (``None`` in fts mode only), a query that
    is not empty and not over ``max_query_chars`` (else invalid_request)."""
    if mode not in MODES:
        raise InvalidRequestError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    if syntax not in SYNTAXES:
        raise InvalidRequestError(f"syntax {syntax!r} is not one of {', '.join(SYNTAXES)}")
    if k is None:
        if mode != "fts":
            raise InvalidRequestError(f"mode {mode!r} needs a number of hits (k)")
    elif not 1 <= k <= MAX_K:
        raise InvalidRequestError(f"k must be between 1 and {MAX_K}, got {k}")
    if not query or not query.strip():
        raise InvalidRequestError("the query is empty")
    if len(query) > max_query_chars:
        raise InvalidRequestError(
            f"the query is {len(query)} characters long, over the limit of "
            f"{max_query_chars} (PRIORIS_MCP_MAX_QUERY_CHARS)"
        )


def resolve_labels(backend: SearchBackend, filters: SearchFilters) -> SearchFilters:
    """Collections and tags become a work-id restriction (intersected with one already
    given), read once per search, so every engine's path that honours ``work_ids``
    (FTS5, the postings ranker's fallback, the vector copy, PostgreSQL) is filtered
    the same way. No matching work gives an empty restriction: no hits."""
    if not filters.has_labels:
        return filters
    if not isinstance(backend, WorkLabels):
        raise InvalidRequestError("this library cannot filter by collection or tag")
    found = backend.labelled_works(filters.collections, filters.tags)
    if filters.work_ids is not None:
        found &= set(filters.work_ids)
    return replace(filters, work_ids=tuple(sorted(found)), collections=(), tags=())


def fts_query(
    query: str, mode: str, syntax: str, config: FusionConfig
) -> tuple[str | None, list[str]]:
    """``(FTS expression, words to mark)``: a raw FTS5 expression as given (fts mode
    only), or a plain query's words, mode fts dropping the longer stop list when the
    settings say so. The expression is None when no word is left to match."""
    if syntax == "fts5":
        expression: str | None = query
        terms = fts5_expression_terms(query)
        if mode != "fts":
            raise InvalidRequestError("syntax 'fts5' is only for mode 'fts'")
    else:
        stopwords = STOPWORDS
        if mode == "fts" and config.fts_extended_stopwords:
            stopwords = EXTENDED_STOPWORDS
        expression = plain_to_fts5(query, bigrams=config.fts_bigrams, stopwords=stopwords)
        terms = query_terms(query, stopwords)
    return expression, terms
