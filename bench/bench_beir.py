"""Retrieval quality on the BEIR development sets: every configuration, every mode.

Both sets are imported once into cached libraries (:mod:`beir_data`), then each
configuration (a set of ``SearchConfig`` overrides, exactly what the product runs) answers
every query of every development split in fts, vector and hybrid modes with k=100:

- SciFact: the train qrels, and its two halves (A/B) as the stability check;
- NFCorpus: the dev and the train qrels, each the other's check.

Only development splits are read; the test splits are held out elsewhere. A change is
worth keeping when it wins on both sets and on each half/split.

    .venv/bin/python bench/bench_beir.py                       # the product default
    .venv/bin/python bench/bench_beir.py --group prf           # one group of configurations
    .venv/bin/python bench/bench_beir.py --group all --sets scifact
    .venv/bin/python bench/bench_beir.py --list                # the groups and their configs

Speed: the backends' chunk lists are memoised per query (an FTS expression or a query
vector asks the index once per process); every step after them (work collapsing,
feedback, fusion) is the product's own ``SearchService`` code on a copy of
``library.searcher`` with the configuration replaced. Query vectors come from the disk
cache of :mod:`embedding_cache` (the real model, computed once).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import beir_data
import common
import fts_variants

MODES = ("fts", "vector", "hybrid")
K = 100


# -- the product, with its backend calls memoised ---------------------------------------------
class Memo:
    """Prefix-memoised chunk lists: a list at limit n is the prefix of one at limit m > n.

    Lists are kept compactly (numpy ids and scores, interned work ids) in a bounded LRU, so
    a run over thousands of queries and dozens of configurations stays within memory.
    """

    MIN_LIMIT = 1200  # hybrid at k=100 asks for 300 works, i.e. 4 x 300 chunks
    CAPACITY = 16_000

    def __init__(self) -> None:
        from collections import OrderedDict

        self.lists: OrderedDict[tuple[Any, ...], tuple[int, Any, Any, Any]] = OrderedDict()
        self.work_names: list[str] = []
        self.work_codes: dict[str, int] = {}

    def _pack(self, items: list[Any]) -> tuple[Any, Any, Any]:
        import numpy as np

        codes = []
        for item in items:
            code = self.work_codes.get(item.work_id)
            if code is None:
                code = self.work_codes[item.work_id] = len(self.work_names)
                self.work_names.append(item.work_id)
            codes.append(code)
        return (
            np.fromiter((i.chunk_id for i in items), dtype=np.int64, count=len(items)),
            np.asarray(codes, dtype=np.int32),
            np.fromiter((i.score for i in items), dtype=np.float64, count=len(items)),
        )

    def _unpack(self, packed: tuple[Any, Any, Any], limit: int) -> list[Any]:
        from prioris.search.protocols import ChunkScore

        ids, codes, scores = packed
        n = len(ids) if limit < 0 else min(limit, len(ids))
        names = self.work_names
        return [ChunkScore(int(ids[i]), names[codes[i]], float(scores[i])) for i in range(n)]

    def get(self, key: tuple[Any, ...], limit: int, compute: Any) -> list[Any]:
        """``limit`` < 0 means every item (SQLite's LIMIT -1)."""
        entry = self.lists.get(key)
        if entry is not None:
            fetched, *packed = entry
            complete = fetched < 0 or len(packed[0]) < fetched
            if complete or 0 <= limit <= fetched:
                self.lists.move_to_end(key)
                return self._unpack(tuple(packed), limit)  # type: ignore[arg-type]
        wanted = -1 if limit < 0 else max(limit, self.MIN_LIMIT)
        items = compute(wanted)
        self.lists[key] = (wanted, *self._pack(items))
        while len(self.lists) > self.CAPACITY:
            self.lists.popitem(last=False)
        return items if limit < 0 else items[:limit]


MEMO = Memo()
CURRENT: dict[str, Any] = {}  # bench-only variant of the configuration being run


class MemoBackend:
    """The library's SQLite backend with its two index calls memoised (and, for the
    ``_``-keys of a configuration, an FTS variant of :mod:`fts_variants` in place of the
    product's table); the hit rows and stored vectors come from the backend itself."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name
        self._work_vectors: Any = None

    def work_vectors(self, work_ids: Any) -> Any:
        return self.inner.work_vectors(work_ids)

    def exact_work_table(self) -> Any:
        """The work-vector table of :mod:`work_vectors` (exact, every work), built on first
        use."""
        if self._work_vectors is None:
            import work_vectors

            self._work_vectors = work_vectors.WorkVectors(self.inner.conn)
        return self._work_vectors

    def fts(self, expression: str, filters: Any, limit: int, **kw: Any) -> Any:
        if CURRENT.get("_stopwords") == "extended":
            expression = fts_variants.drop_stopwords(expression, fts_variants.EXTENDED_STOPWORDS)
        if CURRENT.get("_prefix"):
            expression = fts_variants.prefixed(expression, CURRENT["_prefix"])
        conn = self.inner.conn
        if CURRENT.get("_fts_variant"):
            table, stem = CURRENT["_table"], CURRENT["_stem"]
            expression = fts_variants.rewrite_expression(expression, stem)
            key = ("fts", self.name, table, expression, tuple(sorted(kw.items())))
            return MEMO.get(
                key, limit, lambda n: fts_variants.variant_fts(conn, table, expression, n, **kw)
            )
        key = ("fts", self.name, expression, filters, tuple(sorted(kw.items())))
        return MEMO.get(key, limit, lambda n: self.inner.fts(expression, filters, n, **kw))

    def knn(self, vector: Any, filters: Any, k: int) -> Any:
        how = CURRENT.get("_work_vector")
        if how is not None:  # bench-only: one vector per work beside the chunk vectors
            table = self.exact_work_table()
            key = ("knn-work", self.name, how, vector.tobytes(), filters)
            return MEMO.get(key, k, lambda n: table.knn(vector, n, how))
        key = ("knn", self.name, vector.tobytes(), filters)
        return MEMO.get(key, k, lambda n: self.inner.knn(vector, filters, n))

    def vectors(self, chunk_ids: Any) -> Any:
        return self.inner.vectors(chunk_ids)

    def passages(self, chunk_ids: Any) -> Any:
        return self.inner.passages(chunk_ids)

    def works(self, work_ids: Any) -> Any:
        return self.inner.works(work_ids)

    def close(self) -> None:
        self.inner.close()


class Bench:
    """One dataset's library, its queries and qrels, and services per configuration."""

    def __init__(self, dataset: beir_data.Dataset) -> None:
        from prioris.search import vector_copy

        vector_copy.MIN_VECTORS = 0  # exact KNN from the in-memory copy: same lists, faster
        self.dataset = dataset
        self.info = beir_data.build(dataset)
        self.embedder = QueryMemo(beir_data.caching_embedder(dataset.data_dir))
        self.library = common.open_library(dataset.data_dir, embedder=self.embedder)
        self.queries = dataset.queries()
        self.qrels = dataset.qrels()
        self.ids = sorted({q for qrels in self.qrels.values() for q in qrels})
        self.base = self.library.searcher
        backend = self.base.backend
        backend.vector_cache._background = False
        backend.vector_cache._queries = 1
        backend.vector_cache.knn(backend.conn, self.embedder.embed_query("warm up"), *_all())
        self.backend = MemoBackend(backend, dataset.name)

    def service(self, overrides: dict[str, Any]) -> Any:
        """A copy of the library's service with the configuration replaced; keys starting
        with ``_`` select bench-only FTS variants (see :mod:`fts_variants`)."""
        variants = {k: v for k, v in overrides.items() if k.startswith("_")}
        variant = variants.get("_fts_variant")
        if variant:
            variants["_table"] = fts_variants.ensure_table(self.library.conn, variant)
            variants["_stem"] = fts_variants.VARIANTS[variant][1]()
        product = {k: v for k, v in overrides.items() if not k.startswith("_")}
        service = copy.copy(self.base)
        service.config = dataclasses.replace(self.base.config, **product)
        service.backend = self.backend
        service._hits = _light_hits  # the ranking is settled before snippets and work rows
        service.bench_variants = variants
        return service

    def run(self, overrides: dict[str, Any], mode: str) -> dict[str, dict[str, float]]:
        """Split name -> {ndcg@10, recall@100} for one configuration and mode."""
        short_words = overrides.get("_short_words", 0)
        long_service = self.service({k: v for k, v in overrides.items() if k != "_short"})
        short_service = long_service
        if short_words:  # query-side: short topic queries get their own configuration
            short_service = self.service({**overrides, **overrides["_short"]})
        runs = {}
        for q in self.ids:
            text = self.queries[q]
            short = len(text.split()) <= short_words
            service = short_service if short else long_service
            service_config(service)
            runs[q] = [hit.id for hit in service.search(text, mode=mode, k=K).hits]
        return {split: common.evaluate(runs, qrels) for split, qrels in self.qrels.items()}

    def close(self) -> None:
        self.library.close()


def service_config(service: Any) -> None:
    """Make the service's bench-only variants the ones the memoising backend applies."""
    CURRENT.clear()
    CURRENT.update(service.bench_variants)


def _light_hits(ordered: list[Any], *rest: Any) -> list[Any]:
    return [SimpleNamespace(id=item.work_id) for item, _ in ordered]


def _all() -> tuple[Any, int]:
    from prioris.search.protocols import SearchFilters

    return SearchFilters(), 10


class QueryMemo:
    """Query vectors kept in memory on top of the disk cache (a sweep asks them often)."""

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


# -- configurations ---------------------------------------------------------------------------
EQUAL = {"fts_weight": 0.5, "vector_weight": 0.5}
# learned fusion weights (fusion.FEATURES order) from bench/fit_fusion.py
FIT_SFA_NF = (0.542, 0.333, 0.0, 0.042, 0.083, 0.0)  # fitted on SciFact half A + NFCorpus train
FIT_SF = (0.524, 0.381, 0.0, 0.0, 0.048, -0.048)  # fitted on SciFact train
# feedback for every query (PRIORIS_MCP_FEEDBACK_MAX_WORDS limits it to short ones)
ANY = {"prf_max_words": None}
ROCCHIO_3 = {"prf_docs": 3, "prf_vector_weight": 0.5, **ANY}
ROCCHIO_RM3 = {
    "prf_docs": 5,
    "prf_vector_weight": 0.5,
    "prf_terms": 10,
    "prf_query_weight": 3,
    **ANY,
}
OFF = {"prf_docs": 0}  # no feedback pass (the default)
NO_WORK = {"work_vector_weight": 0.0}  # vector side from the best chunk alone (before)
ONE_POOL = {"work_vector_pool_factor": 1}  # rescore only the pool (none below the depth)
GROUPS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "default": [("default", {})],
    "fusion": [
        ("rrf k=60", {"method": "rrf", **EQUAL}),
        ("rrf k=10", {"method": "rrf", "rrf_k": 10, **EQUAL}),
        ("weighted 0.5/0.5", EQUAL),
        ("weighted 0.6/0.4 (landed)", {}),
        ("weighted 0.7/0.3", {"fts_weight": 0.7, "vector_weight": 0.3}),
    ],
    "passages": [
        ("fts decay 0.25", {"fts_decay": 0.25}),
        ("fts decay 0.5", {"fts_decay": 0.5}),
        ("vector decay 0.25", {"vector_decay": 0.25}),
        ("vector decay 0.5", {"vector_decay": 0.5}),
        ("both decay 0.25", {"fts_decay": 0.25, "vector_decay": 0.25}),
    ],
    "bm25": [
        ("title weight 0.5", {"title_weight": 0.5}),
        ("title weight 2", {"title_weight": 2.0}),
        ("title weight 4", {"title_weight": 4.0}),
        ("bigram phrases", {"fts_bigrams": True}),
        ("extended stop words (query)", {"_stopwords": "extended"}),
        ("prefix terms (5+ letters)", {"_prefix": 5}),
        ("porter, pre-tokenised (control)", {"_fts_variant": "porter-control"}),
        ("snowball (py-rust-stemmers)", {"_fts_variant": "snowball"}),
        ("no stemming", {"_fts_variant": "unstemmed"}),
    ],
    "query": [
        # short topic queries (NFCorpus-like, <= 6 words) fused differently from claims
        ("short queries 0.5/0.5", {"_short_words": 6, "_short": EQUAL}),
        (
            "short queries 0.4/0.6",
            {"_short_words": 6, "_short": {"fts_weight": 0.4, "vector_weight": 0.6}},
        ),
        (
            "short queries 0.7/0.3",
            {"_short_words": 6, "_short": {"fts_weight": 0.7, "vector_weight": 0.3}},
        ),
        ("short queries bigrams", {"_short_words": 6, "_short": {"fts_bigrams": True}}),
    ],
    "combo": [
        ("prefix terms (5+ letters)", {"_prefix": 5}),
        ("learned (fit SF A + NF train)", {"method": "learned", "learned_weights": FIT_SFA_NF}),
        ("learned (fit SF train)", {"method": "learned", "learned_weights": FIT_SF}),
        (
            "stop words + short 0.5/0.5",
            {"_stopwords": "extended", "_short_words": 6, "_short": EQUAL},
        ),
        (
            "stop words + learned (SF A + NF)",
            {"_stopwords": "extended", "method": "learned", "learned_weights": FIT_SFA_NF},
        ),
    ],
    "prf": [
        ("rocchio 3 docs b=0.5", {"prf_docs": 3, "prf_vector_weight": 0.5, **ANY}),
        ("rocchio 5 docs b=0.5", {"prf_docs": 5, "prf_vector_weight": 0.5, **ANY}),
        (
            "rm3 5 docs 10 terms qw=3",
            {"prf_docs": 5, "prf_terms": 10, "prf_query_weight": 3, **ANY},
        ),
        (
            "rocchio+rm3 5 docs",
            {
                "prf_docs": 5,
                "prf_vector_weight": 0.5,
                "prf_terms": 10,
                "prf_query_weight": 3,
                **ANY,
            },
        ),
    ],
    "stopfts": [
        ("short stop list (before)", {"fts_extended_stopwords": False}),
        ("extended stop list, fts mode only (new)", {}),
    ],
    # pseudo-relevance feedback for short (topic) queries only, on the default fusion
    "prf-short": [
        ("no feedback (before)", OFF),
        ("short<=6 rocchio 3 b=0.5", {**OFF, "_short_words": 6, "_short": ROCCHIO_3}),
        ("short<=4 rocchio 3 b=0.5", {**OFF, "_short_words": 4, "_short": ROCCHIO_3}),
        ("short<=3 rocchio 3 b=0.5", {**OFF, "_short_words": 3, "_short": ROCCHIO_3}),
        (
            "short<=6 rocchio 3 b=0.3",
            {**OFF, "_short_words": 6, "_short": {"prf_docs": 3, "prf_vector_weight": 0.3, **ANY}},
        ),
        (
            "short<=6 rocchio 5 b=0.3",
            {**OFF, "_short_words": 6, "_short": {"prf_docs": 5, "prf_vector_weight": 0.3, **ANY}},
        ),
        (
            "short<=6 rocchio 5 b=0.5",
            {**OFF, "_short_words": 6, "_short": {"prf_docs": 5, "prf_vector_weight": 0.5, **ANY}},
        ),
        ("short<=6 rocchio+rm3 5", {**OFF, "_short_words": 6, "_short": ROCCHIO_RM3}),
    ],
    "prf-rest": [
        ("rocchio 5 docs b=0.3", {"prf_docs": 5, "prf_vector_weight": 0.3, **ANY}),
        ("rocchio 3 docs b=0.3", {"prf_docs": 3, "prf_vector_weight": 0.3, **ANY}),
        ("rocchio 5 docs b=0.5", {"prf_docs": 5, "prf_vector_weight": 0.5, **ANY}),
        ("rocchio+rm3 5 docs", ROCCHIO_RM3),
    ],
    # the bench's exact form (every work scored from memory; the product weight off)
    "workvec": [
        ("chunks only, exact (control)", {**OFF, **NO_WORK, "_work_vector": ("mix", 0.0)}),
        ("max(chunk, work vector)", {**OFF, **NO_WORK, "_work_vector": ("max", 0.0)}),
        ("0.3 work + 0.7 chunk", {**OFF, **NO_WORK, "_work_vector": ("mix", 0.3)}),
        ("0.5 work + 0.5 chunk", {**OFF, **NO_WORK, "_work_vector": ("mix", 0.5)}),
    ],
    # the product's form: the works of the chunk KNN rescored with their stored vectors
    "workvec-product": [
        ("chunks only (weight 0, before)", {**OFF, **NO_WORK}),
        ("weight 0.3, pool 100", {**OFF, **ONE_POOL}),
        ("weight 0.3, pool 300", {**OFF, **ONE_POOL, "work_vector_pool": 300}),
        ("weight 0.3, pool 600", {**OFF, **ONE_POOL, "work_vector_pool": 600}),
        ("weight 0.3, pool 1000", {**OFF, **ONE_POOL, "work_vector_pool": 1000}),
        ("weight 0.3, pool 2 x depth (default)", OFF),
        ("weight 0.3, pool 3 x depth", {**OFF, "work_vector_pool_factor": 3}),
        ("weight 0.2, pool 2 x depth", {**OFF, "work_vector_weight": 0.2}),
        ("weight 0.4, pool 2 x depth", {**OFF, "work_vector_weight": 0.4}),
        ("short<=4 rocchio, weight 0", {**NO_WORK, "_short_words": 4, "_short": ROCCHIO_3}),
        ("short<=4 rocchio, weight 0.3", {"_short_words": 4, "_short": ROCCHIO_3}),
    ],
    "prf-more": [
        ("rocchio 3 docs b=1", {"prf_docs": 3, "prf_vector_weight": 1.0, **ANY}),
        ("rocchio 10 docs b=0.5", {"prf_docs": 10, "prf_vector_weight": 0.5, **ANY}),
        ("rm3 3 docs 10 terms qw=2", {"prf_docs": 3, "prf_terms": 10, **ANY}),
        ("rm3 5 docs 10 terms qw=2", {"prf_docs": 5, "prf_terms": 10, **ANY}),
        (
            "rm3 5 docs 20 terms qw=3",
            {"prf_docs": 5, "prf_terms": 20, "prf_query_weight": 3, **ANY},
        ),
    ],
}


