"""SciFact retrieval quality: nDCG@10 and recall@100 per mode, and the fusion sweep.

Imports the SciFact corpus with the real embedding model into a cached library under
``bench/out/scifact`` (reused when complete; ``--rebuild`` forces a new one), then runs
the queries of each qrels split in fts, vector and hybrid modes with k=100. Only the
train split may be used for tuning (``--sweep`` runs on train only); test, when its
qrels file exists, is reported separately and never looked at by the sweep.

    .venv/bin/python bench/bench_scifact.py                 # the three modes, product defaults
    .venv/bin/python bench/bench_scifact.py --method rrf    # RRF k=60, equal weights
    .venv/bin/python bench/bench_scifact.py --method weighted --weights 0.3,0.7
    .venv/bin/python bench/bench_scifact.py --sweep         # train-only tuning grid
    .venv/bin/python bench/bench_scifact.py --title-prefix  # embedding_text with/without title
    .venv/bin/python bench/bench_scifact.py --title-prefix-now  # the same, with work vectors

Fusion options are read the way the product reads PRIORIS_MCP_HYBRID_* (a method alone
takes that method's default weights).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")


class CachedQueries:
    """The library's embedder with query vectors memoised (a sweep re-asks the same ones)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id, self.dim = inner.model_id, inner.dim
        self.cache: dict[str, Any] = {}

    def embed_query(self, text: str) -> Any:
        if text not in self.cache:
            self.cache[text] = self.inner.embed_query(text)
        return self.cache[text]

    def embed_passages(self, texts: Any) -> Any:
        return self.inner.embed_passages(texts)

    def count_tokens(self, texts: Any) -> list[int]:
        return self.inner.count_tokens(texts)


def build_library(data_dir: Path, *, rebuild: bool) -> dict[str, Any]:
    """Import the corpus (resumable: stored records are skipped) and mark it complete."""

    marker = data_dir / "complete.json"
    if rebuild and data_dir.exists():
        shutil.rmtree(data_dir)
    if marker.is_file():
        return json.loads(marker.read_text())
    corpus = common.SCIFACT / "corpus.jsonl"
    total = sum(1 for _ in common.read_jsonl(corpus))
    done = 0
    last = time.perf_counter()

    def progress(n: int) -> None:
        nonlocal done, last
        done += n
        if time.perf_counter() - last > 15:
            last = time.perf_counter()
            print(f"  imported {done}/{total}", file=sys.stderr, flush=True)

    print(f"building the SciFact library in {data_dir} (real model; minutes)", file=sys.stderr)
    with common.open_library(data_dir) as library, common.timed() as t:
        summary = library.import_records(library.read_jsonl(corpus), on_progress=progress)
        status = library.status()
    info = {
        "docs": total,
        "ingested": len(summary.ingested),
        "skipped": len(summary.skipped),
        "failed": len(summary.failed),
        "chunks": status["chunks"],
        "model": status["model"],
        "seconds": round(t["seconds"], 1),
    }
    if summary.failed:
        raise SystemExit(f"import failed for {len(summary.failed)} records: {summary.failed[:3]}")
    marker.write_text(json.dumps(info, indent=2))
    return info


def run_queries(
    service: Any, queries: dict[str, str], ids: list[str], mode: str, k: int
) -> dict[str, list[str]]:
    """Work ids ranked for each query id."""
    return {q: [hit.id for hit in service.search(queries[q], mode=mode, k=k).hits] for q in ids}


LIST_CACHE: dict[tuple[Any, ...], tuple[int, list[Any]]] = {}
CACHE_DEPTH = 300  # hybrid at k=100 asks each backend for max(depth, 3k) = 300 works


