"""Fit the learned fusion's weights (``fusion.FEATURES``) by coordinate ascent on nDCG@10.

The model is a weighted sum over a handful of features of each candidate (normalised
scores, reciprocal ranks, agreement, raw cosine); the weights are found by coordinate
ascent on mean nDCG@10 (Metzler & Croft's method, as in RankLib): one weight at a time is
set to the best value on a grid, round after round, until nothing improves. Small,
explainable, numpy only.

The candidate lists are the product's own (``SearchService._fts`` / ``._vector`` on the
cached libraries, hybrid depth for k=100), and the features are the product's
``fusion.features``, so the fitted weights mean the same thing in ``fusion.learned``.

Fits are reported on data they did not see:

- fit on SciFact train, scored on NFCorpus dev and train;
- fit on NFCorpus train, scored on SciFact train and NFCorpus dev;
- fit on SciFact half A + NFCorpus train, scored on SciFact half B and NFCorpus dev;
- fit on both train sets: the candidate default (its own figures are optimistic).

``--short`` adds three query-length interactions (``fts``, ``vector`` and ``both`` times
"the query has at most 6 words") to see whether short topic queries want other weights
than claims; they are not product features unless a fit with them wins on the unseen
splits.

    .venv/bin/python bench/fit_fusion.py
    .venv/bin/python bench/fit_fusion.py --short
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import beir_data
import bench_beir
import common

DEPTH = 300  # what hybrid at k=100 fuses: max(depth 100, 3 x 100)
GRID = np.round(np.arange(-0.5, 1.01, 0.05), 2)


class QuerySet:
    """Per query: candidate feature rows and their relevance grades."""

    def __init__(self) -> None:
        self.features: dict[str, np.ndarray] = {}
        self.gains: dict[str, np.ndarray] = {}
        self.ideal: dict[str, float] = {}

    def add(self, qid: str, keys: list[Any], rows: list[list[float]], rel: dict[str, int]) -> None:
        self.features[qid] = np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES))
        self.gains[qid] = np.asarray([rel.get(str(k), 0) for k in keys], dtype=np.float64)
        ideal = sorted((r for r in rel.values() if r > 0), reverse=True)[:10]
        self.ideal[qid] = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))

    def ndcg(self, weights: np.ndarray, ids: list[str]) -> float:
        total = 0.0
        for qid in ids:
            x = self.features[qid]
            if self.ideal[qid] <= 0 or len(x) == 0:
                continue
            scores = x @ weights
            top = np.argsort(-scores, kind="stable")[:10]
            gains = self.gains[qid][top]
            total += float((gains / np.log2(np.arange(2, len(top) + 2))).sum()) / self.ideal[qid]
        return total / max(1, len(ids))


FEATURES: tuple[str, ...] = ()
SHORT_WORDS = 6
INTERACTIONS = ("fts_short", "vector_short", "both_short")  # --short: feature x short query


def collect(bench: bench_beir.Bench) -> QuerySet:
    """The candidates of every query of the set, from the product's first-pass lists."""
    from prioris.search import fusion
    from prioris.search.protocols import SearchFilters
    from prioris.search.query import plain_to_fts5

    service = bench.service({})
    data = QuerySet()
    for qid in bench.ids:
        text = bench.queries[qid]
        expression = plain_to_fts5(text)
        fts = service._fts(expression, SearchFilters(), DEPTH, False) if expression else []
        _, vec = service._vector(text, SearchFilters(), DEPTH, False)
        keys, rows = fusion.features(
            [(c.work_id, c.score) for c in fts], [(c.work_id, c.score) for c in vec]
        )
        if len(FEATURES) > len(fusion.FEATURES):
            short = 1.0 if len(text.split()) <= SHORT_WORDS else 0.0
            rows = [[*row, row[0] * short, row[1] * short, row[4] * short] for row in rows]
        relevant: dict[str, int] = {}
        for qrels in bench.qrels.values():
            relevant.update(qrels.get(qid, {}))
        data.add(qid, keys, rows, relevant)
    return data


def fit(sets: list[tuple[QuerySet, list[str]]], start: np.ndarray, rounds: int = 4) -> np.ndarray:
    """Coordinate ascent on the mean of the sets' nDCG@10 (each set weighs the same)."""

    def objective(w: np.ndarray) -> float:
        return sum(data.ndcg(w, ids) for data, ids in sets) / len(sets)

    weights = start.copy()
    best = objective(weights)
    for _ in range(rounds):
        improved = False
        for i in range(len(weights)):
            for value in GRID:
                trial = weights.copy()
                trial[i] = value
                if not np.any(trial):
                    continue
                score = objective(trial)
                if score > best + 1e-6:
                    best, weights, improved = score, trial, True
        if not improved:
            break
    return weights / max(1e-12, float(np.abs(weights).sum()))


def main(argv: list[str] | None = None) -> int:
    global FEATURES
    from prioris.search import fusion

    args = sys.argv[1:] if argv is None else argv
    FEATURES = fusion.FEATURES + (INTERACTIONS if "--short" in args else ())
    benches = {}
    for name in ("scifact", "nfcorpus"):
        dataset = beir_data.DATASETS[name]
        if not dataset.available():
            print(f"SKIPPED: {name} not found at {dataset.folder}")
            return 0
        benches[name] = bench_beir.Bench(dataset)
    sf_bench, nf_bench = benches["scifact"], benches["nfcorpus"]
    sf, nf = collect(sf_bench), collect(nf_bench)
    sf_ids = sorted(sf_bench.qrels["train"])
    sf_a, sf_b = sorted(sf_bench.qrels["train-A"]), sorted(sf_bench.qrels["train-B"])
    nf_dev, nf_train = sorted(nf_bench.qrels["dev"]), sorted(nf_bench.qrels["train"])
    start = np.asarray([0.6, 0.4] + [0.0] * (len(FEATURES) - 2))
    shipped = np.asarray([*fusion.LEARNED_WEIGHTS] + [0.0] * (len(FEATURES) - 6))
    if len(FEATURES) > len(fusion.FEATURES):  # --short: on the split the shipped fit used
        fits = {
            "shipped (fusion.LEARNED_WEIGHTS)": shipped,
            "fit SF A + NF train, + short": fit([(sf, sf_a), (nf, nf_train)], shipped),
        }
    else:
        fits = {
            "weighted 0.6/0.4 (landed)": start / start.sum(),
            "shipped (fusion.LEARNED_WEIGHTS)": shipped,
            "fit SF train": fit([(sf, sf_ids)], start),
            "fit NF train": fit([(nf, nf_train)], start),
            "fit SF A + NF train": fit([(sf, sf_a), (nf, nf_train)], start),
            "fit SF train + NF train": fit([(sf, sf_ids), (nf, nf_train)], start),
        }
    rows = []
    for label, weights in fits.items():
        rows.append(
            (
                label,
                " ".join(f"{n}={w:+.3f}" for n, w in zip(FEATURES, weights, strict=True)),
                sf.ndcg(weights, sf_ids),
                sf.ndcg(weights, sf_a),
                sf.ndcg(weights, sf_b),
                nf.ndcg(weights, nf_dev),
                nf.ndcg(weights, nf_train),
            )
        )
    common.print_table(["weights", "model", "SF train", "SF A", "SF B", "NF dev", "NF train"], rows)
    for bench in benches.values():
        bench.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
