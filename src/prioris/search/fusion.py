"""Rank fusion of the FTS and vector lists (pure functions).

Reciprocal rank fusion (k=60) is the baseline; the weighted sum of min-max normalised
scores beat it on SciFact train; the learned fusion (the default) is that weighted sum with
two more features, fitted on the development sets (see docs/benchmarks.md, section 9).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence


def rrf(
    ranked_lists: Mapping[str, Sequence[Hashable]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> dict[Hashable, float]:
    """Score = sum over lists of weight / (k + rank), ranks starting at 1."""
    scores: dict[Hashable, float] = {}
    for name, items in ranked_lists.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(items, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def weighted_sum(
    scored_lists: Mapping[str, Sequence[tuple[Hashable, float]]],
    *,
    weights: Mapping[str, float],
) -> dict[Hashable, float]:
    """Min-max normalise each list's scores to [0, 1] (higher = better), then add them up
    with their weights; an item absent from a list gets 0 from it."""
    scores: dict[Hashable, float] = {}
    for name, items in scored_lists.items():
        if not items:
            continue
        values = [s for _, s in items]
        low, high = min(values), max(values)
        span = high - low
        weight = weights.get(name, 1.0)
        for item, score in items:
            normalised = 1.0 if span == 0 else (score - low) / span
            scores[item] = scores.get(item, 0.0) + weight * normalised
    return scores


def ranked(scores: Mapping[Hashable, float]) -> list[tuple[Hashable, float]]:
    """Items by descending score, ties broken by the item for determinism."""
    return sorted(scores.items(), key=lambda kv: (-kv[1], str(kv[0])))


FEATURES = ("fts", "vector", "fts_rr", "vector_rr", "both", "cosine")
"""What the learned fusion sees of a candidate (0 for a list it is absent from):

- ``fts`` / ``vector``: the list's score min-max normalised to [0, 1] (as ``weighted_sum``);
- ``fts_rr`` / ``vector_rr``: ``10 / (10 + rank)`` (rank from 1), the list's order alone;
- ``both``: 1 when the candidate is in both lists (the two retrievers agree);
- ``cosine``: the raw cosine similarity, comparable across queries unlike normalised scores.
"""


LEARNED_WEIGHTS = (0.542, 0.333, 0.0, 0.042, 0.083, 0.0)
"""Fitted by coordinate ascent on nDCG@10 over SciFact train half A and NFCorpus train
(``bench/fit_fusion.py``), so SciFact half B and NFCorpus dev are unseen checks: mostly the
weighted sum (0.54 FTS, 0.33 vector), plus a small bonus (0.08) for a work both lists found
and a little of the vector list's rank. docs/benchmarks.md, section 9."""


def features(
    fts_items: Sequence[tuple[Hashable, float]],
    vec_items: Sequence[tuple[Hashable, float]],
) -> tuple[list[Hashable], list[list[float]]]:
    """The candidates (union of both lists, FTS order first) and their FEATURES rows."""
    rows: dict[Hashable, list[float]] = {}

    def add(items: Sequence[tuple[Hashable, float]], score_at: int, rr_at: int) -> None:
        if not items:
            return
        values = [s for _, s in items]
        low, span = min(values), max(values) - min(values)
        for rank, (item, score) in enumerate(items, start=1):
            row = rows.setdefault(item, [0.0] * len(FEATURES))
            row[score_at] = 1.0 if span == 0 else (score - low) / span
            row[rr_at] = 10.0 / (10.0 + rank)

    add(fts_items, 0, 2)
    add(vec_items, 1, 3)
    for item, score in vec_items:
        rows[item][5] = score
    for row in rows.values():
        row[4] = 1.0 if row[2] > 0 and row[3] > 0 else 0.0
    keys = list(rows)
    return keys, [rows[key] for key in keys]


def learned(
    fts_items: Sequence[tuple[Hashable, float]],
    vec_items: Sequence[tuple[Hashable, float]],
    weights: Mapping[str, float],
) -> dict[Hashable, float]:
    """A linear score over FEATURES with weights fitted offline (bench/fit_fusion.py)."""
    keys, rows = features(fts_items, vec_items)
    coefficients = [weights.get(name, 0.0) for name in FEATURES]
    return {
        key: sum(c * v for c, v in zip(coefficients, row, strict=True))
        for key, row in zip(keys, rows, strict=True)
    }
