"""Discovery: OpenAlex semantic search, marked against the local library, with fetch routes.

:class:`DiscoveryService` validates the request completely before spending a request (the
text limit, paging, years), asks OpenAlex for works whose title and abstract embed close to
the text, and returns hits marked ``in_library`` and given a :func:`fetch_route`. It knows
nothing of storage: the library hands it ``known_aliases``, a function saying which of the
given canonical alias strings already belong to stored works.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from prioris.discovery.routes import fetch_route
from prioris.errors import InvalidRequestError
from prioris.models import Work
from prioris.sources.openalex import SEMANTIC_MAX_CHARS, SEMANTIC_MAX_RESULTS, OpenAlexClient

KnownAliases = Callable[[Sequence[str]], set[str]]


@dataclass
class DiscoveryHit:
    """One discovered work: its metadata, whether the library has it, and how to fetch it."""

    id: str
    doi: str | None
    title: str
    authors: list[str]
    year: int | None
    venue: str | None
    type: str | None
    abstract: str | None
    cited_by_count: int | None
    relevance_score: float | None
    is_oa: bool | None
    oa_status: str | None
    in_library: bool
    fetch_route: dict[str, Any]
    aliases: list[str] = field(default_factory=list)

    @classmethod
    def from_work(cls, work: Work, *, in_library: bool) -> DiscoveryHit:
        doi = next((a[4:] for a in work.aliases if a.startswith("doi:")), None)
        score = work.extra.get("relevance_score")
        return cls(
            id=work.id,
            doi=doi,
            title=work.title,
            authors=list(work.authors),
            year=work.year,
            venue=work.venue,
            type=work.type,
            abstract=work.abstract,
            cited_by_count=work.cited_by_count,
            relevance_score=float(score) if isinstance(score, int | float) else None,
            is_oa=work.is_oa,
            oa_status=work.oa_status,
            in_library=in_library,
            fetch_route=fetch_route(work),
            aliases=list(work.aliases),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DiscoveryPage:
    """A page of hits; ``total``/``has_more`` are OpenAlex's counts for the query.

    They describe OpenAlex's result set, not what is left after marking library works, so a
    page may hold fewer hits than ``per_page`` while ``has_more`` is still true.
    """

    total: int
    has_more: bool
    page: int
    per_page: int
    results: list[DiscoveryHit] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "has_more": self.has_more,
            "page": self.page,
            "per_page": self.per_page,
            "results": [hit.to_dict() for hit in self.results],
        }


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequestError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise InvalidRequestError(f"{name} must be {bound}, got {value}")


def validate_request(
    text: str,
    *,
    page: int,
    per_page: int,
    from_year: int | None,
    to_year: int | None,
) -> str:
    """The stripped text, or InvalidRequestError; never truncates (silent loss would mislead)."""
    if not isinstance(text, str):
        raise InvalidRequestError("discovery text must be a string")
    stripped = text.strip()
    if not stripped:
        raise InvalidRequestError("discovery needs a non-empty text (a question or an abstract)")
    if len(stripped) > SEMANTIC_MAX_CHARS:
        raise InvalidRequestError(
            f"discovery text is {len(stripped)} characters; at most {SEMANTIC_MAX_CHARS} are "
            "accepted (OpenAlex semantic search limit); shorten it, e.g. to the abstract"
        )
    _check_int("page", page, 1)
    _check_int("per_page", per_page, 1, SEMANTIC_MAX_RESULTS)
    for name, year in (("from_year", from_year), ("to_year", to_year)):
        if year is not None:
            _check_int(name, year, 1, 9999)
    if from_year is not None and to_year is not None and from_year > to_year:
        raise InvalidRequestError(f"the start year {from_year} is after the end year {to_year}")
    return stripped


class DiscoveryService:
    """Semantic discovery over OpenAlex, marked against the local library."""

    def __init__(self, client: OpenAlexClient, known_aliases: KnownAliases) -> None:
        self.client = client
        self.known_aliases = known_aliases

    def discover(
        self,
        text: str,
        *,
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
        open_access_only: bool = False,
    ) -> DiscoveryPage:
        """Works close in meaning to ``text`` (up to 2000 characters), one page at a time."""
        stripped = validate_request(
            text, page=page, per_page=per_page, from_year=from_year, to_year=to_year
        )
        result = self.client.search_semantic(
            stripped,
            page=page,
            per_page=per_page,
            from_year=from_year,
            to_year=to_year,
            open_access_only=bool(open_access_only),
        )
        every_alias = sorted({alias for work in result.works for alias in [work.id, *work.aliases]})
        known = set(self.known_aliases(every_alias)) if every_alias else set()
        hits = [
            DiscoveryHit.from_work(
                work, in_library=any(a in known for a in [work.id, *work.aliases])
            )
            for work in result.works
        ]
        return DiscoveryPage(
            total=result.total,
            has_more=result.has_more,
            page=result.page,
            per_page=result.per_page,
            results=hits,
        )
