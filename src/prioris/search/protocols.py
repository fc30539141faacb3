"""What search needs from a storage backend: candidate lists and the rows of the hits.

:class:`~prioris.search.service.SearchService` does everything else (query parsing,
fusion, work collapsing, snippets) the same way over any backend; each engine
(:mod:`prioris.engines`) implements these calls, and the filters and scores here are the
words both sides speak.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from prioris.errors import InvalidRequestError

VEC_MAX_K = 4096  # sqlite-vec's ceiling for k in one KNN query


MIN_YEAR, MAX_YEAR = 1, 9999  # year filters; SQLite cannot bind integers past 64 bits


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions shared by every mode."""

    source: str | None = None
    from_year: int | None = None
    to_year: int | None = None
    work_ids: tuple[str, ...] | None = None
    # a year filter leaves out works without a year unless they are asked for
    include_undated: bool = False
    # only works without a year: how the service counts what a year filter left out
    undated_only: bool = False
    # collections and tags (storage.labels' rules): the service turns them into work_ids
    # once (WorkLabels), so engines only ever see the id restriction
    collections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def has_labels(self) -> bool:
        """Whether a collection or tag restriction is set."""
        return bool(self.collections or self.tags)

    @property
    def has_years(self) -> bool:
        """Whether a year bound is set (the filter that works without a year fall out of)."""
        return self.from_year is not None or self.to_year is not None

    def validate(self) -> None:
        # said in words every interface shares (--from-year, from_year, "From year")
        for label, year in (("start", self.from_year), ("end", self.to_year)):
            if year is not None and not MIN_YEAR <= year <= MAX_YEAR:
                raise InvalidRequestError(
                    f"the {label} year must be between {MIN_YEAR} and {MAX_YEAR}, got {year}"
                )
        if (
            self.from_year is not None
            and self.to_year is not None
            and self.from_year > self.to_year
        ):
            raise InvalidRequestError(
                f"the start year {self.from_year} is after the end year {self.to_year}"
            )

    def column_clauses(
        self, alias: str, *, unknown_year: str = "IS NULL"
    ) -> tuple[list[str], list[Any]]:
        """The source and year restrictions as SQL on ``alias``'s ``source`` and ``year``
        columns (``?`` placeholders), the same text for every engine, so a filter means
        the same thing on each; the work-id restriction is each engine's own SQL.

        ``unknown_year`` is how the table marks a work without a year (``IS NULL``;
        sqlite-vec's metadata columns cannot hold NULL, so its ``= 0``)."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.source:
            clauses.append(f"{alias}.source = ?")
            params.append(self.source)
        unknown = f"{alias}.year {unknown_year}"
        if self.undated_only:
            clauses.append(unknown)
            return clauses, params
        bounds: list[str] = []
        if self.from_year is not None:
            bounds.append(f"{alias}.year >= ?")
            params.append(self.from_year)
        if self.to_year is not None:
            bounds.append(f"{alias}.year <= ?")
            params.append(self.to_year)
            if unknown_year != "IS NULL":
                bounds.append(f"NOT {unknown}")  # 0 is below every upper bound
        if bounds and self.include_undated:
            clauses.append(f"({unknown} OR ({' AND '.join(bounds)}))")
        else:
            clauses.extend(bounds)
        return clauses, params


@dataclass(frozen=True)
class ChunkScore:
    chunk_id: int
    work_id: str
    score: float  # higher is better


def best_per_work(scores: Sequence[ChunkScore]) -> list[ChunkScore]:
    """First (best) chunk of each work, keeping the list's order."""
    seen: set[str] = set()
    out = []
    for item in scores:
        if item.work_id not in seen:
            seen.add(item.work_id)
            out.append(item)
    return out


@dataclass(frozen=True)
class Passage:
    """The part of a chunk a hit shows."""

    chunk_id: int
    text: str
    page_start: int | None
    page_end: int | None
    char_start: int | None
    section: str = "body"  # the part of the paper (prioris.models.SECTIONS)


@dataclass(frozen=True)
class WorkSummary:
    """The part of a work a hit shows (never its Markdown)."""

    id: str
    title: str
    authors: list[str]
    year: int | None
    source: str | None


class SearchBackend(Protocol):
    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        """The ``limit`` best chunks by BM25 (higher score is better), filters applied
        inside the query; a malformed expression raises ``InvalidRequestError``."""
        ...

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        """The ``k`` nearest chunks by cosine (filters inside the KNN: k when k exist)."""
        ...

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        """Text and position of the chunks a response shows."""
        ...

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        """Title, authors, year and source of the works a response shows."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class ChunkVectors(Protocol):
    """What a backend offers for vector pseudo-relevance feedback (Rocchio): the stored
    vectors of a few chunks. Optional: without it the feedback pass leaves the query
    vector where it is."""

    def vectors(self, chunk_ids: Sequence[int]) -> np.ndarray:
        """One row per chunk found (an empty array when none is)."""
        ...


@runtime_checkable
class WorkCounts(Protocol):
    """What a backend offers to say how many works a filter covers (the works without a
    year that a year filter left out). Optional: without it vector and hybrid responses
    do not say."""

    def count_works(self, filters: SearchFilters) -> int:
        """Works matching the source, year and id restrictions (no query)."""
        ...


@runtime_checkable
class WorkLabels(Protocol):
    """What a backend offers to filter by collection and tag: the works a label filter
    keeps (:func:`prioris.storage.labels.works_in`). Optional: without it a search with
    such a filter is refused, never run unfiltered."""

    def labelled_works(self, collections: Sequence[str], tags: Sequence[str]) -> set[str]:
        """The ids of the works in any of ``collections`` carrying all of ``tags``."""
        ...


@runtime_checkable
class ChunkSections(Protocol):
    """What a backend offers so a search shows a passage that answers: the section label
    of chunks (``chunks.section``). Optional: without it every chunk counts as body."""

    def sections(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The label of each chunk found (others are left out)."""
        ...


@runtime_checkable
class PageSpans(Protocol):
    """Backends that know where each PDF page of a work's text begins and ends, so a
    sentence quoted as evidence names the page it is printed on."""

    def page_spans(self, work_ids: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
        """``(page number, start, end)`` per PDF-indexed work, in page order."""
        ...


@runtime_checkable
class WorkVectors(Protocol):
    """What a backend offers for the work score of vector search: each work's own vector
    (title + abstract). Optional: without it a work is scored by its best chunk alone."""

    def work_vectors(self, work_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The current vector of each work that has one (others are left out)."""
        ...
