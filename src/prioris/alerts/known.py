"""Which candidates the library already holds: by an identifier it knows (the service
asks the catalogue) or by a title that is the same once folded, published the same year
(or a year apart: a preprint and its journal version), fuzzily (RapidFuzz's ratio, so a
changed dash or a dropped article still matches)."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from prioris.alerts.protocols import Candidate

TITLE_RATIO = 93.0
"""The least RapidFuzz ratio (0-100) of two folded titles taken as one work's."""
MIN_TITLE_CHARS = 12
"""Shorter titles ("Editorial", "Introduction") are matched exactly only."""
_NON_WORD = re.compile(r"[\W_]+")


def fold_title(title: str) -> str:
    """A title's comparable form: accents, case and punctuation gone."""
    folded = unicodedata.normalize("NFKD", title.casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", plain).strip()


def candidate_year(candidate: Candidate) -> int | None:
    """The year a candidate was published, when its date says."""
    head = (candidate.published or "")[:4]
    return int(head) if head.isdigit() else None


def match_titles(
    library: Sequence[tuple[str, str, int | None]], candidates: Sequence[Candidate]
) -> dict[str, str]:
    """Candidate id -> the library work (``(id, title, year)``) it is, by title and year;
    candidates matched by none are left out. A candidate or work without a year matches
    on the title alone."""
    exact: dict[str, str] = {}
    by_year: dict[int | None, list[tuple[str, str]]] = defaultdict(list)
    for work_id, title, year in library:
        folded = fold_title(title)
        if folded:
            exact.setdefault(folded, work_id)
            by_year[year].append((folded, work_id))
    every = [entry for entries in by_year.values() for entry in entries]
    found: dict[str, str] = {}
    for candidate in candidates:
        folded = fold_title(candidate.title)
        if not folded:
            continue
        year = candidate_year(candidate)
        if folded in exact and len(folded) < MIN_TITLE_CHARS:
            found[candidate.id] = exact[folded]
            continue
        if len(folded) < MIN_TITLE_CHARS:
            continue
        if year is None:
            pool = every
        else:
            pool = [*by_year[year], *by_year[year - 1], *by_year[year + 1], *by_year[None]]
        best = process.extractOne(
            folded, [t for t, _ in pool], scorer=fuzz.ratio, score_cutoff=TITLE_RATIO
        )
        if best is not None:
            found[candidate.id] = pool[best[2]][1]
    return found
