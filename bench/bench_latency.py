"""Query latency p50/p95 per mode, query embedding included (the real model).

Two libraries: the SciFact one built by ``bench_scifact.py`` (reused from
``bench/out/scifact``; built when missing, skipped with a message without ../shared), and
a synthetic one of 100,000 chunks cached in ``bench/out/synthetic-100k``. The synthetic
library is written straight through the storage layer (``works.upsert_work``,
``chunks.insert_chunks``, ``chunks.insert_vectors``) in large transactions: Zipf-distributed
words from a random vocabulary give FTS realistic postings, and random unit vectors stand
in for embeddings (KNN cost does not depend on what the vectors mean), so no 100k-chunk
embedding run is needed.

Each query goes through ``Library.search`` (validation, FTS, query embedding, KNN, fusion,
snippets, work rows) with k=10, after a few warm-up queries.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")
VOCABULARY = 30_000
CHUNK_WORDS = 180


def synthetic_vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


def zipf_weights(n: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(n)]


def build_synthetic(data_dir: Path, chunks: int, *, model_id: str, dim: int) -> dict[str, Any]:
    """Works of 10 chunks each, inserted in transactions of 10,000 chunks."""
    import numpy as np

    from prioris.engines.sqlite.connection import connect
    from prioris.models import Chunk, Work
    from prioris.storage import chunks as chunk_store
    from prioris.storage import works as work_store

    marker = data_dir / "complete.json"
    if marker.is_file():
        info = json.loads(marker.read_text())
        if info["chunks"] == chunks and info["model"] == model_id:
            return info
        import shutil

        shutil.rmtree(data_dir)
    rng = random.Random(42)
    vectors_rng = np.random.default_rng(42)
    vocabulary = synthetic_vocabulary(rng)
    rng.shuffle(vocabulary)
    cumulative = list(__import__("itertools").accumulate(zipf_weights(len(vocabulary))))
    conn = connect(data_dir / "library.sqlite")
    chunk_store.ensure_vector_index(conn, model_id, dim)
    per_work, batch = 10, 10_000
    started = time.perf_counter()
    now = "2026-01-01T00:00:00+00:00"
    made = 0
    while made < chunks:
        conn.execute("BEGIN IMMEDIATE")
        for _ in range(batch // per_work):
            if made >= chunks:
                break
            number = made // per_work
            title = " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=8))
            work = Work(
                id=f"synthetic:{number}", title=title, year=1990 + number % 35, source="synthetic"
            )
            work_id = work_store.upsert_work(conn, work, now)
            items = []
            for ordinal in range(min(per_work, chunks - made)):
                text = " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=CHUNK_WORDS))
                items.append(
                    Chunk(work_id, None, ordinal, text, 1, 1, 0, len(text), "", CHUNK_WORDS)
                )
            ids = chunk_store.insert_chunks(conn, items, title)
            vectors = vectors_rng.standard_normal((len(ids), dim)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            chunk_store.insert_vectors(
                conn,
                ids,
                vectors,
                model_id,
                work_ids=[work_id] * len(ids),
                sources=["synthetic"] * len(ids),
                years=[work.year] * len(ids),
            )
            made += len(ids)
        conn.execute("COMMIT")
        print(f"  synthetic chunks: {made}/{chunks}", file=sys.stderr, flush=True)
    conn.close()
    info = {
        "chunks": chunks,
        "model": model_id,
        "seconds": round(time.perf_counter() - started, 1),
        "vocabulary": vocabulary[:2000],
    }  # frequent-to-rare sample words for queries
    marker.write_text(json.dumps(info))
    return info


def random_work_vectors(data_dir: Path, model_id: str, dim: int) -> int:
    """Works without a vector of their own get a random unit one, as their chunks have
    (latency does not depend on what vectors mean): libraries built by the storage layer,
    or cached before work vectors existed. Returns how many were added."""
    import numpy as np

    from prioris.engines.sqlite.connection import connect
    from prioris.storage import work_vectors as work_vector_store

    conn = connect(data_dir / "library.sqlite")
    try:
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT w.id FROM works w WHERE NOT EXISTS (SELECT 1 FROM work_vectors v "
                "WHERE v.work_id = w.id AND v.model = ?)",
                (model_id,),
            )
        ]
        rng = np.random.default_rng(7)
        conn.execute("BEGIN IMMEDIATE")
        for work_id in ids:
            vector = rng.standard_normal(dim).astype(np.float32)
            vector /= np.linalg.norm(vector)
            work_vector_store.store(conn, work_id, vector, model_id)
        conn.execute("COMMIT")
    finally:
        conn.close()
    if ids:
        print(f"  {len(ids)} random work vectors added", file=sys.stderr, flush=True)
    return len(ids)


def apply_pragmas(library: Any, pragmas: list[str], depth: int | None = None) -> None:
    """Try a connection setting or a hybrid depth without touching src/."""
    if depth:
        import dataclasses

        library.searcher.config = dataclasses.replace(library.searcher.config, depth=depth)
    print(f"fusion: {library.searcher.config}")
    for pragma in pragmas:
        name, _, value = pragma.partition("=")
        if not name.replace("_", "").isalnum() or not value.lstrip("-").isdigit():
            raise SystemExit(f"--pragma wants NAME=INTEGER, got {pragma!r}")
        library.conn.execute(f"PRAGMA {name} = {int(value)}")
        print(f"PRAGMA {name} = {int(value)}")


def measure(library: Any, queries: list[str], *, warmup: int = 5) -> list[tuple[Any, ...]]:
    """p50/p95/mean per mode of wall-clock time around Library.search (k=10)."""
    for query in queries[:2]:  # the second query of a process starts the in-memory copy
        library.search(query, mode="vector", k=10)
        library.search(query, mode="fts", k=10)  # ... and the BM25 postings build
    cache = getattr(library.searcher.backend, "vector_cache", None)
    if cache is not None and hasattr(cache, "wait_until_loaded"):
        cache.wait_until_loaded(900)  # the in-memory vector copy loads in the background
        snapshot = getattr(cache, "_snapshot", None)
        print(f"vector KNN: {'in-memory copy' if snapshot is not None else 'sqlite-vec vec0'}")
    ranker = getattr(library.searcher.backend, "postings", None)
    if ranker is not None:
        ranker.wait_until_built(1800)  # built in the background from the second query on
        build = ranker.last_build
        if build is not None:
            print(
                f"BM25 postings snapshot: built in {build.seconds:.0f} s, {build.terms:,} terms, "
                f"{build.pairs:,} (chunk, term) pairs, sidecar "
                f"{common.mib(build.path.stat().st_size):.0f} MiB"
            )
        elif ranker.path is not None and ranker.path.exists():
            size = common.mib(ranker.path.stat().st_size)
            print(f"BM25 postings snapshot: the sidecar already there ({size:.0f} MiB)")
    for query in queries[:warmup]:
        for mode in MODES:
            library.search(query, mode=mode, k=10)
    rows = []
    answered = getattr(ranker, "answered", 0)
    for mode in MODES:
        times = []
        for query in queries:
            started = time.perf_counter()
            library.search(query, mode=mode, k=10)
            times.append((time.perf_counter() - started) * 1000)
        rows.append((mode, len(times), *_summary(times)))
        if mode == "fts" and ranker is not None:
            used = ranker.answered - answered
            print(f"fts: {used} of {len(queries)} queries ranked from the BM25 postings snapshot")
    embed = []
    for query in queries:
        started = time.perf_counter()
        library.embedder.embed_query(query)
        embed.append((time.perf_counter() - started) * 1000)
    rows.append(("(query embedding alone)", len(embed), *_summary(embed)))
    return rows


def _summary(times: list[float]) -> tuple[str, str, str]:
    p50, p95 = common.percentile(times, 50), common.percentile(times, 95)
    return f"{p50:.1f}", f"{p95:.1f}", f"{sum(times) / len(times):.1f}"


def bench_scifact(count: int, pragmas: list[str], depth: int | None) -> None:
    if not (common.SCIFACT / "corpus.jsonl").is_file():
        print(f"SciFact: SKIPPED, data not found at {common.SCIFACT}")
        return
    import bench_scifact

    data_dir = common.OUT / "scifact"
    info = bench_scifact.build_library(data_dir, rebuild=False)
    queries = list(common.load_queries().values())[:count]
    with common.open_library(data_dir) as library:
        apply_pragmas(library, pragmas, depth)
        rows = measure(library, queries)
    print(f"\nSciFact library ({info['chunks']} chunks), {len(queries)} queries, k=10, ms:")
    common.print_table(["mode", "queries", "p50", "p95", "mean"], rows)


def bench_large(
    name: str,
    data_dir: Path,
    queries: list[str],
    embedder: Any,
    pragmas: list[str],
    depth: int | None,
) -> None:
    """Latency per mode, recall@10 of the KNN against exact float search, and memory."""
    import vector_truth

    with common.open_library(data_dir, embedder=embedder) as library:
        truth = vector_truth.cached_truth(data_dir, library, queries)
    with common.RssSampler() as rss, common.open_library(data_dir, embedder=embedder) as library:
        apply_pragmas(library, pragmas, depth)
        rows = measure(library, queries)
        recall = vector_truth.recall_at_10(library, queries, truth)
        status = library.status()
    print(f"{name} library ({status['chunks']} chunks), {len(queries)} queries, k=10, ms:")
    common.print_table(["mode", "queries", "p50", "p95", "mean"], rows)
    print(f"vector recall@10 against exact float search: {recall:.4f}")
    print(
        f"peak RSS of this process from opening the library to the last query: "
        f"{common.mib(rss.peak):.0f} MiB, of which not file-backed (SQLite maps the library "
        f"file) {common.mib(rss.peak_private):.0f} MiB; library file "
        f"{common.mib(status['size_bytes']):.0f} MiB"
    )


def synthetic_queries(words: list[str], count: int) -> list[str]:
    """2-5 words. Ranks 0-19 occur in most chunks, like the English stopwords the query
    parser drops, so query words come from ranks 20-200 (in ~10-60% of chunks each) or
    20-2000 (down to ~1%)."""
    rng = random.Random(5)
    return [
        " ".join(rng.choice(words[20 : rng.choice((200, 2000))]) for _ in range(rng.randint(2, 5)))
        for _ in range(count)
    ]


def bench_synthetic(chunks: int, count: int, pragmas: list[str], depth: int | None) -> None:
    data_dir = common.OUT / f"synthetic-{chunks // 1000}k"
    settings = common.settings_for(data_dir)
    from prioris.embedding import build_embedder

    embedder = build_embedder(settings)
    with common.timed() as t:
        info = build_synthetic(data_dir, chunks, model_id=embedder.model_id, dim=embedder.dim)
    print(
        f"\nsynthetic library: {chunks} chunks (built in {info['seconds']} s through the "
        f"storage layer; this run waited {t['seconds']:.1f} s for it)"
    )
    random_work_vectors(data_dir, embedder.model_id, embedder.dim)
    queries = synthetic_queries(info["vocabulary"], count)  # vocabulary: most frequent first
    bench_large("synthetic", data_dir, queries, embedder, pragmas, depth)


def bench_realistic(chunks: int, count: int, pragmas: list[str], depth: int | None) -> None:
    if not (common.SCIFACT / "corpus.jsonl").is_file():
        print(f"realistic: SKIPPED, SciFact data not found at {common.SCIFACT}")
        return
    import realistic_corpus

    data_dir = common.OUT / f"realistic-{chunks // 1000}k"
    settings = common.settings_for(data_dir)
    from prioris.embedding import build_embedder

    embedder = build_embedder(settings)
    with common.timed() as t:
        info = realistic_corpus.build_realistic(data_dir, chunks, embedder=embedder)
    print(
        f"\nrealistic library: {chunks} recombined SciFact passages (built in "
        f"{info['seconds']} s through the storage layer; this run waited {t['seconds']:.1f} s)"
    )
    random_work_vectors(data_dir, embedder.model_id, embedder.dim)
    queries = list(common.load_queries().values())[:count]
    bench_large("realistic", data_dir, queries, embedder, pragmas, depth)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--which", choices=("scifact", "synthetic", "realistic"), action="append")
    parser.add_argument("--queries", type=int, default=200, help="queries per mode")
    parser.add_argument(
        "--chunks", type=int, default=100_000, help="synthetic / realistic library size"
    )
    parser.add_argument(
        "--pragma",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra SQLite PRAGMA on the search connection, e.g. mmap_size=1073741824",
    )
    parser.add_argument("--depth", type=int, help="hybrid depth (FusionConfig.depth) to try")
    args = parser.parse_args(argv)
    which = args.which or ["scifact", "synthetic"]
    if "scifact" in which:
        bench_scifact(args.queries, args.pragma, args.depth)
    if "synthetic" in which:
        bench_synthetic(args.chunks, args.queries, args.pragma, args.depth)
    if "realistic" in which:
        bench_realistic(args.chunks, args.queries, args.pragma, args.depth)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
