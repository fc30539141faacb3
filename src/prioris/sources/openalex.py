"""OpenAlex: a client for ``/works`` and ``/work-types``.

:class:`OpenAlexClient` builds the requests (keyword search, single work, ``search.semantic``,
the work-type vocabulary) and sends them through :class:`~prioris.sources.http.ProviderHttp`,
which owns spacing, 429 backoff and error mapping. The ``api_key`` is a query parameter on
every request when configured; OpenAlex requires one, and semantic search and the work-type
list refuse to run without it rather than spend a request that is bound to fail.

The pure parsers that turn OpenAlex JSON into :class:`~prioris.models.Work`
(:func:`rebuild_abstract`, :func:`parse_openalex_work`, ...) live in
:mod:`prioris.sources.openalex_records` and are re-exported here, the module callers import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from prioris.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ParseError,
    ProviderUnavailableError,
)
from prioris.models import Work
from prioris.sources.http import ProviderHttp
from prioris.sources.openalex_records import (
    arxiv_id_from_doi,
    arxiv_id_from_url,
    as_dict,
    as_int,
    id_tail,
    normalize_doi,
    openalex_work_id,
    parse_openalex_work,
    rebuild_abstract,
)

__all__ = [
    "API_KEY_HELP",
    "MAX_PER_PAGE",
    "SEMANTIC_MAX_CHARS",
    "SEMANTIC_MAX_RESULTS",
    "SORTS",
    "OpenAlexClient",
    "OpenAlexPage",
    "arxiv_id_from_doi",
    "arxiv_id_from_url",
    "normalize_doi",
    "parse_openalex_work",
    "rebuild_abstract",
    "year_filter",
]

API_KEY_HELP = (
    "OpenAlex requires an API key (free): create an account at https://openalex.org, get the "
    "key at https://openalex.org/settings/api (see "
    "https://developers.openalex.org/guides/authentication), then set "
    "PRIORIS_MCP_OPENALEX_API_KEY=<your key>"
)
SEMANTIC_MAX_CHARS = 2000
"""OpenAlex embeds at most this many characters of a ``search.semantic`` query."""
SEMANTIC_MAX_RESULTS = 50
"""OpenAlex returns at most this many matches for one ``search.semantic`` query."""
MAX_PER_PAGE = 200
"""OpenAlex's cap on ``per_page`` for list endpoints."""
SORTS = {"relevance": None, "cited_by_count": "cited_by_count:desc"}


@dataclass
class OpenAlexPage:
    """One page of OpenAlex works with OpenAlex's own counts (``meta.count``)."""

    total: int
    page: int
    per_page: int
    works: list[Work] = field(default_factory=list)
    has_more: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "page": self.page,
            "per_page": self.per_page,
            "has_more": self.has_more,
            "results": [work.to_dict() for work in self.works],
        }


def year_filter(from_year: int | None, to_year: int | None) -> list[str]:
    """``publication_year`` filter clauses in OpenAlex's documented syntax (inclusive)."""
    if from_year is not None and to_year is not None and from_year > to_year:
        raise InvalidRequestError(f"the start year {from_year} is after the end year {to_year}")
    if from_year is not None and from_year == to_year:
        return [f"publication_year:{from_year}"]
    clauses = []
    if from_year is not None:
        clauses.append(f"publication_year:>{from_year - 1}")
    if to_year is not None:
        clauses.append(f"publication_year:<{to_year + 1}")
    return clauses


def _check_paging(page: int, per_page: int, max_per_page: int) -> None:
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise InvalidRequestError(f"page must be an integer >= 1, got {page!r}")
    if (
        isinstance(per_page, bool)
        or not isinstance(per_page, int)
        or not (1 <= per_page <= max_per_page)
    ):
        raise InvalidRequestError(
            f"per_page must be between 1 and {max_per_page}, got {per_page!r}"
        )