def make_service(library: Any, embedder: Any, **config: Any) -> Any:
    """The library's own SearchService (real fusion) with its backend lists memoised.

    A sweep asks the same queries again and again; only the fusion changes. A backend's
    work list at depth d is a prefix of its list at a larger depth, so one list per query
    (and per BM25 title weight) computed at depth 300 serves every smaller depth. The
    service is a shallow copy of ``library.searcher`` with another FusionConfig, so it is
    built exactly as the library builds it; ``_light`` skips snippets and work rows
    (the ranking is settled before them; a hit's id is its work id).
    """
    from prioris.search.service import FusionConfig

    light = config.pop("_light", False)
    service = copy.copy(library.searcher)
    service.config = FusionConfig(**config)
    service.embedder = embedder
    fts, vector = service._fts, service._vector

    def memo(key: tuple[Any, ...], k: int, compute: Any) -> list[Any]:
        depth, items = LIST_CACHE.get(key, (0, []))
        if k > depth:
            depth = max(k, CACHE_DEPTH)
            items = compute(depth)
            LIST_CACHE[key] = (depth, items)
        return items[:k]

    # ``seen`` (the raw rows a passage is chosen from) is left empty: a memoised list has
    # none, and SciFact's abstracts have no back matter to pass over
    def memo_fts(
        expression: str, filters: Any, k: int, chunks: bool, seen: Any = None
    ) -> list[Any]:
        key = ("fts", expression, service.config.title_weight, chunks, filters)
        return memo(key, k, lambda d: fts(expression, filters, d, chunks))

    def memo_vector(query: str, filters: Any, k: int, chunks: bool, seen: Any = None) -> Any:
        key = ("vector", query, chunks, filters)
        return memo(key, k, lambda d: vector(query, filters, d, chunks))

    def light_hits(ordered: list[Any], *rest: Any) -> list[Any]:
        return [SimpleNamespace(id=item.work_id) for item, _ in ordered]

    service._fts, service._vector = memo_fts, memo_vector
    if light:
        service._hits = light_hits
    return service


def score(
    service: Any, queries: dict[str, str], qrels: common.Qrels, mode: str, k: int = 100
) -> dict[str, float]:
    runs = run_queries(service, queries, sorted(qrels), mode, k)
    return common.evaluate(runs, qrels)


EQUAL = {"fts_weight": 0.5, "vector_weight": 0.5}  # plain RRF: both lists count the same


def sweep_configs() -> list[dict[str, Any]]:
    """The train-only grid: RRF constants, weighted sums, BM25 title weight, depth."""
    configs: list[dict[str, Any]] = []
    for rrf_k in (10, 30, 60, 100):
        configs.append({"method": "rrf", "rrf_k": rrf_k, **EQUAL})
    for fts_w in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        configs.append(
            {"method": "weighted", "fts_weight": fts_w, "vector_weight": round(1 - fts_w, 2)}
        )
    return configs


def label(config: dict[str, Any]) -> str:
    parts = [config.get("method", "rrf")]
    if config.get("method", "rrf") == "rrf":
        parts.append(f"rrf_k={config.get('rrf_k', 60)}")
    else:
        parts.append(f"w={config.get('fts_weight', 0.5)},{config.get('vector_weight', 0.5)}")
    if "title_weight" in config:
        parts.append(f"title_weight={config['title_weight']}")
    if "depth" in config:
        parts.append(f"depth={config['depth']}")
    return " ".join(parts)


def halves(qrels: common.Qrels) -> tuple[common.Qrels, common.Qrels]:
    """Train split in two (by position of the sorted ids) to see whether a choice is stable."""
    ids = sorted(qrels, key=lambda q: int(q) if q.isdigit() else q)
    return ({q: qrels[q] for q in ids[0::2]}, {q: qrels[q] for q in ids[1::2]})


