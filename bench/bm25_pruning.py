"""The BM25 core's MaxScore pruning against a full pass over every posting (issue 26).

Runs fts and hybrid queries through ``Library.search`` on a library whose postings are
built (the SQLite sidecar, or PostgreSQL's table with ``--db-url``), records every call
of :func:`prioris.search.bm25_arrays.score` (the term arrays, the limit, the title
weight), then times each recorded call twice: with the shipped scorer (terms rarest
first, common terms looked up only for the chunks that can still make the list) and
with a full pass (every posting of every term scored into a dense array, then a
partition over every chunk: the code before this round, kept here as the reference).
Both lists must be identical, chunk for chunk and score for score.

    .venv/bin/python bench/bm25_pruning.py --library bench/out/realistic-1000k --queries 100
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from profile_hybrid import synthetic_or_scifact_queries
from search_lists import warm_caches

from prioris.search import bm25_arrays
from prioris.search.bm25_arrays import FLOAT32_MARGIN, TermPostings


def full_pass(
    norm32: np.ndarray,
    norm: np.ndarray,
    lists: list[TermPostings],
    limit: int,
    title_weight: float,
) -> list[tuple[int, float]]:
    """Every posting scored in float32 into a dense array, the cut found by a partition
    over every chunk, the head rescored in float64 (the scorer before MaxScore)."""
    scores = np.zeros(len(norm32), dtype=np.float32)
    for found in lists:
        bm25_arrays._add(scores, norm32, found, title_weight)
    if 0 <= limit < len(scores):
        last = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        matched = np.flatnonzero(scores >= last * np.float32(1 - FLOAT32_MARGIN))
        if last == 0:
            matched = matched[scores[matched] > 0]
    else:
        matched = np.flatnonzero(scores)
    exact = bm25_arrays._exact(matched, lists, norm, title_weight)
    return bm25_arrays._best(matched, exact, limit)


def record(library: Any, queries: list[str], k: int) -> list[tuple[Any, ...]]:
    """The score calls of fts then hybrid searches of ``queries``."""
    calls: list[tuple[Any, ...]] = []
    shipped = bm25_arrays.score

    def spy(
        norm32: np.ndarray,
        norm: np.ndarray,
        lists: list[TermPostings],
        limit: int,
        title_weight: float,
        **options: Any,
    ) -> list[tuple[int, float]]:
        calls.append((norm32, norm, lists, limit, title_weight, options))
        return shipped(norm32, norm, lists, limit, title_weight, **options)

    bm25_arrays.score = spy  # type: ignore[assignment]
    try:
        for mode in ("fts", "hybrid"):
            for query in queries:
                library.search(query, mode=mode, k=k)
    finally:
        bm25_arrays.score = shipped  # type: ignore[assignment]
    return calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, required=True, help="a library folder")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2, help="timing rounds, alternating")
    parser.add_argument("--db-url", help="search this PostgreSQL copy of the library")
    args = parser.parse_args(argv)

    queries = synthetic_or_scifact_queries(args.library, args.queries)
    settings = common.settings_for(args.library)
    if args.db_url:
        settings = settings.with_library(args.db_url)
    from prioris.library import Library

    with Library.open(settings) as library:
        warm_caches(library, queries[0])
        calls = record(library, queries, args.k)
    if not calls:
        print("no call reached the postings scorer (library below the postings threshold?)")
        return 1
    postings = [sum(len(found.ids) for found in call[2]) for call in calls]
    print(
        f"{len(calls)} scorer calls (limits {sorted({c[3] for c in calls})}), "
        f"postings per call: median {statistics.median(postings):,.0f}, max {max(postings):,}"
    )
    scorers = {
        "full pass": lambda c: full_pass(*c[:5]),
        "MaxScore": lambda c: bm25_arrays.score(*c[:5], **c[5]),
    }
    for number in range(args.rounds):
        for name, scorer in scorers.items():
            by_limit: dict[int, list[float]] = {}
            for call in calls:
                started = time.perf_counter()
                scorer(call)
                by_limit.setdefault(call[3], []).append((time.perf_counter() - started) * 1000)
            cells = ", ".join(
                f"limit {limit}: {common.percentile(t, 50):.1f} / {common.percentile(t, 95):.1f}"
                for limit, t in sorted(by_limit.items())
            )
            print(f"round {number + 1}, {name:9s} p50 / p95 ms: {cells}")
    differ = sum(scorers["full pass"](c) != scorers["MaxScore"](c) for c in calls)
    print(f"lists differing (chunks or scores): {differ} of {len(calls)}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
