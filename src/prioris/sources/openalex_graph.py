"""OpenAlex's citation graph, counted and cached: DOIs to ids, works by id, citing works.

OpenAlex needs an API key on every request and charges list calls past a free daily
allowance, so :class:`OpenAlexGraph` spends requests carefully:

* everything is batched with OpenAlex's OR syntax, :data:`MAX_OR_VALUES` values a request
  (``filter=doi:a|b``, ``filter=openalex:W1|W2``, ``filter=cites:W1|W2``), with ``select=``
  naming only the fields a graph record needs (:data:`WORK_FIELDS`) and full pages
  (:data:`PER_PAGE`: a list call costs the same whatever it returns);
* every answer goes through a :class:`ResponseCache` first, and is kept reduced to the
  graph records it gives (:func:`graph_record`: a few KB a work where OpenAlex sends tens,
  and nothing to parse again on a warm run). A list walk (the citing works) keeps each
  page under its request path and query (``/works?filter=cites:...&cursor=*``, the API
  key left out); works and DOIs are kept one by one under the single-work request they
  stand for (``/works/W123?select=...``, ``/works/doi:10.x/y?select=...``), so a later
  batch with other companions still finds them, and ids or DOIs OpenAlex does not return
  are kept as ``null`` so a second run asks nothing again;
* every request that would go out first takes one from a :class:`RequestBudget`; once the
  budget refuses one, :attr:`OpenAlexGraph.budget_reached` is set, no further request is
  made, and the results are what the cache and the requests already made gave (partial,
  never an error).

The cache and the budget are injected (the library keeps both in its database: sources
never import storage). OpenAlex's answers are not trusted to be well-formed: a dangling
referenced id (a merged or stale work that is not returned) is simply absent from the
result, a cursor that comes back again (a cycle) or a page that is missing ends that walk
with what it has (noted in :attr:`OpenAlexGraph.warnings`), and a 400 is a clear
``invalid_request`` naming OpenAlex's own message. Spacing, the 429 ``Retry-After``
backoff, timeouts and the bounded body are :class:`~prioris.sources.http.ProviderHttp`'s.

This module is the client (requests, batching, pagination); the cache and budget
protocols are in :mod:`~prioris.sources.openalex_graph_cache` and the records in
:mod:`~prioris.sources.openalex_graph_records`. It re-exports ``ResponseCache``,
``RequestBudget``, ``NoCache``, ``MemoryCache``, ``MemoryBudget``, ``WORK_FIELDS``,
``graph_record`` and ``record_work``, the names its callers import from here.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from prioris.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
)
from prioris.sources.http import ProviderHttp
from prioris.sources.openalex import API_KEY_HELP
from prioris.sources.openalex_graph_cache import (
    MemoryBudget,
    MemoryCache,
    NoCache,
    RequestBudget,
    ResponseCache,
)
from prioris.sources.openalex_graph_records import (
    SELECT,
    WORK_FIELDS,
    graph_record,
    record_work,
    records_of,
)
from prioris.sources.openalex_records import as_dict, as_int, normalize_doi, openalex_work_id

__all__ = [
    "MAX_OR_VALUES",
    "PER_PAGE",
    "WORK_FIELDS",
    "MemoryBudget",
    "MemoryCache",
    "NoCache",
    "OpenAlexGraph",
    "RequestBudget",
    "ResponseCache",
    "graph_record",
    "record_work",
]

log = logging.getLogger(__name__)

MAX_OR_VALUES = 50
"""Values in one OR filter: OpenAlex documents 50 (``doi:a|b|...``) as the batch size."""
PER_PAGE = 100
"""Results a page: the top of the range OpenAlex's current reference gives (1-100)."""
MAX_PAGES = 1000
"""No walk reads more pages than this, whatever the cursors say."""
_FILTER_UNSAFE = (",", "|")  # separate filters and OR values: such a DOI goes alone


def _chunks(values: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(values), size):
        yield list(values[start : start + size])


def _check_limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidRequestError(f"limit must be an integer >= 0, got {limit!r}")
    return limit


def _work_ids(ids: Sequence[str]) -> list[str]:
    """``W123`` for each id (any OpenAlex form), deduplicated in order; a bad one is an
    invalid_request naming it."""
    if isinstance(ids, str):
        ids = [ids]
    out: list[str] = []
    for raw in ids:
        wid = openalex_work_id(raw.strip()) if isinstance(raw, str) else None
        if not wid:
            raise InvalidRequestError(
                f"not an OpenAlex work id: {raw!r} (expected W123 or https://openalex.org/W123)"
            )
        out.append(wid)
    return list(dict.fromkeys(out))


def _dois(dois: Sequence[str]) -> list[str]:
    if isinstance(dois, str):
        dois = [dois]
    out: list[str] = []
    for raw in dois:
        doi = normalize_doi(raw) if isinstance(raw, str) else None
        if not doi:
            raise InvalidRequestError(f"not a DOI: {raw!r} (expected 10.1234/abc)")
        out.append(doi)
    return list(dict.fromkeys(out))


