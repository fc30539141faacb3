"""Passages that answer: a work's back matter ranks below its other passages.

Every chunk of a paper carries the paper's title (BM25's title column, the text its
vector embeds), so when a query matches the title every chunk scores high and the
emptiest one (a Funding paragraph, the acknowledgements, a reference list) can be the
paper's best. The back matter stays indexed and searchable (an fts query for a cited
title still finds the reference list); only the choice of what to show changes, and the
ranking between works never does:

- **works** (one hit per work): the work keeps its score and rank, and its passage is
  its best candidate outside the back matter, when the candidate lists hold one;
- **passages** (``chunks=True``): the positions a work's passages hold in the list stay
  its own, and are given to its other passages first and its back matter last, so every
  other work's passages keep their places.

The labels come from the backend (:class:`~prioris.search.protocols.ChunkSections`);
a backend without them leaves the order as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from prioris.models import BACK_MATTER
from prioris.search.protocols import ChunkScore

Ordered = list[tuple[ChunkScore, float]]


def is_back_matter(section: str | None) -> bool:
    """References, acknowledgements, funding and author information (not the appendix,
    which holds proofs and results a query may well be after)."""
    return section in BACK_MATTER


def chunk_ids_to_label(
    ordered: Ordered, candidates: Iterable[ChunkScore], chunks: bool
) -> list[int]:
    """The chunks whose labels the reordering needs: the shown ones and, for work results,
    the other candidates of the works shown (never the whole candidate lists)."""
    ids = [item.chunk_id for item, _ in ordered]
    if not chunks:
        shown = {item.work_id for item, _ in ordered}
        ids += [c.chunk_id for c in candidates if c.work_id in shown]
    return list(dict.fromkeys(ids))


def prefer_body_passages(
    ordered: Ordered, candidates: Sequence[ChunkScore], sections: Mapping[int, str]
) -> Ordered:
    """Work results: each work's passage swapped for its first candidate outside the back
    matter (``candidates`` in order of preference), score and rank unchanged."""
    alternatives: dict[str, ChunkScore] = {}
    for item in candidates:
        if item.work_id not in alternatives and not is_back_matter(sections.get(item.chunk_id)):
            alternatives[item.work_id] = item
    out: Ordered = []
    for item, score in ordered:
        better = alternatives.get(item.work_id)
        if better is not None and is_back_matter(sections.get(item.chunk_id)):
            item = ChunkScore(better.chunk_id, item.work_id, item.score)
        out.append((item, score))
    return out


def back_matter_last(ordered: Ordered, sections: Mapping[int, str]) -> Ordered:
    """Passage results: within each work, its back-matter passages move behind its other
    passages; the slots (positions and scores) each work holds are unchanged."""
    slots: dict[str, list[int]] = {}
    for position, (item, _) in enumerate(ordered):
        slots.setdefault(item.work_id, []).append(position)
    out = list(ordered)
    for positions in slots.values():
        items = [ordered[p][0] for p in positions]
        moved = [i for i in items if not is_back_matter(sections.get(i.chunk_id))] + [
            i for i in items if is_back_matter(sections.get(i.chunk_id))
        ]
        for position, item in zip(positions, moved, strict=True):
            out[position] = (item, ordered[position][1])
    return out
