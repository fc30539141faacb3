"""Snowballing, decided purely: candidate identity, merging, dedupe and the explained score.

A snowball starts from *seeds* (library works) and follows citations both ways: the works
the seeds cite (**backward**) and the works that cite the seeds (**forward**). The same
candidate is often met several times (cited by three seeds; read from a PDF's reference
list and met again through OpenAlex), so each is keyed by its strongest identifier, in
this order: DOI > arXiv id > OpenAlex id > normalised title + year
(:func:`candidate_key`), and two sightings that share any of these are one candidate
(:class:`CandidatePool`). A candidate that is already a library work (by alias, or by a
fuzzy title + year match: :class:`LibraryIndex`) or that the user dismissed is left out.

The score (:func:`score_candidates`) is a weighted sum of four parts in [0, 1]::

    score = 0.40 * links + 0.35 * similarity + 0.10 * recency + 0.15 * citations

    links      = min(1, ln(1 + backward + forward) / ln(1 + min(seeds, 10)))
    similarity = max(0, cosine(candidate vector, mean of the seeds' vectors))
    recency    = 0.5 ** ((this year - year) / 10)     (0 when the year is unknown)
    citations  = min(1, ln(1 + cited_by_count) / ln(1 + 10000))   (0 when unknown)

``backward`` is how many seeds cite the candidate (co-citation over the seeds) and
``forward`` how many seeds it cites (bibliographic coupling). Links weigh most because
being tied to several seeds is the evidence a snowball is for; the log and the cap at ten
seeds keep a large seed set from making every single link look weak. Similarity reads the
candidate's title + abstract embedded the way a work's own vector is, so a candidate
about the seeds' topic rises above one cited in passing. Recency (half-life ten years)
and citations (log-scaled, saturating at 10,000) break ties between otherwise equal
candidates. Every part, its weighted contribution and a sentence saying it in words are
in the candidate's ``why``.

This module holds the score, its explanation and the direction filter; the other parts
are one module each: :mod:`prioris.discovery.snowball_identity` (identifiers cleaned,
candidate keys, library aliases), :mod:`prioris.discovery.snowball_candidates` (the
:class:`Candidate` and how a reference or an OpenAlex record becomes one) and
:mod:`prioris.discovery.snowball_dedupe` (:class:`CandidatePool`, :class:`LibraryIndex`,
:func:`titles_match`). It re-exports their public names (``ID_KINDS``, ``KEY_PREFIXES``,
``MAX_KEY_CHARS``, ``normalise_title``, ``openalex_short``, ``clean_ids``, ``title_key``,
``identity_keys``, ``candidate_key``, ``is_candidate_key``, ``library_aliases``,
``Candidate``, ``from_reference``, ``from_record``, ``TITLE_MATCH_THRESHOLD``,
``YEAR_SLACK``, ``CandidatePool``, ``titles_match``, ``LibraryIndex``) so
``prioris.discovery.snowball`` keeps answering for the whole snowball's pure side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from prioris.discovery.snowball_candidates import Candidate, from_record, from_reference
from prioris.discovery.snowball_dedupe import (
    TITLE_MATCH_THRESHOLD,
    YEAR_SLACK,
    CandidatePool,
    LibraryIndex,
    titles_match,
)
from prioris.discovery.snowball_identity import (
    ID_KINDS,
    KEY_PREFIXES,
    MAX_KEY_CHARS,
    candidate_key,
    clean_ids,
    identity_keys,
    is_candidate_key,
    library_aliases,
    normalise_title,
    openalex_short,
    title_key,
)

WEIGHTS = {"links": 0.40, "similarity": 0.35, "recency": 0.10, "citations": 0.15}
"""The parts of the score and their weights (they add up to 1)."""
LINK_SEEDS_CAP = 10
RECENCY_HALF_LIFE_YEARS = 10.0
CITATIONS_SATURATE = 10_000


def _unit(vector: np.ndarray) -> np.ndarray | None:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else None


def seed_centroid(vectors: Sequence[np.ndarray]) -> np.ndarray | None:
    """The normalised mean of the seeds' normalised vectors (None without any)."""
    units = [u for v in vectors if (u := _unit(np.asarray(v, dtype=np.float32))) is not None]
    if not units:
        return None
    return _unit(np.mean(np.stack(units), axis=0))