def run_sweep(library: Any, embedder: Any, queries: dict[str, str], train: common.Qrels) -> None:
    """Every grid point on train (and on its two halves), ranked by train nDCG@10."""
    half_a, half_b = halves(train)
    rows: list[tuple[Any, ...]] = []

    def measure(config: dict[str, Any], k: int, mode: str = "hybrid") -> float:
        service = make_service(library, embedder, _light=True, **config)
        runs = run_queries(service, queries, sorted(train), mode, k)
        full = common.evaluate(runs, train)
        a, b = common.evaluate(runs, half_a), common.evaluate(runs, half_b)
        name = (
            f"hybrid {label(config)} (k={k})"
            if mode == "hybrid"
            else f"{mode} title_weight={config.get('title_weight', 1.0)}"
        )
        rows.append((name, full["ndcg@10"], a["ndcg@10"], b["ndcg@10"], full["recall@100"]))
        print(
            f"  {name}: nDCG@10 {full['ndcg@10']:.4f} recall@100 {full['recall@100']:.4f}",
            file=sys.stderr,
            flush=True,
        )
        return full["ndcg@10"]

    print("\n## fusion method and constant (title_weight 1, hybrid k=100)")
    results = [(measure(config, 100), config) for config in sweep_configs()]
    print_rows(rows)
    best_config = max(results, key=lambda r: r[0])[1]

    rows.clear()
    print(f"\n## BM25 title weight (fts mode, and hybrid {label(best_config)})")
    title_results = []
    for title_weight in (0.5, 1.0, 2.0, 4.0):
        measure({"title_weight": title_weight}, 100, "fts")
        config = {**best_config, "title_weight": title_weight}
        title_results.append((measure(config, 100), config))
    print_rows(rows)
    best_config = max(title_results, key=lambda r: r[0])[1]

    rows.clear()
    print(
        f"\n## hybrid depth ({label(best_config)}); at k=100 depth is max(depth, 3k) = 300, "
        "so depth is measured at k=10, the CLI default"
    )
    for depth in (50, 100, 200):
        measure({**best_config, "depth": depth}, 10)
    measure({"method": "rrf", "rrf_k": 60, **EQUAL, "depth": 100}, 10)
    measure({"method": "rrf", "rrf_k": 10, **EQUAL, "depth": 100}, 10)
    for fts_w in (0.4, 0.5, 0.6, 0.7):  # min-max normalisation sees a shallower list at k=10
        weights = {"fts_weight": fts_w, "vector_weight": round(1 - fts_w, 2)}
        measure({**best_config, **weights, "method": "weighted", "depth": 100}, 10)
    print_rows(rows)
    print(f"\nbest on train: {json.dumps(best_config)}")


def title_prefix_experiment(
    library: Any, embedder: Any, queries: dict[str, str], train: common.Qrels, fusion: dict
) -> None:
    """Vector and hybrid quality with and without the title line in ``embedding_text``.

    The first chunk of a record already starts with its title (it is the Markdown heading),
    so only the later chunks change: they are re-embedded without the prefix (cached in
    ``no_title_vectors.npy``). KNN is exact in numpy for both variants, over the same
    chunks, so the two columns differ only by the prefix; hybrid fuses each with the same
    FTS lists through the real fusion functions.
    """
    import numpy as np

    from prioris.engines.sqlite.index import VEC_TABLE
    from prioris.ingest.embed import embedding_text
    from prioris.search import fusion as fusion_fns
    from prioris.search.protocols import SearchFilters
    from prioris.search.query import plain_to_fts5

    conn = library.conn
    rows = conn.execute(
        f"SELECT c.id, c.work_id, c.text, w.title, v.embedding FROM chunks c "
        f"JOIN works w ON w.id = c.work_id JOIN {VEC_TABLE} v ON v.chunk_id = c.id "
        "ORDER BY c.id"
    ).fetchall()
    work_of = np.array([r["work_id"] for r in rows])
    with_title = np.vstack([np.frombuffer(r["embedding"], dtype=np.float32) for r in rows])
    changed = []
    for i, r in enumerate(rows):
        if embedding_text(r["title"], r["text"]) != embedding_text("", r["text"]):
            changed.append(i)
    cache = library.settings.data_dir / "no_title_vectors.npy"
    without = with_title.copy()
    if cache.is_file() and np.load(cache).shape == (len(changed), with_title.shape[1]):
        without[changed] = np.load(cache)
    else:
        print(f"  re-embedding {len(changed)} chunks without the title", file=sys.stderr)
        texts = [embedding_text("", rows[i]["text"]) for i in changed]
        vectors = embedder.embed_passages(texts)
        np.save(cache, vectors)
        without[changed] = vectors
    print(f"\n## title prefix in embedding_text ({len(changed)} of {len(rows)} chunks differ)")
    service = make_service(library, embedder, **fusion)
    results = {}
    for name, matrix in (("with title (current)", with_title), ("without title", without)):
        vec_runs, hyb_runs = {}, {}
        for q in sorted(train):
            sims = matrix @ embedder.embed_query(queries[q])
            order = np.argsort(-sims)
            seen: dict[str, float] = {}
            for i in order:
                if work_of[i] not in seen:
                    seen[str(work_of[i])] = float(sims[i])
                    if len(seen) >= CACHE_DEPTH:
                        break
            vec = list(seen.items())
            vec_runs[q] = [w for w, _ in vec[:100]]
            fts = service._fts(plain_to_fts5(queries[q]), SearchFilters(), CACHE_DEPTH, False)
            if fusion.get("method") == "weighted":
                scores = fusion_fns.weighted_sum(
                    {"fts": [(c.work_id, c.score) for c in fts], "vector": vec},
                    weights={"fts": fusion["fts_weight"], "vector": fusion["vector_weight"]},
                )
            else:
                scores = fusion_fns.rrf(
                    {"fts": [c.work_id for c in fts], "vector": [w for w, _ in vec]},
                    k=fusion.get("rrf_k", 60),
                    weights={
                        "fts": 2 * fusion.get("fts_weight", 0.5),
                        "vector": 2 * fusion.get("vector_weight", 0.5),
                    },
                )
            hyb_runs[q] = [w for w, _ in fusion_fns.ranked(scores)[:100]]
        results[name] = (common.evaluate(vec_runs, train), common.evaluate(hyb_runs, train))
    common.print_table(
        [
            "embedding_text",
            "vector nDCG@10",
            "vector recall@100",
            "hybrid nDCG@10",
            "hybrid recall@100",
        ],
        [
            (n, v["ndcg@10"], v["recall@100"], h["ndcg@10"], h["recall@100"])
            for n, (v, h) in results.items()
        ],
    )


