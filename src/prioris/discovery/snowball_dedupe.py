"""Snowball candidates merged by identity and by title, and set against the library.

:class:`CandidatePool` joins the sightings of one work: any shared key (DOI, arXiv id,
OpenAlex id, normalised title + year) makes two sightings one candidate, and
:meth:`CandidatePool.merge_similar` joins titles spelt apart (a typo, an OCR slip, a
preprint a year off its version). :class:`LibraryIndex` tells a candidate that is already
a library work (by alias, or by a fuzzy title + year match). Both rest on one rule,
:func:`titles_match` with :data:`TITLE_MATCH_THRESHOLD` and :data:`YEAR_SLACK`, and two
works with different identifiers of one kind are never joined. Separate from the score
(:mod:`prioris.discovery.snowball`): this decides which candidates there are, not their
order. rapidfuzz is imported where a comparison is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from prioris.discovery.snowball_candidates import Candidate
from prioris.discovery.snowball_identity import (
    ID_KINDS,
    library_aliases,
    normalise_title,
    same_id,
)

TITLE_MATCH_THRESHOLD = 92.0
"""rapidfuzz ``ratio`` (0-100) of two normalised titles from which, with years within
:data:`YEAR_SLACK`, a candidate is taken for a library work. Measured on the 167 distinct
real titles of the shared fixtures (OpenAlex records, BibTeX and Zotero libraries;
docs/usage.md, "Snowballing"; ``bench/bench_snowball_titles.py``): the closest two
distinct works scored 89.5, while every title with one typo scored 94.1 or more and with
two words run together 97.0 or more."""
YEAR_SLACK = 1
"""A preprint and its published version are often a year apart."""
AUTHOR_TITLE_THRESHOLD = 85.0
"""With the same first author, titles this alike (rapidfuzz ``ratio``) and years within
:data:`VERSION_YEAR_SLACK` are one work: a preprint and its published version, whose
title often gains a subtitle or changes a word on review (issue 39)."""
VERSION_YEAR_SLACK = 2

_LEADING = frozenset({"a", "an", "the", "on", "of", "in", "for", "to", "towards", "toward"})
"""Words skipped when a title's first word picks the block it is compared within."""