# -- output -----------------------------------------------------------------------------------
COLUMNS = {
    "scifact": [("train", "ndcg@10"), ("train-A", "ndcg@10"), ("train-B", "ndcg@10")],
    "nfcorpus": [("dev", "ndcg@10"), ("train", "ndcg@10")],
}
RECALL = {"scifact": [("train", "recall@100")], "nfcorpus": [("dev", "recall@100")]}
SHORT = {"scifact": "SF", "nfcorpus": "NF"}


def header(sets: list[str]) -> list[str]:
    cells = ["config", "mode"]
    for name in sets:
        cells += [f"{SHORT[name]} {split} nDCG@10" for split, _ in COLUMNS[name]]
        cells += [f"{SHORT[name]} {split} R@100" for split, _ in RECALL[name]]
    return cells


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", default="default", help="a group name, several (a,b) or all")
    parser.add_argument("--sets", default="scifact,nfcorpus")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--only", help="run only the configurations whose label contains this")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        for name, configs in GROUPS.items():
            print(name)
            for label, overrides in configs:
                print(f"  {label}: {overrides}")
        return 0
    groups = list(GROUPS) if args.group == "all" else args.group.split(",")
    sets = [s for s in args.sets.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    benches: dict[str, Bench] = {}
    for name in sets:
        dataset = beir_data.DATASETS[name]
        if not dataset.available():
            print(f"SKIPPED: {name} not found at {dataset.folder}")
            continue
        benches[name] = Bench(dataset)
        info = benches[name].info
        print(
            f"{name}: {info['docs']} docs, {info['chunks']} chunks, model {info['model']}; "
            f"{len(benches[name].ids)} queries"
        )
    if not benches:
        return 0
    names = list(benches)
    try:
        for group in groups:
            print(f"\n## {group} (k={K})\n")
            rows = []
            for label, overrides in GROUPS[group]:
                if args.only and args.only not in label:
                    continue
                for mode in modes:
                    row: list[Any] = [label, mode]
                    for name in names:
                        started = time.perf_counter()
                        result = benches[name].run(overrides, mode)
                        seconds = time.perf_counter() - started
                        row += [result[split][metric] for split, metric in COLUMNS[name]]
                        row += [result[split][metric] for split, metric in RECALL[name]]
                        print(f"  {label} {mode} {name}: {seconds:.1f} s", file=sys.stderr)
                    rows.append(row)
                    cells = [c if isinstance(c, str) else f"{c:.4f}" for c in row]
                    print("  row: | " + " | ".join(cells) + " |", file=sys.stderr, flush=True)
            common.print_table(header(names), rows)
    finally:
        for bench in benches.values():
            bench.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