def _parts(
    candidate: Candidate, seeds: int, similarity: float | None, this_year: int
) -> dict[str, float]:
    links = len(candidate.cited_by_seeds) + len(candidate.cites_seeds)
    cap = math.log1p(max(1, min(seeds, LINK_SEEDS_CAP)))
    recency = 0.0
    if candidate.year:
        age = max(0, this_year - candidate.year)
        recency = 0.5 ** (age / RECENCY_HALF_LIFE_YEARS)
    citations = 0.0
    if candidate.cited_by_count:
        citations = min(1.0, math.log1p(candidate.cited_by_count) / math.log1p(CITATIONS_SATURATE))
    return {
        "links": min(1.0, math.log1p(links) / cap),
        "similarity": max(0.0, similarity or 0.0),
        "recency": recency,
        "citations": citations,
    }


def _words(
    candidate: Candidate,
    parts: dict[str, float],
    seeds: int,
    similarity: float | None,
    titles: Mapping[str, str],
) -> str:
    def named(ids: set[str]) -> str:
        shown = [titles.get(i) or i for i in sorted(ids)][:3]
        more = f" and {len(ids) - 3} more" if len(ids) > 3 else ""
        return "; ".join(f"“{t[:60]}”" for t in shown) + more

    said = []
    if candidate.cited_by_seeds:
        said.append(
            f"cited by {len(candidate.cited_by_seeds)} of your {seeds} seed(s): "
            + named(candidate.cited_by_seeds)
        )
    if candidate.cites_seeds:
        said.append(
            f"cites {len(candidate.cites_seeds)} of your {seeds} seed(s): "
            + named(candidate.cites_seeds)
        )
    if similarity is None:
        said.append("topic not compared (no seed vectors, or past the candidates compared)")
    else:
        level = "close" if similarity >= 0.6 else "related" if similarity >= 0.35 else "distant"
        said.append(f"{level} in topic to the seeds (cosine {similarity:.2f})")
    if candidate.year:
        said.append(f"published {candidate.year}")
    if candidate.cited_by_count is not None:
        said.append(f"cited {candidate.cited_by_count} times")
    return "; ".join(said)


def score_candidates(
    candidates: Sequence[Candidate],
    *,
    seeds: int,
    similarities: Mapping[int, float | None],
    this_year: int,
    seed_titles: Mapping[str, str] | None = None,
) -> list[Candidate]:
    """Score and explain each candidate (see the module text), best first; ties go to the
    more linked, then to the title alphabetically, so the order is stable.
    ``similarities`` maps ``id(candidate)`` to its cosine to the seeds (None: no vector)."""
    titles = seed_titles or {}
    for candidate in candidates:
        similarity = similarities.get(id(candidate))
        parts = _parts(candidate, seeds, similarity, this_year)
        contributions = {name: round(WEIGHTS[name] * value, 4) for name, value in parts.items()}
        candidate.score = round(sum(WEIGHTS[n] * v for n, v in parts.items()), 4)
        candidate.why = {
            "backward": len(candidate.cited_by_seeds),
            "cited_by_seeds": sorted(candidate.cited_by_seeds),
            "forward": len(candidate.cites_seeds),
            "cites_seeds": sorted(candidate.cites_seeds),
            "similarity": None if similarity is None else round(similarity, 4),
            "recency": round(parts["recency"], 4),
            "cited_by_count": candidate.cited_by_count,
            "citations": round(parts["citations"], 4),
            "links": round(parts["links"], 4),
            "contributions": contributions,
            "weights": dict(WEIGHTS),
            "found_by": sorted(candidate.found_by),
            "summary": _words(candidate, parts, seeds, similarity, titles),
        }
    return sorted(
        candidates,
        key=lambda c: (
            -c.score,
            -(len(c.cited_by_seeds) + len(c.cites_seeds)),
            normalise_title(c.title),
            c.key,
        ),
    )


def keep_direction(candidate: Candidate, direction: str) -> bool:
    """Whether a candidate belongs to a snowball of this ``direction``."""
    if direction == "backward":
        return bool(candidate.cited_by_seeds)
    if direction == "forward":
        return bool(candidate.cites_seeds)
    return True


__all__ = [
    "CITATIONS_SATURATE",
    "ID_KINDS",
    "KEY_PREFIXES",
    "LINK_SEEDS_CAP",
    "MAX_KEY_CHARS",
    "RECENCY_HALF_LIFE_YEARS",
    "TITLE_MATCH_THRESHOLD",
    "WEIGHTS",
    "YEAR_SLACK",
    "Candidate",
    "CandidatePool",
    "LibraryIndex",
    "candidate_key",
    "clean_ids",
    "from_record",
    "from_reference",
    "identity_keys",
    "is_candidate_key",
    "keep_direction",
    "library_aliases",
    "normalise_title",
    "openalex_short",
    "score_candidates",
    "seed_centroid",
    "title_key",
    "titles_match",
]
