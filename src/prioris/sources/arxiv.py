"""arXiv: the Atom query API, PDF and HTML full text, and categories from OAI-PMH.

:class:`ArxivClient` builds requests and goes through
:class:`~prioris.sources.http.ProviderHttp` for spacing, retries and error mapping; the pure
parsers and the query builder (:func:`parse_atom`, :func:`parse_list_sets`,
:func:`build_query`, tested on recorded feeds) live in :mod:`prioris.sources.arxiv_feed` and
are re-exported here. Choices worth knowing:

* Paging limits of the API (``max_results`` <= 2000, ``start + max_results`` <= 30000) are
  checked before any request: InvalidRequestError.
* A query without a field prefix (``deep learning``) is sent as ``all:deep AND all:learning``;
  a query that uses prefixes or boolean operators is sent as written.
* :meth:`ArxivClient.fetch_metadata` is strict: ids arXiv does not know raise NotFoundError
  naming them. :meth:`ArxivClient.fetch_metadata_report` returns ``(works, missing)`` for
  batch callers that prefer partial results.
* An unreadable Atom/OAI response is ProviderUnavailableError (the provider failed);
  a payload at ``/pdf/`` without the ``%PDF`` magic is ParseError (a broken document).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from prioris.config import DEFAULT_MAX_MARKUP_BYTES, Settings
from prioris.errors import (
    FormatUnavailableError,
    InvalidRequestError,
    NotFoundError,
    ParseError,
    ProviderUnavailableError,
)
from prioris.identifiers import arxiv_id_from_doi, normalise_arxiv, parse_identifier
from prioris.models import FullText, Work
from prioris.sources.arxiv_feed import (
    MAX_RESULTS,
    MAX_WINDOW,
    SORT_BY,
    SORT_ORDER,
    ArxivCategory,
    ArxivFeed,
    build_query,
    parse_atom,
    parse_list_sets,
    repair_mojibake,
)
from prioris.sources.html_markdown import html_to_markdown
from prioris.sources.http import ProviderHttp, follow_redirect

__all__ = [
    "ID_BATCH",
    "MAX_REDIRECTS",
    "MAX_RESULTS",
    "MAX_WINDOW",
    "SORT_BY",
    "SORT_ORDER",
    "ArxivCategory",
    "ArxivClient",
    "ArxivFeed",
    "build_query",
    "parse_atom",
    "parse_list_sets",
    "repair_mojibake",
]

ID_BATCH = 100
MAX_REDIRECTS = 3
_CATEGORY_RE = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z\-]+)?$")


def _as_arxiv_id(text: str) -> str:
    ident = parse_identifier(text)
    if ident.scheme == "arxiv":
        return ident.value
    if ident.scheme == "doi":
        mapped = arxiv_id_from_doi(ident.value)
        if mapped:
            return mapped
    raise InvalidRequestError(f"{text!r} is not an arXiv identifier")


class ArxivClient:
    """arXiv API, site and OAI-PMH through one :class:`ProviderHttp` (one spacing budget)."""

    def __init__(
        self,
        http: ProviderHttp,
        api_url: str,
        site_url: str,
        oai_url: str,
        *,
        max_pdf_bytes: int | None = None,
        max_html_bytes: int = DEFAULT_MAX_MARKUP_BYTES,
    ) -> None:
        self.http = http
        self.api_url = api_url
        self.site_url = site_url.rstrip("/")
        self.oai_url = oai_url
        # None: the default PDF limit (a PDF is a document: file_too_large, not the API cap)
        self.max_pdf_bytes = Settings.max_file_bytes if max_pdf_bytes is None else max_pdf_bytes
        self.max_html_bytes = max_html_bytes

    def _feed(self, params: dict[str, Any]) -> ArxivFeed:
        response = self.http.get(self.api_url, params=params)
        try:
            return parse_atom(response.content)
        except ParseError as exc:
            raise ProviderUnavailableError(f"arxiv: unreadable API response ({exc})") from exc

    def search(
        self,
        query: str,
        start: int = 0,
        max_results: int = 10,
        sort_by: str = "relevance",
        sort_order: str = "descending",
    ) -> ArxivFeed:
        """One page of results; limits and sort values are validated before any request."""
        if not query or not query.strip():
            raise InvalidRequestError("arXiv search needs a non-empty query")
        if start < 0:
            raise InvalidRequestError(f"start must be >= 0 (got {start})")
        if not 1 <= max_results <= MAX_RESULTS:
            raise InvalidRequestError(
                f"max_results must be between 1 and {MAX_RESULTS} (got {max_results})"
            )
        if start + max_results > MAX_WINDOW:
            raise InvalidRequestError(
                f"start + max_results must be <= {MAX_WINDOW} (got {start + max_results}); "
                "arXiv serves at most that many results per query"
            )
        if sort_by not in SORT_BY:
            raise InvalidRequestError(f"sort_by must be one of {', '.join(SORT_BY)}")
        if sort_order not in SORT_ORDER:
            raise InvalidRequestError(f"sort_order must be one of {', '.join(SORT_ORDER)}")
        return self._feed(
            {
                "search_query": build_query(query),
                "start": start,
                "max_results": max_results,
                "sortBy": sort_by,
                "sortOrder": sort_order,
            }
        )

    def fetch_metadata_report(self, ids: Sequence[str]) -> tuple[list[Work], list[str]]:
        """(works in input order, ids arXiv does not know). Unversioned ids -> latest version.

        ``missing`` holds the ids as given; one that is not an arXiv id at all is missing
        too (never sent: arXiv would fail the whole batch), so a mixed batch still returns
        the records that exist.
        """
        if not ids:
            raise InvalidRequestError("no arXiv ids given")
        given: dict[str, str | None] = {}
        for text in ids:
            try:
                given.setdefault(text, _as_arxiv_id(text))
            except InvalidRequestError:
                given.setdefault(text, None)
        wanted = list(dict.fromkeys(v for v in given.values() if v is not None))
        found: dict[str, Work] = {}
        for offset in range(0, len(wanted), ID_BATCH):
            batch = wanted[offset : offset + ID_BATCH]
            feed = self._feed({"id_list": ",".join(batch), "start": 0, "max_results": len(batch)})
            for work in feed.works:
                found[work.extra["arxiv_id"]] = work
                found.setdefault(work.extra["arxiv_versionless"], work)
        works: list[Work] = []
        missing: list[str] = []
        for text, arxiv_id in given.items():
            work = found.get(arxiv_id) if arxiv_id else None
            if work is None:
                missing.append(text)
            elif work not in works:
                works.append(work)
        return works, missing

    def fetch_metadata(self, ids: Sequence[str]) -> list[Work]:
        """Works for ``ids`` in order; NotFoundError naming every id arXiv does not know
        (InvalidRequestError for text that is no arXiv id)."""
        for text in ids:
            _as_arxiv_id(text)
        works, missing = self.fetch_metadata_report(ids)
        if missing:
            raise NotFoundError(f"arXiv has no record for: {', '.join(missing)}")
        return works

    def list_top_n(
        self,
        categories: Sequence[str],
        n: int,
        exclude: Sequence[str] = (),
        *,
        match_all: bool = False,
    ) -> list[Work]:
        """The newest ``n`` submissions in any of ``categories`` (all of them: ``match_all``,
        PriorisMCP's ``include_categories``).

        ``exclude`` may hold categories (``cs.CV``: dropped with ANDNOT) and arXiv ids
        (already seen: filtered out, and the request widened so ``n`` still come back).
        Both lists are deduplicated; ``n`` above arXiv's 2000 results per request is
        invalid_request naming that cap.
        """
        if n < 1 or n > MAX_RESULTS:
            raise InvalidRequestError(
                f"n must be between 1 and {MAX_RESULTS} (got {n}): arXiv serves at most "
                f"{MAX_RESULTS} results per request"
            )
        cats = list(dict.fromkeys(c.strip() for c in categories if c.strip()))
        exclude = list(dict.fromkeys(exclude))
        if not cats:
            raise InvalidRequestError("list_top_n needs at least one category such as cs.AI")
        excluded_cats: list[str] = []
        excluded_ids: set[str] = set()
        for item in exclude:
            item = item.strip()
            if _CATEGORY_RE.match(item) and "/" not in item and not normalise_arxiv(item):
                excluded_cats.append(item)
            elif item:
                ident = _as_arxiv_id(item)
                excluded_ids.add(re.sub(r"v\d+$", "", ident))
        for cat in cats:
            if not _CATEGORY_RE.match(cat):
                raise InvalidRequestError(f"{cat!r} is not an arXiv category (e.g. cs.AI)")
        query = (" AND " if match_all else " OR ").join(f"cat:{c}" for c in cats)
        query = f"({query})" if len(cats) > 1 else query
        for cat in excluded_cats:
            query += f" ANDNOT cat:{cat}"
        wanted = min(n + len(excluded_ids), MAX_RESULTS)
        feed = self.search(query, 0, wanted, sort_by="submittedDate", sort_order="descending")
        works = [w for w in feed.works if w.extra["arxiv_versionless"] not in excluded_ids]
        return works[:n]

    def _get_on_site(self, url: str, **kwargs: Any) -> Any:
        """GET that follows redirects only on the arXiv site host, never https -> http."""
        for _ in range(MAX_REDIRECTS + 1):
            response = self.http.get(url, allow_redirect_status=True, **kwargs)
            if not response.is_redirect:
                return response
            url = follow_redirect("arxiv", url, response.headers.get("Location"))
        raise ProviderUnavailableError(f"arxiv: too many redirects for {url}")

    def fetch_pdf(self, arxiv_id: str) -> FullText:
        """The PDF at ``{site}/pdf/{id}``; bytes without the %PDF magic are ParseError."""
        value = _as_arxiv_id(arxiv_id)
        url = f"{self.site_url}/pdf/{value}"
        response = self._get_on_site(url, max_bytes=self.max_pdf_bytes)
        content = response.content
        if b"%PDF-" not in content[:1024]:
            raise ParseError(f"arxiv: {url} did not return a PDF")
        return FullText(format="pdf", content=content, url=str(response.request.url))

    def fetch_html(self, arxiv_id: str) -> FullText:
        """The HTML paper at ``{site}/html/{id}`` as Markdown; missing -> FormatUnavailableError."""
        value = _as_arxiv_id(arxiv_id)
        url = f"{self.site_url}/html/{value}"
        try:
            response = self._get_on_site(
                url, max_bytes=self.max_html_bytes, limit_setting="PRIORIS_MCP_MAX_MARKUP_BYTES"
            )
        except NotFoundError as exc:
            raise FormatUnavailableError(
                f"arXiv has no HTML version of {value}; fetch the PDF instead"
            ) from exc
        content_type = response.headers.get("Content-Type", "")
        if "html" not in content_type.lower() and b"<html" not in response.content[:2048].lower():
            raise FormatUnavailableError(f"arXiv did not return HTML for {value}")
        _, markdown = html_to_markdown(response.text)
        if not markdown.strip():
            raise FormatUnavailableError(f"arXiv HTML of {value} has no text")
        return FullText(
            format="html",
            content=response.content,
            url=str(response.request.url),
            markdown=markdown,
        )

    def list_categories(self) -> list[ArxivCategory]:
        """Every OAI-PMH set (ListSets), following resumption tokens."""
        params: dict[str, str] = {"verb": "ListSets"}
        categories: list[ArxivCategory] = []
        for _ in range(100):  # a runaway token loop must end
            response = self.http.get(self.oai_url, params=params)
            try:
                page, token = parse_list_sets(response.content)
            except ParseError as exc:
                raise ProviderUnavailableError(
                    f"arxiv: unreadable OAI-PMH response ({exc})"
                ) from exc
            categories.extend(page)
            if not token:
                break
            params = {"verb": "ListSets", "resumptionToken": token}
        return categories