class CandidatePool:
    """Candidates merged by identity: a sighting sharing any key with a known candidate
    (its DOI, arXiv id, OpenAlex id or normalised title + year) is that candidate."""

    def __init__(self) -> None:
        self._all: list[Candidate] = []
        self._by_key: dict[str, Candidate] = {}

    def add(self, candidate: Candidate) -> Candidate:
        keys = candidate.identities()
        found: list[Candidate] = []
        for k in keys:  # every known candidate it shares a key with, once each
            known = self._by_key.get(k)
            if known is None or _conflicting(known.ids, candidate.ids):
                continue  # the same title with another DOI: another work
            if all(known is not f for f in found):
                found.append(known)
        if not found:
            self._all.append(candidate)
            target = candidate
        else:
            target = found[0]
            for twin in found[1:]:  # a sighting that joins two known candidates
                target.merge(twin)
                self._all = [c for c in self._all if c is not twin]
            target.merge(candidate)
        for k in target.identities():
            self._by_key[k] = target
        return target

    def candidates(self) -> list[Candidate]:
        return list(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def merge_similar(self) -> int:
        """Join candidates whose titles are the same work spelt apart (a typo, an OCR
        slip, a year one off between a preprint and its version): a title within
        :data:`TITLE_MATCH_THRESHOLD` and years as :func:`titles_match` allows, or a
        preprint and its published version (:func:`versions_match`), and no identifier
        of the same kind that differs (two DOIs are two works). Titles are compared
        within blocks of the same first word, and versions also within blocks of the
        same first author (a published title may lose or gain its first word), so a
        whole-library snowball stays fast. Returns how many were joined into others."""
        by_word: dict[str, list[Candidate]] = {}
        by_author: dict[str, list[Candidate]] = {}
        for cand in self._all:
            words = normalise_title(cand.title).split()
            if words:
                head = next((w for w in words if w not in _LEADING), words[0])
                by_word.setdefault(head, []).append(cand)
                if cand.authors and _family(cand.authors[0]):
                    by_author.setdefault(_family(cand.authors[0]), []).append(cand)
        gone: set[int] = set()
        for group in by_word.values():
            _join(group, gone, titles_alone=True)
        for group in by_author.values():
            _join([c for c in group if id(c) not in gone], gone, titles_alone=False)
        if gone:
            self._all = [c for c in self._all if id(c) not in gone]
            self._by_key = {k: c for c in self._all for k in c.identities()}
        return len(gone)


def _join(group: list[Candidate], gone: set[int], *, titles_alone: bool) -> None:
    """Merge the candidates of one block that are one work into the first of them (the
    merged ones' ids go into ``gone``); ``titles_alone`` also joins by title and year."""
    if len(group) < 2:
        return
    from rapidfuzz import fuzz, process

    texts = [normalise_title(c.title) for c in group]
    scores = process.cdist(texts, texts, scorer=fuzz.ratio, score_cutoff=AUTHOR_TITLE_THRESHOLD)
    # a subtitle added on publication: every word of one title in the other
    subsets = process.cdist(texts, texts, scorer=fuzz.token_set_ratio, score_cutoff=100)
    for i, first in enumerate(group):
        if id(first) in gone:
            continue
        near = np.maximum(scores[i, i + 1 :], subsets[i, i + 1 :])
        for j in np.nonzero(near)[0] + i + 1:
            other = group[int(j)]
            if id(other) in gone or _conflicting(first.ids, other.ids):
                continue
            score = float(scores[i, j])
            shorter = min(len(texts[i].split()), len(texts[int(j)].split()))
            version = float(subsets[i, j]) if shorter >= 4 else 0.0
            if (titles_alone and titles_match(score, first.year, other.year)) or versions_match(
                max(score, version), first, other
            ):
                first.merge(other)
                gone.add(id(other))


def _conflicting(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    return any(
        kind in a and kind in b and same_id(kind, a[kind]) != same_id(kind, b[kind])
        for kind in ID_KINDS
    )


def _family(name: str) -> str:
    """A name's family name, folded (``Smith, J.``, ``J. Smith``, ``Smith J``)."""
    name = " ".join(name.replace(".", ". ").split())
    if "," in name:
        return normalise_title(name.split(",", 1)[0])
    words = [w for w in name.split() if len(w.strip(".")) > 1 and not w.isupper()]
    return normalise_title(words[-1] if words else name)


def versions_match(score: float, a: Candidate, b: Candidate) -> bool:
    """A preprint and its published version: the same first author, titles at least
    :data:`AUTHOR_TITLE_THRESHOLD` alike (words changed on review; 100 when one title's
    words, four or more, are all in the other: a subtitle added) and
    years at most :data:`VERSION_YEAR_SLACK` apart (or one unknown)."""
    if score < AUTHOR_TITLE_THRESHOLD or not a.authors or not b.authors:
        return False
    if _family(a.authors[0]) != _family(b.authors[0]) or not _family(a.authors[0]):
        return False
    if a.year is not None and b.year is not None:
        return abs(a.year - b.year) <= VERSION_YEAR_SLACK
    return True


def titles_match(score: float, year: int | None, other_year: int | None) -> bool:
    """Whether a title ``score`` (rapidfuzz ``ratio``) with these years names one work:
    at least :data:`TITLE_MATCH_THRESHOLD` with years at most :data:`YEAR_SLACK` apart,
    or 97 when either year is unknown."""
    if year is None or other_year is None:
        return score >= 97.0
    return score >= TITLE_MATCH_THRESHOLD and abs(year - other_year) <= YEAR_SLACK


@dataclass
class LibraryIndex:
    """What the library already holds: alias strings and (normalised title, year, id)."""

    aliases: set[str]
    titles: list[tuple[str, int | None, str]]
    choices: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.choices = [t for t, _, _ in self.titles]

    @classmethod
    def build(
        cls, aliases: Iterable[str], works: Iterable[tuple[str, str, int | None]]
    ) -> LibraryIndex:
        """From the known alias strings and ``(work id, title, year)`` of every work."""
        titles = [(normalise_title(t), y, w) for w, t, y in works if normalise_title(t)]
        return cls(set(aliases), titles)

    def match(self, candidate: Candidate) -> str | None:
        """The library work this candidate is: an alias it shares, else a title within
        :data:`TITLE_MATCH_THRESHOLD` and a year within :data:`YEAR_SLACK` (an unknown
        year on either side matches only a near-identical title, 97 or more)."""
        for alias in library_aliases(candidate.ids):
            if alias in self.aliases:
                return alias
        norm = normalise_title(candidate.title)
        if not norm or not self.titles:
            return None
        from rapidfuzz import fuzz, process

        for _text, score, index in process.extract_iter(
            norm, self.choices, scorer=fuzz.ratio, score_cutoff=TITLE_MATCH_THRESHOLD
        ):
            _, year, work_id = self.titles[index]
            if titles_match(score, candidate.year, year):
                return work_id
        return None
