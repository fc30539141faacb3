"""Rank fusion of the FTS and vector lists (pure functions).

Reciprocal rank fusion (k=60) is the baseline; the weighted sum of min-max normalised
scores is the alternative measured on the SciFact train split (see docs/benchmarks.md).
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