class ExactKnn:
    """A search backend whose KNN is exact over a given chunk matrix (rows in chunk-id
    order), everything else (FTS, work vectors, hit rows) being the library's own."""

    def __init__(self, inner: Any, ids: Any, works: Any, matrix: Any) -> None:
        self.inner, self.ids, self.owners, self.matrix = inner, ids, works, matrix

    def knn(self, vector: Any, filters: Any, k: int) -> list[Any]:
        import numpy as np

        from prioris.search.protocols import ChunkScore

        sims = self.matrix @ np.asarray(vector, dtype=np.float32)
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [ChunkScore(int(self.ids[i]), str(self.owners[i]), float(sims[i])) for i in top]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def title_prefix_now(
    library: Any, embedder: Any, queries: dict[str, str], splits: dict[str, Any]
) -> None:
    """Chunks of long works with and without the title line, through the product's own
    default search: work vectors (title + abstract) in the vector score, the learned
    fusion. Only chunks whose text does not already start with the title change (a
    record's first chunk does); both variants use exact KNN over the same chunks, so the
    rows differ only by the prefix. The re-embedded chunks are cached beside the library
    (``no_title_vectors.npy``, shared with ``--title-prefix``)."""
    import numpy as np

    from prioris.engines.sqlite.index import VEC_TABLE
    from prioris.ingest.embed import embedding_text

    rows = library.conn.execute(
        f"SELECT c.id, c.work_id, c.text, w.title, v.embedding FROM chunks c "
        f"JOIN works w ON w.id = c.work_id JOIN {VEC_TABLE} v ON v.chunk_id = c.id "
        "ORDER BY c.id"
    ).fetchall()
    ids = np.array([r["id"] for r in rows])
    works = np.array([r["work_id"] for r in rows])
    with_title = np.vstack([np.frombuffer(r["embedding"], dtype=np.float32) for r in rows])
    changed = [
        i
        for i, r in enumerate(rows)
        if embedding_text(r["title"], r["text"]) != embedding_text("", r["text"])
    ]
    cache = library.settings.data_dir / "no_title_vectors.npy"
    without = with_title.copy()
    if cache.is_file() and np.load(cache).shape == (len(changed), with_title.shape[1]):
        without[changed] = np.load(cache)
    else:
        print(f"  re-embedding {len(changed)} chunks without the title", file=sys.stderr)
        vectors = embedder.embed_passages([embedding_text("", rows[i]["text"]) for i in changed])
        np.save(cache, vectors)
        without[changed] = vectors
    print(f"\n## title in chunk embeddings, default search ({len(changed)} of {len(rows)} differ)")
    table = []
    for name, matrix in (("with title (current)", with_title), ("without title", without)):
        service = copy.copy(library.searcher)
        service.embedder = embedder
        service.backend = ExactKnn(library.searcher.backend, ids, works, matrix)
        for split, qrels in splits.items():
            if qrels is None:
                continue
            for mode in ("vector", "hybrid"):
                result = score(service, queries, qrels, mode)
                table.append((name, split, mode, result["ndcg@10"], result["recall@100"]))
    common.print_table(["chunk text", "split", "mode", "nDCG@10", "recall@100"], table)