def _work_key(wid: str) -> str:
    return f"/works/{wid}?select={SELECT}"


def _doi_key(doi: str) -> str:
    return f"/works/doi:{quote(doi, safe='/:.-_()')}?select={SELECT}"


class OpenAlexGraph:
    """OpenAlex's citation graph through a cache and a daily budget (module docstring).

    Implements :class:`prioris.discovery.graph.GraphRecords`. ``requests`` counts what
    this object sent (cache answers not counted; a 429 or 503 retried by the HTTP layer
    is one request); ``cache_hits`` what the cache answered; ``warnings`` what ended a
    walk early. ``per_page`` is a test seam (pages of :data:`PER_PAGE` otherwise).
    """

    def __init__(
        self,
        http: ProviderHttp,
        base_url: str,
        api_key: str | None,
        *,
        cache: ResponseCache,
        budget: RequestBudget,
        per_page: int = PER_PAGE,
    ) -> None:
        if not api_key:
            raise ConfigurationError(
                f"The citation graph from OpenAlex needs an OpenAlex API key. {API_KEY_HELP}"
            )
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.cache = cache
        self.budget = budget
        self.per_page = max(1, min(int(per_page), 200))
        self.requests = 0
        self.cache_hits = 0
        self.budget_reached = False
        self.warnings: list[str] = []

    @property
    def budget_left(self) -> int:
        """Requests left today (the budget's own count: every process of the library)."""
        return self.budget.left()

    # -- one request ---------------------------------------------------------------------
    def _cached(self, key: str) -> tuple[bool, Any]:
        """(found, value) from the cache; an unreadable entry counts as not found."""
        found = self._cached_many([key])
        return (True, found[key]) if key in found else (False, None)

    def _cached_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values the cache holds for ``keys`` (unreadable entries left out)."""
        values: dict[str, Any] = {}
        for key, body in self.cache.get_many(list(keys)).items():
            try:
                values[key] = json.loads(body)
            except ValueError:
                continue
        self.cache_hits += len(values)
        return values

    def _keep(self, items: Iterable[tuple[str, Any]]) -> None:
        rows = [(k, json.dumps(v, separators=(",", ":"), ensure_ascii=False)) for k, v in items]
        if rows:
            self.cache.put_many(rows)

    def _request(self, path: str, params: list[tuple[str, str]]) -> Any:
        """Send one request if the budget allows (None when it does not): ``params``
        without the key, which is added here and never kept."""
        if self.budget_reached or not self.budget.take():
            if not self.budget_reached:
                log.info("openalex: the daily request budget is reached; results are partial")
            self.budget_reached = True
            return None
        self.requests += 1
        url = f"{self.base_url}{quote(path, safe='/:.-_()')}"
        try:
            return self.http.get_json(url, params=[*params, ("api_key", self.api_key)])
        except InvalidRequestError as exc:
            raise InvalidRequestError(
                f"OpenAlex refused the citation-graph request {path} ({exc.message})"
            ) from exc

    def _page(self, params: list[tuple[str, str]]) -> dict[str, Any] | None:
        """One ``/works`` list page as ``{"meta": {count, next_cursor}, "results":
        [graph records]}``, from the cache or OpenAlex (then kept in that form); None when
        the budget refused the request."""
        key = "/works?" + urlencode(params, safe=":|*,/")
        found, page = self._cached(key)
        if found and isinstance(page, dict) and isinstance(page.get("results"), list):
            return page
        payload = self._request("/works", params)
        if payload is None:
            return None
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise ProviderUnavailableError(
                "openalex: unexpected response (no 'results' list in the JSON body)"
            )
        meta = as_dict(payload.get("meta"))
        page = {
            "meta": {"count": as_int(meta.get("count")), "next_cursor": meta.get("next_cursor")},
            "results": records_of(payload["results"]),
            "returned": len(payload["results"]),
        }
        self._keep([(key, page)])
        return page

    def _walk(self, filter_value: str, want: int | None) -> tuple[list[dict[str, Any]], bool]:
        """The records of one filter, page by page with cursors: (records, complete).

        Ends at ``next_cursor`` null or an empty page, once ``meta.count`` works (or
        ``want``) are in hand, or early (incomplete) when the budget refuses a request, a
        cursor comes back again, a later page is missing (404) or the pages run past
        :data:`MAX_PAGES`. A 404 on the first page is an error: nothing was found at all.
        """
        records: dict[str, dict[str, Any]] = {}
        cursor, seen = "*", set()
        for page_number in range(MAX_PAGES):
            params = [
                ("filter", filter_value),
                ("select", SELECT),
                ("per_page", str(self.per_page)),
                ("cursor", cursor),
            ]
            try:
                page = self._page(params)
            except NotFoundError:
                if page_number == 0:
                    raise
                self.warnings.append(f"a page of {filter_value[:60]} is missing (HTTP 404)")
                return list(records.values()), False
            if page is None:
                return list(records.values()), False
            for record in page["results"]:
                if isinstance(record, dict) and isinstance(record.get("id"), str):
                    records.setdefault(record["id"], record)
            meta = as_dict(page.get("meta"))
            count = as_int(meta.get("count"))
            following = meta.get("next_cursor")
            if want is not None and len(records) >= want:
                return list(records.values()), True
            if not page.get("returned") or not isinstance(following, str) or not following:
                return list(records.values()), True
            if count is not None and len(records) >= count:
                return list(records.values()), True  # the cursor after the last page: not asked
            seen.add(cursor)
            if following in seen:
                self.warnings.append(f"the cursor of {filter_value[:60]} came back (a cycle)")
                return list(records.values()), False
            cursor = following
        self.warnings.append(f"{filter_value[:60]} ran past {MAX_PAGES} pages")
        return list(records.values()), False

    def _keep_records(self, records: Iterable[dict[str, Any]]) -> dict[str, str]:
        """Keep each record under its single-work key; ``{doi: id}`` of those with a DOI."""
        records = list(records)
        self._keep([(_work_key(r["id"]), r) for r in records])
        return {r["doi"]: r["id"] for r in records if r.get("doi")}

    # -- GraphRecords ----------------------------------------------------------------------
    def resolve_dois(self, dois: Sequence[str]) -> dict[str, str]:
        """``{doi: "W123"}`` for the DOIs OpenAlex knows (lower-case, no prefix), 50 a
        request; the works found are kept for :meth:`works` too."""
        wanted = _dois(dois)
        cached = self._cached_many([_doi_key(doi) for doi in wanted])
        found: dict[str, str] = {}
        missing: list[str] = []
        for doi in wanted:
            key = _doi_key(doi)
            if key not in cached:
                missing.append(doi)
            elif isinstance(cached[key], str):
                found[doi] = cached[key]
        batchable = sorted(d for d in missing if not any(c in d for c in _FILTER_UNSAFE))
        for batch in _chunks(batchable, MAX_OR_VALUES):
            records, complete = self._walk("doi:" + "|".join(batch), None)
            by_doi = self._keep_records(records)
            kept: list[tuple[str, Any]] = []
            for doi in batch:
                if doi in by_doi:
                    found[doi] = by_doi[doi]
                    kept.append((_doi_key(doi), by_doi[doi]))
                elif complete:
                    kept.append((_doi_key(doi), None))  # unknown to OpenAlex: not asked again
            self._keep(kept)
        for doi in sorted(set(missing) - set(batchable)):  # alone: a comma or bar inside
            wid = self._single_doi(doi)
            if wid:
                found[doi] = wid
        return {doi: found[doi] for doi in wanted if doi in found}

    def _single_doi(self, doi: str) -> str | None:
        try:
            obj = self._request(f"/works/doi:{doi}", [("select", SELECT)])
        except NotFoundError:
            self._keep([(_doi_key(doi), None)])
            return None
        if obj is None:
            return None
        records = records_of([obj])
        self._keep_records(records)
        wid = records[0]["id"] if records else None
        self._keep([(_doi_key(doi), wid)])
        return wid

    def works(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``{"W123": record}`` for the ids OpenAlex returns, 50 a request; an id it does
        not return (merged, stale) is absent, and remembered as such."""
        wanted = _work_ids(ids)
        cached = self._cached_many([_work_key(wid) for wid in wanted])
        found: dict[str, dict[str, Any]] = {}
        missing: list[str] = []
        for wid in wanted:
            key = _work_key(wid)
            if key not in cached:
                missing.append(wid)
            elif isinstance(cached[key], dict):
                found[wid] = cached[key]
        for batch in _chunks(sorted(missing), MAX_OR_VALUES):
            records, complete = self._walk("openalex:" + "|".join(batch), None)
            self._keep_records(records)
            found.update((r["id"], r) for r in records)
            if complete:  # dangling ids: not asked again
                self._keep([(_work_key(wid), None) for wid in batch if wid not in found])
        return {wid: found[wid] for wid in wanted if wid in found}

    def citing(
        self, ids: Sequence[str], *, limit: int, since: str | None = None
    ) -> list[dict[str, Any]]:
        """Records of the works citing any of ``ids`` (``filter=cites:``, 50 ids a
        request, cursor-paged), at most ``limit``, deduplicated, in OpenAlex's order;
        ``since`` (``YYYY-MM-DD``) keeps those published that day or later
        (``from_publication_date``, in the same request: an alert's new citations)."""
        wanted = sorted(_work_ids(ids))
        limit = _check_limit(limit)
        dated = ""
        if since is not None:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", since):
                raise InvalidRequestError(f"since must be a day such as 2026-03-02, got {since!r}")
            dated = f",from_publication_date:{since}"
        found: dict[str, dict[str, Any]] = {}
        for batch in _chunks(wanted, MAX_OR_VALUES):
            if len(found) >= limit:
                break
            records, _complete = self._walk("cites:" + "|".join(batch) + dated, limit - len(found))
            self._keep_records(records)
            for record in records:
                if len(found) < limit:
                    found.setdefault(record["id"], record)
            if self.budget_reached:
                break
        return list(found.values())
