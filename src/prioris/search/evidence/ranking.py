"""Ranking candidate sentences against a claim: dense and lexical evidence together.

Each sentence gets a linear score over six features, all computed on the small pool the
search handed over:

- ``cosine``: the sentence's embedding against the claim's (the dense leg);
- ``bm25``: the sentence's BM25 for the claim's words, over the pool's maximum
  (:mod:`.lexical`; the lexical leg);
- ``work``: 1 / the rank of the sentence's work among the search's works;
- ``passage``: the search's fused score of the passage the sentence came from, min-max
  scaled over the pool;
- ``coverage``: the share of the claim's content words the sentence holds;
- ``work_best``: the best cosine of any sentence of the same work (a work that states the
  claim somewhere lends weight to its other sentences);
- ``role``: -1 for an aim or method sentence, +1 for a finding (:mod:`.roles`).

The weights were fitted on SciFact's train claims with sentence-level rationales, on one
half and checked on the other (docs/benchmarks.md, "Evidence"); the per-leg ranks
(``fts_rank`` by BM25, ``vector_rank`` by cosine) are exposed so a caller can fuse lists
its own way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prioris.search.evidence import lexical, roles

# cosine, bm25, work, passage, coverage, work_best, role (docs/benchmarks.md, "Evidence")
WEIGHTS = (1.0, 0.3, 0.2, 0.2, 0.1, 0.3, 0.15)
FEATURES = len(WEIGHTS)


@dataclass(frozen=True)
class Candidate:
    """A sentence of a passage the search returned, in the work's text coordinates."""

    work_id: str
    chunk_id: int
    start: int  # offsets in the work's stored text, as ``prioris show --offset`` counts
    end: int
    text: str
    work_rank: int  # the work's place among the search's works (1 = best)
    passage_score: float  # the search's fused score of the passage


@dataclass(frozen=True)
class Ranked:
    """A candidate with its score and its rank in each leg (None: no shared word)."""

    candidate: Candidate
    score: float
    cosine: float
    lexical: float
    fts_rank: int | None
    vector_rank: int


def features(claim: str, candidates: Sequence[Candidate], cosines: np.ndarray) -> np.ndarray:
    """The (n, 7) feature matrix of the module docstring, and the raw BM25 in an 8th column."""
    n = len(candidates)
    bm25 = np.asarray(lexical.bm25_scores(claim, [c.text for c in candidates]), dtype=float)
    top = bm25.max() if n else 0.0
    scores = np.asarray([c.passage_score for c in candidates], dtype=float)
    spread = scores.max() - scores.min() if n else 0.0
    passage = (scores - scores.min()) / spread if spread > 0 else np.ones(n)
    best: dict[str, float] = {}
    for c, cos in zip(candidates, cosines, strict=True):
        best[c.work_id] = max(best.get(c.work_id, -1.0), float(cos))
    out = np.zeros((n, FEATURES + 1))
    out[:, 0] = cosines
    out[:, 1] = bm25 / top if top > 0 else 0.0
    out[:, 2] = [1.0 / c.work_rank for c in candidates]
    out[:, 3] = passage
    out[:, 4] = [lexical.coverage(claim, c.text) for c in candidates]
    out[:, 5] = [best[c.work_id] for c in candidates]
    out[:, 6] = [roles.role(c.text) for c in candidates]
    out[:, FEATURES] = bm25
    return out


def rank(
    claim: str,
    candidates: Sequence[Candidate],
    cosines: np.ndarray,
    weights: Sequence[float] = WEIGHTS,
) -> list[Ranked]:
    """The candidates best first, each with its score and per-leg ranks."""
    if not candidates:
        return []
    matrix = features(claim, candidates, np.asarray(cosines, dtype=float))
    scores = matrix[:, :FEATURES] @ np.asarray(weights, dtype=float)
    vector_order = np.argsort(-matrix[:, 0], kind="stable")
    vector_rank = {int(i): r for r, i in enumerate(vector_order, start=1)}
    lexical_order = [
        int(i) for i in np.argsort(-matrix[:, FEATURES], kind="stable") if matrix[i, FEATURES] > 0
    ]
    fts_rank = {i: r for r, i in enumerate(lexical_order, start=1)}
    order = np.argsort(-scores, kind="stable")
    return [
        Ranked(
            candidate=candidates[i],
            score=float(scores[i]),
            cosine=float(matrix[i, 0]),
            lexical=float(matrix[i, FEATURES]),
            fts_rank=fts_rank.get(int(i)),
            vector_rank=vector_rank[int(i)],
        )
        for i in (int(j) for j in order)
    ]
