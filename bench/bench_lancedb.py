"""Prioris beside LanceDB on the same SciFact chunks and vectors: latency, quality, disk.

LanceDB is the embedded hybrid engine a user would pick instead. It is not a dependency
of Prioris: install it into a scratch environment to run this (the script prints
SKIPPED and exits 0 without it, or without the SciFact library of ``bench_scifact.py``):

    .venv/bin/python -m venv --system-site-packages /tmp/lance
    /tmp/lance/bin/pip install lancedb==0.40.0
    PYTHONPATH=/tmp/lance/lib/python3.11/site-packages .venv/bin/python bench/bench_lancedb.py

Both sides get the chunk texts and the vectors stored in ``bench/out/scifact`` (LanceDB
gets a copy: same text, same vectors, its native FTS index, brute-force vector search
like Prioris's), the same queries embedded by the same model inside the timed call, and
k=100. Work-level results collapse chunks to their best one in both. Quality is nDCG@10
on the SciFact train qrels.

``--which synthetic|realistic --chunks N`` does the same over the large libraries of
``bench_latency.py`` (built there first; their queries, no quality figure): LanceDB gets
the same chunk texts and vectors, so the speed comparison holds at every size.

    PYTHONPATH=... .venv/bin/python bench/bench_lancedb.py --which synthetic --chunks 100000 -k 10
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")


def _lancedb() -> Any:
    try:
        import lancedb
    except ImportError:
        print("SKIPPED: lancedb is not installed (see this script's docstring)")
        raise SystemExit(0) from None
    return lancedb


def export_chunks(db_path: Path) -> Any:
    """The library's chunks with their work ids and stored vectors, as an Arrow table."""
    import numpy as np
    import pyarrow as pa

    from prioris.engines.sqlite.connection import connect

    conn = connect(db_path, migrate=False)
    rows = conn.execute(
        "SELECT c.id, c.work_id, c.text, v.embedding FROM chunks c "
        "JOIN chunks_vec v ON v.chunk_id = c.id ORDER BY c.id"
    ).fetchall()
    conn.close()
    dim = len(rows[0][3]) // 4
    matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
    return pa.table(
        {
            "chunk_id": [r[0] for r in rows],
            "work_id": [r[1] for r in rows],
            "text": [r[2] for r in rows],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix), dim),
        }
    )


def best_works(rows: list[dict[str, Any]], k: int) -> list[str]:
    seen: list[str] = []
    for row in rows:
        if row["work_id"] not in seen:
            seen.append(row["work_id"])
    return seen[:k]


def lance_search(table: Any, embedder: Any, query: str, mode: str, k: int) -> list[str]:
    """One LanceDB query with its defaults (hybrid: RRF reranker), query embedded inside."""
    depth = k * 4  # chunks asked for, collapsed to k works (as Prioris does)
    if mode == "fts":
        rows = table.search(query, query_type="fts").limit(depth).to_list()
    elif mode == "vector":
        vector = embedder.embed_query(query)
        rows = table.search(vector).metric("cosine").limit(depth).to_list()
    else:
        vector = embedder.embed_query(query)
        rows = table.search(query_type="hybrid").vector(vector).text(query).limit(depth).to_list()
    return best_works(rows, k)


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def search_tables_bytes(db_path: Path) -> int | None:
    """Bytes of the tables search reads (chunks, FTS5, vec0 and their indexes), from the
    ``sqlite3`` shell's dbstat (pysqlite3 is built without it); None without the shell."""
    import shutil
    import subprocess

    shell = shutil.which("sqlite3")
    if shell is None:
        return None
    query = (
        "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'chunks%' OR name LIKE 'chunk_%' "
        "OR name LIKE 'sqlite_autoindex_chunks%'"
    )
    out = subprocess.run([shell, str(db_path), query], capture_output=True, text=True)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def large_queries(which: str, library_dir: Path, count: int) -> dict[str, str]:
    """The queries ``bench_latency.py`` times on the same library."""
    import json

    if which == "realistic":
        return dict(list(common.load_queries().items())[:count])
    import bench_latency

    info = json.loads((library_dir / "complete.json").read_text())
    texts = bench_latency.synthetic_queries(info["vocabulary"], count)
    return {str(i): text for i, text in enumerate(texts)}


