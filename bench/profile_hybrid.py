"""Where a hybrid query's time goes, stage by stage, in-process (issue 26).

Wraps the search service's steps and the backend's reads with timers (each call's wall
time, summed per query), then runs the same queries in hybrid mode and reports, per stage,
the median time per query and the median of ``hybrid - max(fts half, vector half)``: what
hybrid costs beyond its slower half. ``--load`` starts a busy-loop process beside it (the
loaded case of the issue); ``--sequential`` runs the two halves one after the other in
the caller's thread (``SearchService.parallel_halves = False``) to compare with threads.

    .venv/bin/python bench/profile_hybrid.py --library bench/out/synthetic-100k --queries 100
    .venv/bin/python bench/profile_hybrid.py --library bench/out/scifact --load 1

``--mode vector`` or ``fts`` profiles that mode instead; ``--db-url`` searches the
PostgreSQL copy of the library that ``bench_pg_scale.py`` made (its URL).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from search_lists import warm_caches

STAGES_SERVICE = (
    "_vector",
    "_fts",
    "_order",
    "_answering_passages",
    "_hits",
    "_left_out_no_year",
)
STAGES_BACKEND = ("knn", "fts", "work_vectors", "passages", "works", "sections")


class Timers:
    """Per-query wall time of each wrapped call (summed over calls of the same name)."""

    def __init__(self) -> None:
        self.current: dict[str, float] = defaultdict(float)
        self.lock = threading.Lock()
        self.queries: list[dict[str, float]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                with self.lock:
                    self.current[label] += (time.perf_counter() - started) * 1000

        setattr(owner, name, timed)

    def next_query(self, total: float) -> None:
        with self.lock:
            row = dict(self.current)
            row["total"] = total
            self.queries.append(row)
            self.current = defaultdict(float)


def synthetic_or_scifact_queries(data_dir: Path, count: int) -> list[str]:
    import json

    marker = data_dir / "complete.json"
    info = json.loads(marker.read_text()) if marker.is_file() else {}
    if "vocabulary" in info:
        import bench_latency

        return bench_latency.synthetic_queries(info["vocabulary"], count)
    return list(common.load_queries().values())[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, required=True, help="a library folder")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--load", type=int, default=0, help="busy-loop processes beside it")
    parser.add_argument("--sequential", action="store_true", help="the halves in one thread")
    parser.add_argument(
        "--ab", action="store_true", help="alternate threaded and sequential query by query"
    )
    parser.add_argument("--cprofile", type=Path, help="write a cProfile of the timed queries")
    parser.add_argument(
        "--mode", choices=("hybrid", "vector", "fts"), default="hybrid", help="the mode profiled"
    )
    parser.add_argument(
        "--db-url", help="search this PostgreSQL copy of the library (bench_pg_scale.py)"
    )
    args = parser.parse_args(argv)

    queries = synthetic_or_scifact_queries(args.library, args.queries)
    settings = common.settings_for(args.library)
    if args.db_url:
        settings = settings.with_library(args.db_url)
    from prioris.library import Library

    with common.busy_loops(args.load), Library.open(settings) as library:
        return run(library, queries, args)


def run(library: Any, queries: list[str], args: argparse.Namespace) -> int:
    searcher = library.searcher
    if args.sequential:
        searcher.parallel_halves = False
    halves = "sequential" if args.sequential else "threaded"
    print(f"library {args.library}, load average {os.getloadavg()[0]:.2f}, halves {halves}")
    warm_caches(library, queries[0])
    backend = searcher.backend
    for query in queries[:5]:
        for mode in ("fts", "vector", "hybrid"):
            library.search(query, mode=mode, k=args.k)

    if args.ab:
        return alternate(library, queries, args.k)
    timers = Timers()
    for name in STAGES_SERVICE:
        timers.wrap(searcher, name, f"service.{name}")
    for name in STAGES_BACKEND:
        timers.wrap(backend, name, f"backend.{name}")
    timers.wrap(searcher.embedder, "embed_query", "embed_query")

    profiler = None
    if args.cprofile:
        import cProfile

        profiler = cProfile.Profile()
    alone: dict[str, list[float]] = {"fts": [], "vector": []}
    for mode in ("fts", "vector"):
        for query in queries:
            started = time.perf_counter()
            library.search(query, mode=mode, k=args.k)
            alone[mode].append((time.perf_counter() - started) * 1000)
    timers.queries.clear()
    timers.current.clear()
    for query in queries:
        if profiler is not None:
            profiler.enable()
        started = time.perf_counter()
        library.search(query, mode=args.mode, k=args.k)
        total = (time.perf_counter() - started) * 1000
        if profiler is not None:
            profiler.disable()
        timers.next_query(total)
    if profiler is not None:
        profiler.dump_stats(str(args.cprofile))

    labels = sorted({label for row in timers.queries for label in row})
    print(f"{len(queries)} {args.mode} queries, k={args.k}, ms per query (median / mean):")
    for label in labels:
        values = [row.get(label, 0.0) for row in timers.queries]
        print(f"  {label:32s} {statistics.median(values):8.2f} {statistics.fmean(values):8.2f}")
    over = [
        row["total"] - max(row.get("service._fts", 0.0), row.get("service._vector", 0.0))
        for row in timers.queries
    ]
    print(
        f"  {'hybrid - max(halves)':32s} {statistics.median(over):8.2f} "
        f"{statistics.fmean(over):8.2f}"
    )
    totals = [row["total"] for row in timers.queries]
    for mode, times in (*alone.items(), (f"{args.mode} (profiled)", totals)):
        print(
            f"  {mode} mode alone p50 / p95: {common.percentile(times, 50):.1f} / "
            f"{common.percentile(times, 95):.1f}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


def alternate(library: Any, queries: list[str], k: int) -> int:
    """Hybrid p50 / p95 threaded and sequential, switching query by query (each query
    run both ways, the order flipping each time), so a load that drifts meets both."""
    searcher = library.searcher
    times: dict[bool, list[float]] = {True: [], False: []}
    for number, query in enumerate(queries):
        order = (True, False) if number % 2 == 0 else (False, True)
        for parallel in order:
            searcher.parallel_halves = parallel
            started = time.perf_counter()
            library.search(query, mode="hybrid", k=k)
            times[parallel].append((time.perf_counter() - started) * 1000)
    searcher.parallel_halves = None
    for parallel, values in times.items():
        print(
            f"  hybrid {'threaded  ' if parallel else 'sequential'} p50 / p95 / mean: "
            f"{common.percentile(values, 50):.1f} / {common.percentile(values, 95):.1f} / "
            f"{statistics.fmean(values):.1f}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
