"""What every alert source shares: a candidate's identifiers in the library's canonical
forms, a provider's :class:`~prioris.models.Work` turned into a
:class:`~prioris.alerts.protocols.Candidate`, the bound on how many a run returns, and the
one way a failure is reported (naming the source).

Identifiers are written as :func:`prioris.identifiers.parse_identifier` writes them
(``doi:10.1/x``, ``arxiv:2401.01234``, ``europepmc:PMC1``, ``europepmc:MED:1``,
``openalex:W1``), plus ``pmid:1`` (the alias Europe PMC records are stored under too), so
the step that marks candidates already in the library asks the library once with all of
them. An arXiv id is given without its version as well: the library matches an
unversioned id against any stored version.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from prioris.alerts.protocols import Candidate
from prioris.alerts.when import check_since, normalise_date
from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError, PriorisError
from prioris.identifiers import arxiv_id_from_doi, parse_identifier
from prioris.models import Work

DEFAULT_MAX_RESULTS = 200
"""Candidates one source returns in one run unless told otherwise."""
HARD_MAX_RESULTS = 5000
"""No source returns more than this in one run, whatever it is told (a run ranks them all)."""

T = TypeVar("T")


def canonical_identifiers(values: Iterable[str | None]) -> tuple[str, ...]:
    """The canonical forms of ``values`` (any form :func:`parse_identifier` reads, or a
    bare ``pmid``-prefixed number), deduplicated in order; text that is no identifier is
    left out (a feed's link to a publisher's page is not one)."""
    out: list[str] = []
    for value in values:
        if not isinstance(value, str) or not value.strip():
            continue
        text = value.strip()
        for prefix in ("info:doi/", "urn:doi:"):  # Atom ids and RSS guids (RFC 4452, 3986)
            if text.lower().startswith(prefix):
                text = "doi:" + text[len(prefix) :]
        try:
            ident = parse_identifier(text)
        except InvalidRequestError:
            continue
        if ident.scheme == "file":
            continue
        out.append(ident.canonical)
        if ident.scheme == "doi" and arxiv_id_from_doi(ident.value):
            out.append(f"arxiv:{arxiv_id_from_doi(ident.value)}")
        if ident.scheme == "arxiv" and ident.version is not None:
            out.append(f"arxiv:{ident.versionless}")
        if ident.scheme == "europepmc" and ident.value.startswith("MED:"):
            out.append(f"pmid:{ident.value.removeprefix('MED:')}")
    return tuple(dict.fromkeys(out))


def _flag(value: Any) -> str | None:
    return None if value is None else ("true" if value else "false")


def candidate_from_work(work: Work, source: str, **extra: str | None) -> Candidate:
    """A provider's record as a candidate: its id, title, abstract as the text the ranking
    reads, the day it appeared, every identifier it carries, and a few facts in ``extra``
    (venue, preprint flag, type, link) as text."""
    facts: dict[str, str | None] = {
        "venue": work.venue,
        "type": work.type,
        "year": str(work.year) if work.year else None,
        "authors": "; ".join(work.authors[:20]) or None,
        "preprint": _flag(work.is_preprint),
        "url": work.extra.get("abs_url") if isinstance(work.extra, dict) else None,
        **extra,
    }
    return Candidate(
        id=work.id,
        title=work.title or "",
        text=work.abstract or "",
        source=source,
        published=normalise_date(work.published) or (str(work.year) if work.year else None),
        identifiers=canonical_identifiers([work.id, *work.aliases]),
        extra={k: v for k, v in facts.items() if isinstance(v, str) and v},
    )


def check_max(max_results: Any, what: str) -> int:
    """``max_results`` as an int in 1..:data:`HARD_MAX_RESULTS`, else invalid_request."""
    if isinstance(max_results, bool) or not isinstance(max_results, int):
        raise InvalidRequestError(f"{what}: max_results must be an integer, got {max_results!r}")
    if not 1 <= max_results <= HARD_MAX_RESULTS:
        raise InvalidRequestError(
            f"{what}: max_results must be between 1 and {HARD_MAX_RESULTS}, got {max_results}"
        )
    return max_results


def take(items: Iterable[T], limit: int) -> list[T]:
    """At most ``limit`` items (the iterable is not read past them)."""
    out: list[T] = []
    if limit <= 0:
        return out
    for item in items:
        out.append(item)
        if len(out) >= limit:
            break
    return out


@contextmanager
def failing_as(name: str) -> Iterator[None]:
    """Re-raise any Prioris failure inside as the same kind (same code), its message
    starting with the source's name and the error carrying it as ``source``: the step that
    runs several sources says which one failed and keeps the previous results."""
    try:
        yield
    except PriorisError as exc:
        if getattr(exc, "source", None) == name:
            raise
        named = type(exc)(f"alert source {name!r} failed: {exc.message}")
        named.source = name  # type: ignore[attr-defined]
        raise named from exc


class PagedSource:
    """What every provider source shares: ``candidates(since)`` checks the date, starts
    the run's ``notes`` afresh and names the source in any failure (:func:`failing_as`);
    a subclass sets ``name`` and writes ``_collect(since)``, the pages it asks for."""

    name: str
    notes: list[str]

    def candidates(self, since: str | None) -> list[Candidate]:
        """The source's candidates since ``since`` (all, up to its bound, when None)."""
        self.notes = []
        with failing_as(self.name):
            return self._collect(check_since(since))

    def _collect(self, since: str | None) -> list[Candidate]:
        raise NotImplementedError


def distinct(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Candidates without repeats: the first of several sharing an id or any identifier
    (the same preprint met on two pages, or through two providers of one saved search)."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for candidate in candidates:
        keys = {candidate.id, *candidate.identifiers}
        if keys & seen:
            continue
        seen |= keys
        out.append(candidate)
    return out


def read_local_file(path: Path, max_bytes: int, what: str) -> bytes:
    """The bytes of a local candidates file, refused past ``max_bytes`` (file_too_large,
    read no further than that), not_found when it is absent, invalid_request when it is
    not a regular file."""
    try:
        if not path.exists():
            raise NotFoundError(f"{what}: no file at {path}")
        if not path.is_file():
            raise InvalidRequestError(f"{what}: {path} is not a file")
        size = path.stat().st_size
        if size > max_bytes:
            raise FileTooLargeError(
                f"{what}: {path} is {size} bytes, more than the limit of {max_bytes} bytes"
            )
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InvalidRequestError(f"{what}: cannot read {path} ({exc.strerror or exc})") from exc
    if len(data) > max_bytes:  # grew since it was measured
        raise FileTooLargeError(f"{what}: {path} is more than the limit of {max_bytes} bytes")
    return data