def print_rows(rows: list[tuple[Any, ...]]) -> None:
    common.print_table(
        ["config (train)", "nDCG@10", "nDCG@10 half A", "nDCG@10 half B", "recall@k (k<=100)"],
        rows,
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=common.OUT / "scifact")
    parser.add_argument("--rebuild", action="store_true", help="import the corpus again")
    parser.add_argument("--method", choices=("rrf", "weighted"))
    parser.add_argument("--rrf-k", type=int)
    parser.add_argument("--weights", help="FTS,VECTOR for the fusion, e.g. 0.4,0.6")
    parser.add_argument("--title-weight", type=float)
    parser.add_argument("--depth", type=int)
    parser.add_argument("-k", type=int, default=100, help="hits per query (default 100)")
    parser.add_argument("--sweep", action="store_true", help="tuning grid on TRAIN only")
    parser.add_argument(
        "--title-prefix",
        action="store_true",
        help="TRAIN only: embedding_text with vs without the title line (re-embeds once)",
    )
    parser.add_argument(
        "--title-prefix-now",
        action="store_true",
        help="chunks with vs without the title through the default search (work vectors)",
    )
    return parser.parse_args(argv)


def config_from(args: argparse.Namespace) -> dict[str, Any]:
    """The fusion the product would use with these options as its PRIORIS_MCP_HYBRID_*
    environment (so a method's own default weights apply), plus title weight and depth."""
    from prioris.config import load_settings

    env = dict(os.environ)
    if args.method:
        env["PRIORIS_MCP_HYBRID_METHOD"] = args.method
    if args.rrf_k:
        env["PRIORIS_MCP_HYBRID_RRF_K"] = str(args.rrf_k)
    if args.weights:
        env["PRIORIS_MCP_HYBRID_WEIGHTS"] = args.weights
    settings = load_settings(env)
    fts_w, vec_w = settings.fusion_weights
    config: dict[str, Any] = {
        "method": settings.fusion_method,
        "rrf_k": settings.rrf_k,
        "fts_weight": fts_w,
        "vector_weight": vec_w,
    }
    if args.title_weight is not None:
        config["title_weight"] = args.title_weight
    if args.depth:
        config["depth"] = args.depth
    return config


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    common.require_scifact()
    info = build_library(args.data_dir, rebuild=args.rebuild)
    print(
        f"library: {args.data_dir} ({info['docs']} docs, {info['chunks']} chunks, "
        f"model {info['model']}, built in {info['seconds']} s)"
    )
    queries = common.load_queries()
    splits = {name: common.load_qrels(name) for name in ("train", "test")}
    for name, qrels in splits.items():
        if qrels is None:
            print(f"{name}: qrels/{name}.tsv not present in {common.SCIFACT}; not reported")
    with common.open_library(args.data_dir) as library:
        embedder = CachedQueries(library.embedder)
        if args.sweep:
            train = splits["train"]
            if train is None:
                raise SystemExit("the sweep needs qrels/train.tsv")
            run_sweep(library, embedder, queries, train)
            return 0
        if args.title_prefix_now:
            title_prefix_now(library, embedder, queries, splits)
            return 0
        if args.title_prefix:
            if splits["train"] is None:
                raise SystemExit("--title-prefix needs qrels/train.tsv")
            config = config_from(args)
            title_prefix_experiment(library, embedder, queries, splits["train"], config)
            return 0
        config = config_from(args)
        print(f"fusion: {json.dumps(config)}; k={args.k}\n")
        service = make_service(library, embedder, **config)
        rows = []
        for name, qrels in splits.items():
            if qrels is None:
                continue
            for mode in MODES:
                started = time.perf_counter()
                result = score(service, queries, qrels, mode, args.k)
                rows.append(
                    (
                        name,
                        mode,
                        result["queries"],
                        result["ndcg@10"],
                        result["recall@100"],
                        f"{time.perf_counter() - started:.1f}",
                    )
                )
        common.print_table(["split", "mode", "queries", "nDCG@10", "recall@100", "seconds"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
