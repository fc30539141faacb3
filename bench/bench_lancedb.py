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

``--index ivf_pq`` gives LanceDB the index a user with a large table would build
(``create_index(metric="cosine", index_type="IVF_PQ", num_partitions=..., num_sub_vectors=48)``,
queried with ``nprobes`` 20 and ``refine_factor`` 10 unless told otherwise): its build time,
and both engines' vector recall@10 against exact float search over the same stored vectors,
are printed beside the latencies and disk sizes. ``--library DIR`` reads a library built
elsewhere (opened as it is; the exact top 10 is cached beside the LanceDB table):

    PYTHONPATH=... .venv/bin/python bench/bench_lancedb.py --which realistic --chunks 100000 \
        -k 10 --queries 100 --index ivf_pq
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


IVF_PQ_SUB_VECTORS = 48  # 384 dimensions / 48 = 8 per PQ code (the setting)
NPROBES = 20
REFINE = 10


def ivf_partitions(rows: int) -> int:
    """IVF lists for a table: about sqrt(rows) (LanceDB's advice), 1,000 at a million (the
    issue's run), and at least 256 training rows per list so k-means has enough."""
    return max(1, min(round(rows**0.5), rows // 256))


def with_index(query: Any, probes: tuple[int, int] | None) -> Any:
    """The indexed search's settings on a LanceDB query (nothing without an index)."""
    if probes is None:
        return query
    nprobes, refine = probes
    return query.nprobes(nprobes).refine_factor(refine)


def lance_search(
    table: Any,
    embedder: Any,
    query: str,
    mode: str,
    k: int,
    probes: tuple[int, int] | None = None,
) -> list[str]:
    """One LanceDB query with its defaults (hybrid: RRF reranker), query embedded inside;
    ``probes`` (nprobes, refine_factor) when the vector column has an IVF_PQ index."""
    depth = k * 4  # chunks asked for, collapsed to k works (as Prioris does)
    if mode == "fts":
        rows = table.search(query, query_type="fts").limit(depth).to_list()
    elif mode == "vector":
        vector = embedder.embed_query(query)
        search = with_index(table.search(vector).metric("cosine"), probes)
        rows = search.limit(depth).to_list()
    else:
        vector = embedder.embed_query(query)
        search = table.search(query_type="hybrid").vector(vector).text(query)
        rows = with_index(search, probes).limit(depth).to_list()
    return best_works(rows, k)


def lance_recall(
    table: Any, vectors: list[Any], truth: list[list[int]], probes: tuple[int, int] | None
) -> float:
    """LanceDB's chunk-level recall@10 against the exact top 10 (cosine)."""
    found = 0
    for vector, exact in zip(vectors, truth, strict=True):
        search = with_index(table.search(vector).metric("cosine"), probes)
        got = {row["chunk_id"] for row in search.limit(10).select(["chunk_id"]).to_list()}
        found += len(got & set(exact))
    return found / (10 * len(truth))


def exact_truth(lance_dir: Path, library: Any, texts: list[str]) -> tuple[list[Any], list[Any]]:
    """The query vectors and their exact top 10 chunks, cached beside the LanceDB table
    (a library opened from elsewhere is only read)."""
    import hashlib
    import json

    import vector_truth

    from prioris.storage.chunks import vectors_version

    vectors = [library.embedder.embed_query(text) for text in texts]
    key = hashlib.sha256(json.dumps([vectors_version(library.conn), texts]).encode())
    path = lance_dir / f"truth-{key.hexdigest()[:16]}.json"
    if path.is_file():
        return vectors, json.loads(path.read_text())
    truth = vector_truth.exact_top(Path(library.settings.db_path), vectors)
    path.write_text(json.dumps(truth))
    return vectors, truth


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def search_tables_bytes(db_path: Path) -> int | None:
    """Bytes of the tables search reads (chunks, FTS5, vec0, the works' own vectors and
    their indexes), from the ``sqlite3`` shell's dbstat (pysqlite3 is built without it);
    None without the shell. (Before issue 26's fourth round the works' vectors were left
    out: 391.6 MiB at 1M then, float32.)"""
    import shutil
    import subprocess

    shell = shutil.which("sqlite3")
    if shell is None:
        return None
    query = (
        "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'chunks%' OR name LIKE 'chunk_%' "
        "OR name LIKE 'sqlite_autoindex_chunks%' OR name LIKE 'work_vectors' "
        "OR name LIKE 'sqlite_autoindex_work_vectors%'"
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
    parser.add_argument(
        "--index", choices=("none", "ivf_pq"), default="none", help="LanceDB's vector index"
    )
    parser.add_argument("--partitions", type=int, help="IVF lists (default: ivf_partitions)")
    parser.add_argument("--nprobes", type=int, default=NPROBES)
    parser.add_argument("--refine", type=int, default=REFINE, help="refine_factor")
    parser.add_argument("--library", type=Path, help="a library folder built elsewhere")
    parser.add_argument(
        "--load", type=int, default=0, help="busy-loop processes beside the timed queries"
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
        library_dir = args.library or common.OUT / f"{args.which}-{args.chunks // 1000}k"
        queries, qrels = large_queries(args.which, library_dir, args.queries), {}
        ids = sorted(queries)
    if not (library_dir / "complete.json").is_file() and args.which != "scifact":
        print(f"SKIPPED: build it first: bench_latency.py --which {args.which} --chunks ...")
        return 0
    if not (library_dir / "library.sqlite").is_file():
        print("SKIPPED: build the SciFact library first: .venv/bin/python bench/bench_scifact.py")
        return 0
    lance_dir = common.OUT / f"lancedb-{library_dir.name}"
    if args.library is not None:
        lance_dir = common.OUT / f"lancedb-{args.library.parent.name}-{library_dir.name}"
    if args.index != "none":
        lance_dir = lance_dir.with_name(f"{lance_dir.name}-{args.index}")
    built = lance_dir / "built"
    probes = (args.nprobes, args.refine) if args.index == "ivf_pq" else None
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
            print(f"LanceDB table and FTS index built in {time.perf_counter() - started:.0f} s")
            if args.index == "ivf_pq":
                partitions = args.partitions or ivf_partitions(table.count_rows())
                started = time.perf_counter()
                table.create_index(
                    metric="cosine",
                    index_type="IVF_PQ",
                    num_partitions=partitions,
                    num_sub_vectors=IVF_PQ_SUB_VECTORS,
                    vector_column_name="vector",
                )
                seconds = time.perf_counter() - started
                (lance_dir / "index.txt").write_text(
                    f"IVF_PQ, {partitions} partitions, {IVF_PQ_SUB_VECTORS} sub-vectors, "
                    f"built in {seconds:.1f} s\n"
                )
            built.write_text("ok\n")
        if (lance_dir / "index.txt").is_file():
            index_note = (lance_dir / "index.txt").read_text().strip()
            print(
                f"LanceDB vector index: {index_note}; nprobes {args.nprobes}, "
                f"refine_factor {args.refine}"
            )
        for q in list(queries.values())[:2]:  # the in-memory vector copy loads after these
            library.search(q, mode="vector", k=args.k)
        cache = getattr(library.searcher.backend, "vector_cache", None)
        if cache is not None:
            cache.wait_until_loaded(900)
        for q in list(queries.values())[:5]:  # warm both
            for mode in MODES:
                lance_search(table, embedder, q, mode, args.k, probes)
                library.search(q, mode=mode, k=args.k)
        ranker = getattr(library.searcher.backend, "postings", None)
        if ranker is not None:
            ranker.wait_until_built(1800)  # the BM25 sidecar, from 100k chunks
        rows = []
        lance_name = "LanceDB 0.40" + (" + IVF_PQ" if probes else "")
        with common.busy_loops(args.load):  # the timed runs only: not the build or warm-up
            for mode in MODES:
                for name, search in (
                    (
                        lance_name,
                        lambda q, m=mode: lance_search(table, embedder, q, m, args.k, probes),
                    ),
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
        texts = [queries[q] for q in ids]
        vectors, truth = exact_truth(lance_dir, library, texts)
        recalls = {lance_name: lance_recall(table, vectors, truth, probes)}
        import vector_truth

        recalls["Prioris"] = vector_truth.recall_at_10(library, texts, truth)
        prioris_bytes = search_tables_bytes(Path(library.settings.db_path))
        sidecar = Path(str(library.settings.db_path) + ".bm25")
    load = __import__("os").getloadavg()
    print(
        f"\n{library_dir.name} chunks, {len(ids)} queries, k={args.k}, query embedding "
        f"included (load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}"
        f"{f', {args.load} busy processes beside the timed queries' if args.load else ''}):"
    )
    common.print_table(["mode", "engine", "p50 ms", "p95 ms", "nDCG@10"], rows)
    for name, recall in recalls.items():
        print(f"vector recall@10 against exact float search, {name}: {recall:.3f}")
    mine = (
        "n/a (no sqlite3 shell)"
        if prioris_bytes is None
        else f"{common.mib(prioris_bytes):.1f} MiB"
    )
    side = sidecar.stat().st_size if sidecar.is_file() else 0
    print(
        f"\non disk: LanceDB {common.mib(folder_bytes(lance_dir)):.1f} MiB "
        "(table + FTS and vector indexes); "
        f"Prioris search tables {mine} (chunks, FTS5, vec0, work vectors)"
        + (
            f" + BM25 postings sidecar {common.mib(sidecar.stat().st_size):.1f} MiB"
            if sidecar.is_file()
            else ""
        )
        + (f" = {common.mib(prioris_bytes + side):.1f} MiB" if prioris_bytes is not None else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