class OpenAlexClient:
    """Requests to OpenAlex; ``semantic_http`` spaces discovery calls under their own key.

    ``http`` serves keyword search, single works and the work types (provider ``openalex``);
    ``semantic_http`` (provider ``discovery``, 1 s apart by default, OpenAlex's own rate limit
    for ``search.semantic``) serves semantic search, and defaults to ``http``.
    """

    def __init__(
        self,
        http: ProviderHttp,
        base_url: str,
        api_key: str | None,
        *,
        semantic_http: ProviderHttp | None = None,
    ) -> None:
        self.http = http
        self.semantic_http = semantic_http or http
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key or None

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.api_key:
            params["api_key"] = self.api_key
        return params

    def _require_key(self, what: str) -> None:
        if not self.api_key:
            raise ConfigurationError(f"{what} needs an OpenAlex API key. {API_KEY_HELP}")

    @staticmethod
    def _page(payload: Any, page: int, per_page: int, *, cap: int | None = None) -> OpenAlexPage:
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise ProviderUnavailableError(
                "openalex: unexpected response (no 'results' list in the JSON body)"
            )
        meta = as_dict(payload.get("meta"))
        try:
            works = [parse_openalex_work(item) for item in payload["results"]]
        except ParseError as exc:
            raise ProviderUnavailableError(f"openalex: unreadable work record ({exc})") from exc
        total = as_int(meta.get("count"))
        total = len(works) if total is None else total
        page = as_int(meta.get("page")) or page
        per_page = as_int(meta.get("per_page")) or per_page
        reachable = total if cap is None else min(total, cap)
        has_more = (
            meta.get("has_more")
            if isinstance(meta.get("has_more"), bool)
            else (page * per_page < reachable)
        )
        return OpenAlexPage(
            total=total, page=page, per_page=per_page, works=works, has_more=has_more
        )

    def search(
        self,
        query: str,
        *,
        sort: str = "relevance",
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
        from_date: str | None = None,
    ) -> OpenAlexPage:
        """Keyword search over ``/works`` ranked by relevance or by citation count;
        ``from_date`` (``YYYY-MM-DD``) keeps works published that day or later (an alert's
        saved search re-run since its last run)."""
        query = (query or "").strip()
        if not query:
            raise InvalidRequestError("an OpenAlex search needs a non-empty query")
        if sort not in SORTS:
            raise InvalidRequestError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        _check_paging(page, per_page, MAX_PER_PAGE)
        params: dict[str, Any] = {"search": query, "page": page, "per_page": per_page}
        clauses = year_filter(from_year, to_year)
        if from_date is not None:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", from_date):
                raise InvalidRequestError(
                    f"from_date must be a day such as 2026-03-02, got {from_date!r}"
                )
            clauses.append(f"from_publication_date:{from_date}")
        if clauses:
            params["filter"] = ",".join(clauses)
        if SORTS[sort]:
            params["sort"] = SORTS[sort]
        payload = self.http.get_json(f"{self.base_url}/works", params=self._params(params))
        return self._page(payload, page, per_page)

    def get_work(self, identifier: str) -> Work:
        """One work by OpenAlex id (``W123``, ``openalex:W123``, URL) or DOI (any form)."""
        raw = (identifier or "").strip()
        key = openalex_work_id(raw)
        if not key:
            doi = normalize_doi(raw)
            if not doi:
                raise InvalidRequestError(
                    f"not an OpenAlex work id or DOI: {identifier!r} (expected W123 or 10.x/y)"
                )
            key = "doi:" + quote(doi, safe="/:.-_()")
        try:
            payload = self.http.get_json(f"{self.base_url}/works/{key}", params=self._params({}))
        except NotFoundError as exc:
            raise NotFoundError(f"OpenAlex has no work {raw!r}") from exc
        try:
            return parse_openalex_work(payload)
        except ParseError as exc:
            raise ProviderUnavailableError(f"openalex: unreadable work {raw!r} ({exc})") from exc

    def search_semantic(
        self,
        text: str,
        *,
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
        open_access_only: bool = False,
    ) -> OpenAlexPage:
        """``/works?search.semantic=`` (embedding similarity, at most 50 matches a query)."""
        text = (text or "").strip()
        if not text:
            raise InvalidRequestError("discovery needs a non-empty text")
        if len(text) > SEMANTIC_MAX_CHARS:
            raise InvalidRequestError(
                f"discovery text is {len(text)} characters; OpenAlex semantic search accepts "
                f"at most {SEMANTIC_MAX_CHARS} (shorten it, e.g. to the abstract)"
            )
        _check_paging(page, per_page, SEMANTIC_MAX_RESULTS)
        clauses = year_filter(from_year, to_year)
        self._require_key("Discovery (OpenAlex semantic search)")
        if open_access_only:
            clauses.append("is_oa:true")
        params: dict[str, Any] = {"search.semantic": text, "page": page, "per_page": per_page}
        if clauses:
            params["filter"] = ",".join(clauses)
        payload = self.semantic_http.get_json(f"{self.base_url}/works", params=self._params(params))
        return self._page(payload, page, per_page, cap=SEMANTIC_MAX_RESULTS)

    def list_work_types(self) -> list[dict[str, Any]]:
        """OpenAlex's work-type vocabulary (``/work-types``): id, display name, description."""
        self._require_key("The OpenAlex work-type list")
        payload = self.http.get_json(
            f"{self.base_url}/work-types", params=self._params({"per_page": MAX_PER_PAGE})
        )
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise ProviderUnavailableError(
                "openalex: unexpected /work-types response (no 'results' list)"
            )
        types: list[dict[str, Any]] = []
        for item in payload["results"]:
            item = as_dict(item)
            key = id_tail(item.get("id"))
            if not key:
                continue
            entry = {"id": key, "display_name": item.get("display_name") or key}
            if isinstance(item.get("description"), str):
                entry["description"] = item["description"]
            if as_int(item.get("works_count")) is not None:
                entry["works_count"] = as_int(item.get("works_count"))
            types.append(entry)
        return types