def timed_runs(search: Any, queries: dict[str, str], ids: list[str]) -> tuple[dict, list[float]]:
    runs, times = {}, []
    for qid in ids:
        started = time.perf_counter()
        runs[qid] = search(queries[qid])
        times.append((time.perf_counter() - started) * 1000)
    return runs, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=300, help="train queries timed")
    parser.add_argument("-k", type=int, default=100)
    parser.add_argument("--which", choices=("scifact", "synthetic", "realistic"), default="scifact")
    parser.add_argument("--chunks", type=int, default=100_000, help="synthetic/realistic size")
    parser.add_argument(
        "--reuse", action="store_true", help="keep a LanceDB table built by an earlier run"
    )
    args = parser.parse_args(argv)
    lancedb = _lancedb()
    common.require_scifact()
    if args.which == "scifact":
        library_dir = common.OUT / "scifact"
        queries = common.load_queries()
        qrels = common.load_qrels("train") or {}
        ids = sorted(q for q in qrels if q in queries)[: args.queries]
    else:
        library_dir = common.OUT / f"{args.which}-{args.chunks // 1000}k"
        queries, qrels = large_queries(args.which, library_dir, args.queries), {}
        ids = sorted(queries)
    if not (library_dir / "complete.json").is_file() and args.which != "scifact":
        print(f"SKIPPED: build it first: bench_latency.py --which {args.which} --chunks ...")
        return 0
    if not (library_dir / "library.sqlite").is_file():
        print("SKIPPED: build the SciFact library first: .venv/bin/python bench/bench_scifact.py")
        return 0
    lance_dir = common.OUT / f"lancedb-{library_dir.name}"
    built = lance_dir / "built"
    if not (args.reuse and built.is_file()):
        shutil.rmtree(lance_dir, ignore_errors=True)
    with common.open_library(library_dir) as library:
        embedder = library.embedder
        started = time.perf_counter()
        db = lancedb.connect(str(lance_dir))
        if built.is_file():
            table = db.open_table("chunks")
            print("LanceDB table of an earlier run reused")
        else:
            table = db.create_table("chunks", data=export_chunks(Path(library.settings.db_path)))
            table.create_fts_index("text")
            built.write_text("ok\n")
            print(f"LanceDB table and FTS index built in {time.perf_counter() - started:.0f} s")
        for q in list(queries.values())[:2]:  # the in-memory vector copy loads after these
            library.search(q, mode="vector", k=args.k)
        cache = getattr(library.searcher.backend, "vector_cache", None)
        if cache is not None:
            cache.wait_until_loaded(900)
        for q in list(queries.values())[:5]:  # warm both
            for mode in MODES:
                lance_search(table, embedder, q, mode, args.k)
                library.search(q, mode=mode, k=args.k)
        rows = []
        for mode in MODES:
            for name, search in (
                ("LanceDB 0.40", lambda q, m=mode: lance_search(table, embedder, q, m, args.k)),
                (
                    "Prioris",
                    lambda q, m=mode: [h.id for h in library.search(q, mode=m, k=args.k).hits],
                ),
            ):
                runs, times = timed_runs(search, queries, ids)
                quality = (
                    common.evaluate(runs, {q: qrels[q] for q in ids})
                    if qrels
                    else {"ndcg@10": float("nan")}
                )
                rows.append(
                    (
                        mode,
                        name,
                        f"{common.percentile(times, 50):.1f}",
                        f"{common.percentile(times, 95):.1f}",
                        f"{quality['ndcg@10']:.4f}",
                    )
                )
        prioris_bytes = search_tables_bytes(Path(library.settings.db_path))
    print(f"\n{library_dir.name} chunks, {len(ids)} queries, k={args.k}, query embedding included:")
    common.print_table(["mode", "engine", "p50 ms", "p95 ms", "nDCG@10"], rows)
    mine = (
        "n/a (no sqlite3 shell)"
        if prioris_bytes is None
        else f"{common.mib(prioris_bytes):.1f} MiB"
    )
    print(
        f"\non disk: LanceDB {common.mib(folder_bytes(lance_dir)):.1f} MiB (table + FTS index); "
        f"Prioris search tables {mine} (chunks, FTS5, vec0)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
