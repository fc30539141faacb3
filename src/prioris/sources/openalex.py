"""OpenAlex: pure parsers for work records and a client for ``/works`` and ``/work-types``.

The parsers (:func:`rebuild_abstract`, :func:`parse_openalex_work`) turn OpenAlex JSON into
:class:`~prioris.models.Work` without any I/O, so they are tested on recorded responses.
:class:`OpenAlexClient` builds the requests (keyword search, single work, ``search.semantic``,
the work-type vocabulary) and sends them through :class:`~prioris.sources.http.ProviderHttp`,
which owns spacing, 429 backoff and error mapping. The ``api_key`` is a query parameter on
every request when configured; OpenAlex requires one, and semantic search and the work-type
list refuse to run without it rather than spend a request that is bound to fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from prioris.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ParseError,
    ProviderUnavailableError,
)
from prioris.identifiers import arxiv_id_from_doi as _arxiv_from_doi
from prioris.identifiers import normalise_arxiv
from prioris.models import Work
from prioris.sources.http import ProviderHttp

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

_OPENALEX_WORK = re.compile(
    r"^(?:openalex:|https?://(?:www\.)?openalex\.org/(?:works/)?)?(W\d+)$", re.I
)
_DOI_PREFIX = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", re.I)
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7}(?:v\d+)?"
_ARXIV_URL = re.compile(
    rf"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/({_ARXIV_NEW}|{_ARXIV_OLD})"
    r"(?:\.pdf)?/?(?:[?#].*)?$",
    re.I,
)
_PMC_URL = re.compile(
    r"(?:ncbi\.nlm\.nih\.gov/pmc/articles/|pmc\.ncbi\.nlm\.nih\.gov/articles/"
    r"|europepmc\.org/(?:article/PMC/|articles/))(PMC\d+)",
    re.I,
)


def rebuild_abstract(inverted_index: dict[str, Any] | None) -> str:
    """Plain text from OpenAlex's ``{"word": [positions]}`` abstract encoding.

    OpenAlex may not redistribute abstracts verbatim, so it ships this index; words are
    placed back at their positions and joined by single spaces (missing positions skipped).
    """
    if not inverted_index or not isinstance(inverted_index, dict):
        return ""
    placed: dict[int, str] = {}
    for word, positions in inverted_index.items():
        if not isinstance(positions, list):
            continue
        for position in positions:
            if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
                placed[position] = str(word)
    return " ".join(placed[i] for i in sorted(placed))


def normalize_doi(raw: str | None) -> str | None:
    """``10.1234/abc`` (lower-case) from a bare DOI, ``doi:`` or a doi.org URL; else None."""
    if not raw or not isinstance(raw, str):
        return None
    text = raw.strip()
    stripped = _DOI_PREFIX.sub("", text)
    if stripped != text and text.lower().startswith("http"):
        stripped = unquote(stripped)  # URL form: percent-decoded like prioris.identifiers
    doi = stripped.strip().lower()
    return (
        doi if doi.startswith("10.") and "/" in doi and not any(c.isspace() for c in doi) else None
    )


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """The arXiv id in a DataCite arXiv DOI (``10.48550/arXiv.2401.01234``), else None."""
    return _arxiv_from_doi(doi) if doi else None


def arxiv_id_from_url(url: str | None) -> str | None:
    """The arXiv id (canonical spelling) in an ``arxiv.org/abs|pdf|html/`` URL, else None."""
    if not url or not isinstance(url, str):
        return None
    match = _ARXIV_URL.match(url.strip())
    return normalise_arxiv(match.group(1)) if match else None


def _tail(url: Any) -> str | None:
    """Last path segment of an OpenAlex id URL (``https://pubmed.../123`` -> ``123``)."""
    if not isinstance(url, str) or not url.strip():
        return None
    return url.strip().rstrip("/").rsplit("/", 1)[-1] or None


def _pmcid(raw: Any) -> str | None:
    tail = _tail(raw)
    if not tail:
        return None
    digits = tail.upper().removeprefix("PMC")
    return f"PMC{digits}" if digits.isdigit() else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    """An int from an int or ASCII digits ("²" is a digit to str.isdigit but not to int)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= 18:
            return int(text)
    return None


def _str(value: Any) -> str | None:
    """A non-empty stripped string, or None for anything else (a number, a list, ...)."""
    return value.strip() or None if isinstance(value, str) else None


def _location(loc: dict[str, Any]) -> dict[str, Any]:
    """The part of an OpenAlex location the fetch ladder and users need."""
    source = _dict(loc.get("source"))
    return {
        "version": loc.get("version") if isinstance(loc.get("version"), str) else None,
        "pdf_url": loc.get("pdf_url") if isinstance(loc.get("pdf_url"), str) else None,
        "landing_page_url": (
            loc.get("landing_page_url") if isinstance(loc.get("landing_page_url"), str) else None
        ),
        "is_oa": loc.get("is_oa") if isinstance(loc.get("is_oa"), bool) else None,
        "source": source.get("display_name")
        if isinstance(source.get("display_name"), str)
        else None,
        "license": loc.get("license") if isinstance(loc.get("license"), str) else None,
    }


def _locations(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """All locations, with ``best_oa_location`` / ``primary_location`` added if missing."""
    raw = [_dict(loc) for loc in _list(obj.get("locations")) if isinstance(loc, dict)]
    for extra_key in ("best_oa_location", "primary_location"):
        extra = _dict(obj.get(extra_key))
        if extra and extra not in raw:
            raw.append(extra)
    out: list[dict[str, Any]] = []
    for loc in raw:
        parsed = _location(loc)
        if parsed not in out:
            out.append(parsed)
    return out


def _authors(obj: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for authorship in _list(obj.get("authorships")):
        authorship = _dict(authorship)
        name = _dict(authorship.get("author")).get("display_name") or authorship.get(
            "raw_author_name"
        )
        if isinstance(name, str) and name.strip():
            names.append(name.strip())
    return names


def _concepts(obj: dict[str, Any]) -> list[str]:
    """Topic names (primary first), then legacy concept names, without duplicates."""
    names: list[str] = []
    entries = [obj.get("primary_topic"), *_list(obj.get("topics")), *_list(obj.get("concepts"))]
    for entry in entries:
        name = _dict(entry).get("display_name")
        if isinstance(name, str) and name.strip() and name.strip() not in names:
            names.append(name.strip())
    return names


def _find_arxiv(
    doi: str | None, ids: dict[str, Any], locations: list[dict[str, Any]]
) -> str | None:
    found = arxiv_id_from_doi(doi)
    if found:
        return found
    for value in ids.values():
        if isinstance(value, str):
            found = arxiv_id_from_url(value) or arxiv_id_from_doi(normalize_doi(value))
            if found:
                return found
    for loc in locations:
        found = arxiv_id_from_url(loc.get("landing_page_url")) or arxiv_id_from_url(
            loc.get("pdf_url")
        )
        if found:
            return found
    return None


def _find_pmcid(ids: dict[str, Any], locations: list[dict[str, Any]]) -> str | None:
    found = _pmcid(ids.get("pmcid"))
    if found:
        return found
    for loc in locations:
        for url in (loc.get("landing_page_url"), loc.get("pdf_url")):
            match = _PMC_URL.search(url or "")
            if match:
                return match.group(1).upper()
    return None


def parse_openalex_work(obj: dict[str, Any]) -> Work:
    """One OpenAlex work object as a :class:`Work` (id ``openalex:W…``, aliases, OA data).

    Partial objects (``select=``) are accepted; a record with neither an OpenAlex id nor a
    DOI cannot be identified and raises ParseError.
    """
    if not isinstance(obj, dict):
        raise ParseError(f"OpenAlex work is not a JSON object: {type(obj).__name__}")
    ids = _dict(obj.get("ids"))
    wid = None
    for candidate in (obj.get("id"), ids.get("openalex")):
        match = _OPENALEX_WORK.match(candidate.strip()) if isinstance(candidate, str) else None
        if match:
            wid = match.group(1).upper()
            break
    doi = normalize_doi(obj.get("doi")) or normalize_doi(ids.get("doi"))
    locations = _locations(obj)
    arxiv_id = _find_arxiv(doi, ids, locations)
    pmcid = _find_pmcid(ids, locations)
    pmid = _tail(ids.get("pmid"))

    aliases: list[str] = []
    if wid:
        aliases.append(f"openalex:{wid}")
    if doi:
        aliases.append(f"doi:{doi}")
    if arxiv_id:
        aliases.append(f"arxiv:{arxiv_id}")
    if pmcid:
        aliases.append(f"europepmc:{pmcid}")
    if pmid and pmid.isdigit():
        aliases.append(f"pmid:{pmid}")
    if not aliases:
        raise ParseError("OpenAlex work has neither an OpenAlex id nor a DOI")

    open_access = _dict(obj.get("open_access"))
    best = _dict(obj.get("best_oa_location"))
    primary_source = _dict(_dict(obj.get("primary_location")).get("source"))
    title = _str(obj.get("title")) or _str(obj.get("display_name")) or ""
    abstract = rebuild_abstract(obj.get("abstract_inverted_index"))
    work_type = obj.get("type") if isinstance(obj.get("type"), str) else None

    extra: dict[str, Any] = {"locations": locations}
    score = obj.get("relevance_score")
    if isinstance(score, int | float) and not isinstance(score, bool) and abs(score) < 1e300:
        extra["relevance_score"] = float(score)
    if isinstance(open_access.get("oa_url"), str):
        extra["oa_url"] = open_access["oa_url"]
    if isinstance(obj.get("type_crossref"), str):
        extra["type_crossref"] = obj["type_crossref"]

    return Work(
        id=aliases[0],
        title=title,
        authors=_authors(obj),
        year=_int(obj.get("publication_year")),
        venue=_str(primary_source.get("display_name")),
        abstract=abstract or None,
        aliases=aliases,
        source="openalex",
        published=obj.get("publication_date")
        if isinstance(obj.get("publication_date"), str)
        else None,
        type=work_type,
        is_oa=open_access.get("is_oa") if isinstance(open_access.get("is_oa"), bool) else None,
        oa_status=(
            open_access.get("oa_status") if isinstance(open_access.get("oa_status"), str) else None
        ),
        pdf_url=best.get("pdf_url") if isinstance(best.get("pdf_url"), str) else None,
        cited_by_count=_int(obj.get("cited_by_count")),
        concepts=_concepts(obj),
        is_preprint=(work_type == "preprint") if work_type else None,
        extra=extra,
    )


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
        raise InvalidRequestError(f"from_year {from_year} is after to_year {to_year}")
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
        meta = _dict(payload.get("meta"))
        try:
            works = [parse_openalex_work(item) for item in payload["results"]]
        except ParseError as exc:
            raise ProviderUnavailableError(f"openalex: unreadable work record ({exc})") from exc
        total = _int(meta.get("count"))
        total = len(works) if total is None else total
        page = _int(meta.get("page")) or page
        per_page = _int(meta.get("per_page")) or per_page
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
    ) -> OpenAlexPage:
        """Keyword search over ``/works`` ranked by relevance or by citation count."""
        query = (query or "").strip()
        if not query:
            raise InvalidRequestError("an OpenAlex search needs a non-empty query")
        if sort not in SORTS:
            raise InvalidRequestError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        _check_paging(page, per_page, MAX_PER_PAGE)
        params: dict[str, Any] = {"search": query, "page": page, "per_page": per_page}
        clauses = year_filter(from_year, to_year)
        if clauses:
            params["filter"] = ",".join(clauses)
        if SORTS[sort]:
            params["sort"] = SORTS[sort]
        payload = self.http.get_json(f"{self.base_url}/works", params=self._params(params))
        return self._page(payload, page, per_page)

    def get_work(self, identifier: str) -> Work:
        """One work by OpenAlex id (``W123``, ``openalex:W123``, URL) or DOI (any form)."""
        raw = (identifier or "").strip()
        match = _OPENALEX_WORK.match(raw)
        if match:
            key = match.group(1).upper()
        else:
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
            item = _dict(item)
            key = _tail(item.get("id"))
            if not key:
                continue
            entry = {"id": key, "display_name": item.get("display_name") or key}
            if isinstance(item.get("description"), str):
                entry["description"] = item["description"]
            if _int(item.get("works_count")) is not None:
                entry["works_count"] = _int(item.get("works_count"))
            types.append(entry)
        return types
