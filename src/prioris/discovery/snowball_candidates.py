"""A snowball candidate: one work met by the snowball, and how it is made from a sighting.

:class:`Candidate` holds what the sightings of one work said (metadata, identifiers, the
seeds it is tied to either way, where it was found), merges another sighting into itself
and gives its answer form with discovery's fetch route. :func:`from_reference` makes one
from a seed's parsed reference (backward, found locally) and :func:`from_record` from an
OpenAlex record. Separate from identity (:mod:`prioris.discovery.snowball_identity`), from
the pool that dedupes sightings (:mod:`prioris.discovery.snowball_dedupe`) and from the
score (:mod:`prioris.discovery.snowball`): this is the data they pass around.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from prioris.discovery.routes import fetch_route
from prioris.discovery.snowball_identity import candidate_key, clean_ids, identity_keys
from prioris.ingest.reference_title import title_problem
from prioris.models import Work


@dataclass
class Candidate:
    """One work met by the snowball, merged over every sighting."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    ids: dict[str, str] = field(default_factory=dict)
    cited_by_count: int | None = None
    is_oa: bool | None = None
    pdf_url: str | None = None
    cited_by_seeds: set[str] = field(default_factory=set)
    """Seeds whose reference lists hold it (backward)."""
    cites_seeds: set[str] = field(default_factory=set)
    """Seeds it cites (forward)."""
    found_by: set[str] = field(default_factory=set)
    """``local`` (a PDF's reference list) and/or ``openalex``."""
    score: float = 0.0
    why: dict[str, Any] = field(default_factory=dict)
    title_parsed: bool = True
    """False when ``title`` is a reference's raw text (no title could be read from it)."""

    @property
    def key(self) -> str:
        return candidate_key(self.ids, self.title, self.year) or ""

    def identities(self) -> list[str]:
        return identity_keys(self.ids, self.title, self.year)

    def merge(self, other: Candidate) -> None:
        """Take what this sighting lacks from ``other``; seed links are united. OpenAlex's
        metadata wins over a parsed reference's (it is a whole record, not a line)."""
        prefer_other = "openalex" in other.found_by and "openalex" not in self.found_by
        if other.title_parsed and not self.title_parsed and other.title:
            self.title, self.title_parsed = other.title, True  # a real title over raw text
        for name in ("title", "year", "venue", "abstract", "cited_by_count", "is_oa", "pdf_url"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if theirs not in (None, "") and (mine in (None, "") or prefer_other):
                setattr(self, name, theirs)
        if other.authors and (not self.authors or prefer_other):
            self.authors = list(other.authors)
        for kind, value in other.ids.items():
            self.ids.setdefault(kind, value)
        self.cited_by_seeds |= other.cited_by_seeds
        self.cites_seeds |= other.cites_seeds
        self.found_by |= other.found_by

    def fetch_route(self) -> dict[str, Any]:
        """Discovery's fetch ladder for this candidate (:func:`routes.fetch_route`)."""
        aliases = [
            f"{prefix}{self.ids[kind]}"
            for kind, prefix in (("arxiv", "arxiv:"),)
            if kind in self.ids
        ]
        if self.ids.get("pmcid"):
            aliases.append(f"europepmc:{self.ids['pmcid']}")
        locations = []
        if self.pdf_url and self.is_oa is not False:
            locations.append({"is_oa": True, "pdf_url": self.pdf_url, "version": None})
        work = Work(id=self.key, aliases=aliases, extra={"locations": locations})
        return fetch_route(work)

    def to_dict(self) -> dict[str, Any]:
        """SPEC's candidate: title, authors, year, ids, score, why, fetch_route (+ key)."""
        return {
            "key": self.key,
            "title": self.title,
            "title_parsed": self.title_parsed,
            "authors": list(self.authors),
            "year": self.year,
            "venue": self.venue,
            "ids": dict(self.ids),
            "cited_by_count": self.cited_by_count,
            "score": self.score,
            "why": self.why,
            "fetch_route": self.fetch_route(),
        }


def from_reference(ref: Mapping[str, Any], seed: str) -> Candidate | None:
    """A candidate from a seed's parsed reference (backward, ``found_by`` local), or None
    when the line gave neither a title nor an identifier. A reference whose title is no
    title (:func:`~prioris.ingest.reference_title.title_problem`) or that has none is
    shown by its raw text with ``title_parsed`` False, never as a title."""
    ids = clean_ids({"doi": ref.get("doi"), "arxiv": ref.get("arxiv")})
    title = " ".join(str(ref.get("title") or "").split())
    rejected = bool(title) and title_problem(title) is not None
    if rejected:
        title = ""  # an author list, a citation string, a venue: not a title (issue 39)
    if not title and not ids and not rejected:
        return None
    parsed = bool(title)
    if not title:
        title = " ".join(str(ref.get("raw") or "").split())[:300]
    year = ref.get("year") if isinstance(ref.get("year"), int) else None
    return Candidate(
        title=title,
        authors=[str(a) for a in ref.get("authors") or []],
        year=year,
        venue=ref.get("venue") or None,
        ids=ids,
        cited_by_seeds={seed},
        found_by={"local"},
        title_parsed=parsed,
    )


def from_record(record: Mapping[str, Any]) -> Candidate | None:
    """A candidate from an OpenAlex record (:class:`~prioris.discovery.graph.GraphRecords`);
    the caller adds which seeds it is tied to."""
    ids = clean_ids(record)
    title = " ".join(str(record.get("title") or "").split())
    if not title and not ids:
        return None
    year = record.get("year") if isinstance(record.get("year"), int) else None
    count = record.get("cited_by_count")
    return Candidate(
        title=title,
        authors=[str(a) for a in record.get("authors") or []],
        year=year,
        venue=record.get("venue") or None,
        abstract=record.get("abstract") or None,
        ids=ids,
        cited_by_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        is_oa=record.get("is_oa") if isinstance(record.get("is_oa"), bool) else None,
        pdf_url=record.get("pdf_url") if isinstance(record.get("pdf_url"), str) else None,
        found_by={"openalex"},
    )
