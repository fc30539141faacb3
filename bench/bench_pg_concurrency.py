"""Two writers and eight readers on one PostgreSQL library: errors and read latency.

A lab's server is searched by several people while others ingest. This runs, as separate
processes on one PostgreSQL library (a copy of the SciFact library of ``bench_scifact.py``,
or ``--synthetic N`` chunks of ``bench_latency.py``'s synthetic library):

1. eight readers alone for ``--seconds`` (each loops over SciFact queries in fts, vector
   and hybrid mode, k=10): the idle figure;
2. the same eight readers for ``--seconds`` while two writers import records in small
   batches (new works, each with several passages) and delete some they added.

Printed: reads and writes done, errors of any kind (an exception in any process counts),
and the readers' p50/p95 per phase with their ratio (the issue's goal: zero errors, p95
with writers within 2x of idle). Queries and records are embedded by a hash model with
the library's model id and dimension (``FakeEmbedder``): the figure is the database's
concurrency, not the embedding model's use of the two cores, which would swamp it here
(the model alone embeds about 19 passages a second on this machine; section 3).

    .venv/bin/python bench/bench_pg_concurrency.py --seconds 300
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")
READERS, WRITERS = 8, 2


def _library(url: str, model: str, dim: int) -> Any:
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    settings = load_settings().with_library(url)
    return Library.open(settings, embedder=FakeEmbedder(dim=dim, model_id=model))


def _ready(library: Any, go: Any, out: Any, seconds: float) -> float:
    """Open, warm up, say so, and wait for every process: the phase starts for all at once
    (starting ten Python processes takes longer than a short phase on a loaded machine)."""
    library.search("warm up", mode="hybrid", k=10)
    out.put(("ready", [], []))
    go.wait()
    return time.time() + seconds


def reader(
    url: str, model: str, dim: int, queries: list[str], seconds: float, go: Any, out: Any
) -> None:
    times: list[float] = []
    errors: list[str] = []
    try:
        with _library(url, model, dim) as library:
            until = _ready(library, go, out, seconds)
            i = os.getpid()
            while time.time() < until:
                query, mode = queries[i % len(queries)], MODES[i % len(MODES)]
                i += 1
                started = time.perf_counter()
                try:
                    library.search(query, mode=mode, k=10)
                except Exception:
                    errors.append(traceback.format_exc(limit=3))
                    continue
                times.append((time.perf_counter() - started) * 1000)
    except Exception:
        errors.append(traceback.format_exc(limit=3))
    out.put(("read", times, errors))


def writer(url: str, model: str, dim: int, number: int, seconds: float, go: Any, out: Any) -> None:
    rng = __import__("random").Random(number)
    done, errors = 0, []
    try:
        with _library(url, model, dim) as library:
            until = _ready(library, go, out, seconds)
            batch = 0
            while time.time() < until:
                batch += 1
                records = [
                    {
                        "_id": f"bench-w{number}-{batch}-{j}",
                        "title": common.sentence(rng, 8).rstrip("."),
                        "text": "\n\n".join(common.paragraph(rng) for _ in range(6)),
                        "year": 2000 + rng.randrange(25),
                    }
                    for j in range(5)
                ]
                try:
                    library.import_records(records)
                    done += len(records)
                    if batch % 4 == 0:  # some of its own go again
                        library.delete([records[0]["_id"]])
                except Exception:
                    errors.append(traceback.format_exc(limit=3))
    except Exception:
        errors.append(traceback.format_exc(limit=3))
    out.put(("write", [done], errors))


def library_model(url: str) -> tuple[str, int]:
    """The library's model id and dimension, read without opening it under another model
    (which would mark every chunk for re-embedding)."""
    import psycopg

    with psycopg.connect(url) as conn:
        state = dict(
            conn.execute(
                "SELECT key, value FROM index_state "
                "WHERE key IN ('embedding_model', 'embedding_dim')"
            ).fetchall()
        )
    return state["embedding_model"], int(state["embedding_dim"])


def phase(
    url: str, model: str, dim: int, queries: list[str], seconds: float, writers: int
) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    out, go = ctx.Queue(), ctx.Event()
    procs = [
        ctx.Process(target=reader, args=(url, model, dim, queries, seconds, go, out))
        for _ in range(READERS)
    ] + [
        ctx.Process(target=writer, args=(url, model, dim, n, seconds, go, out))
        for n in range(writers)
    ]
    for p in procs:
        p.start()
    results = []
    ready = 0
    while ready < len(procs):  # a process that failed to open reports instead of "ready"
        message = out.get(timeout=600)
        ready += 1
        if message[0] != "ready":
            results.append(message)
    go.set()
    while len(results) < len(procs):
        results.append(out.get(timeout=seconds + 600))
    for p in procs:
        p.join(timeout=60)
    reads = [t for kind, t, _ in results if kind == "read" for t in t]
    written = sum(t[0] for kind, t, _ in results if kind == "write")
    errors = [e for _, _, errs in results for e in errs]
    return {"reads": reads, "written": written, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a PostgreSQL library URL (default: a temp server copy)")
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--synthetic", type=int, help="use the synthetic library of N chunks")
    args = parser.parse_args(argv)
    common.require_scifact()
    import tempfile

    import bench_postgres

    queries = list(common.load_queries().values())[:300]
    with tempfile.TemporaryDirectory() as folder:
        url = args.url
        if url is None:
            server = bench_postgres.start_server(Path(folder) / "pg")
            url = bench_postgres.schema_url(server.get_uri(), "bench")
            if args.synthetic:
                import bench_latency

                from prioris.embedding import build_embedder

                data_dir = common.OUT / f"synthetic-{args.synthetic // 1000}k"
                embedder = build_embedder(common.settings_for(data_dir))
                bench_latency.build_synthetic(
                    data_dir, args.synthetic, model_id=embedder.model_id, dim=embedder.dim
                )
            else:
                data_dir = common.OUT / "scifact"
                if not common.settings_for(data_dir).db_path.is_file():
                    print(f"SKIPPED: no SciFact library in {data_dir} (run bench_scifact.py)")
                    return 0
            copied = bench_postgres.copy_in(data_dir, url)
            print(f"copied {data_dir.name} into PostgreSQL in {copied['seconds']} s")
        model, dim = library_model(url)
        with _library(url, model, dim) as library:  # PostgreSQL's BM25 postings, built now
            built = library.build_postings()
            print(f"BM25 postings built: {built}")
        rows = []
        figures = {}
        for name, writers in (("8 readers alone", 0), ("8 readers + 2 writers", WRITERS)):
            result = phase(url, model, dim, queries, args.seconds, writers)
            figures[name] = result
            reads = result["reads"]
            rows.append(
                (
                    name,
                    len(reads),
                    result["written"],
                    len(result["errors"]),
                    f"{common.percentile(reads, 50):.1f}" if reads else "-",
                    f"{common.percentile(reads, 95):.1f}" if reads else "-",
                    f"{os.getloadavg()[0]:.1f}",
                )
            )
            for error in result["errors"][:3]:
                print(error)
    print(f"\n{args.seconds:.0f} s per phase, k=10, ms:")
    common.print_table(
        ["phase", "reads", "records written", "errors", "read p50", "read p95", "load"], rows
    )
    idle, busy = (figures[n]["reads"] for n in figures)
    if idle and busy:
        ratio = common.percentile(busy, 95) / common.percentile(idle, 95)
        print(f"read p95 with writers / alone: {ratio:.2f}x (goal <= 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
