"""Alerts ranking per collection on NFCorpus (issue 37): the protocol, the references, and
the time to rank 5,000 candidates for 20 collections.

NFCorpus's relevance is "cited by a NutritionFacts page": a cited-literature
recommendation task. The protocol, on ``../shared/eval/nfcorpus-dev`` (dev qrels only):

- queries with at least 8 relevant documents, fewest relevant documents first (ties by
  query id), each kept when its relevant set is disjoint from those kept before;
- each kept query becomes a collection holding a random half (``len // 2``) of its
  relevant documents: one ``random.Random(17)`` drawing ``sample(sorted ids, len // 2)``
  for each collection in that order;
- the library is every collection's documents; the candidates every other document;
- each collection's ranking of the candidates is scored on its hidden half: recall@20 and
  nDCG@10 with gains ``2^rel - 1``, averaged over collections; halves A and B are the
  first and second half of the collections in that order (tune on A, report B).

Methods: ``prioris`` is :mod:`prioris.alerts.ranking` as shipped (the real model's work
vectors and TF-IDF, a linear SVM per collection); the references, computed the same way
with this project's own TF-IDF (scikit-learn is not a dependency): ``svm-tfidf``
(arxiv-sanity-lite's linear SVM per collection: C=0.01, classes balanced, on TF-IDF 1-2
grams, unstemmed, min_df 5, max_df 0.1, 20,000 terms) and ``centroid-tfidf`` (cosine to
the collection's TF-IDF centroid); the other methods tried are kept for the record.

    python bench/bench_alerts.py              # the protocol, every method
    python bench/bench_alerts.py --timing     # 5,000 candidates x 20 collections
    python bench/bench_alerts.py --sweep      # the SVM's C on halves A and B

Vectors come from the real model through the embedding cache (bench/out/embeddings.sqlite),
so the first run embeds the corpus once (~15 minutes on a loaded 2-core machine).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import common
import numpy as np
from embedding_cache import CachingEmbedder, VectorStore

from prioris.alerts import terms as lexical
from prioris.alerts.linear import DenseRows, fit
from prioris.alerts.ranking import Item, Profile, Ranking
from prioris.config import load_settings
from prioris.embedding import build_embedder
from prioris.ingest.embed import work_text

NFCORPUS = common.SHARED / "eval" / "nfcorpus-dev"
SCIFACT = common.SHARED / "eval" / "scifact"
Collection = tuple[str, list[str], dict[str, int]]  # query id, shown ids, hidden {id: rel}


def load(folder: Path) -> dict[str, tuple[str, str]]:
    docs = {}
    with (folder / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            docs[d["_id"]] = (d.get("title") or "", d.get("text") or "")
    return docs


def protocol(qrels_file: Path, seed: int = 17) -> list[Collection]:
    """The collections of the protocol (module docstring), in their order; ``seed`` other
    than the protocol's 17 draws other halves (``--seeds``: how much the split moves the
    figures)."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with qrels_file.open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            qrels[row["query-id"]][row["corpus-id"]] = int(row["score"])
    big = {q: rels for q, rels in qrels.items() if len(rels) >= 8}
    used: set[str] = set()
    rng = random.Random(seed)
    out: list[Collection] = []
    for query in sorted(big, key=lambda q: (len(big[q]), q)):
        if used & set(big[query]):
            continue
        used |= set(big[query])
        ids = sorted(big[query])
        shown = sorted(rng.sample(ids, len(ids) // 2))
        out.append((query, shown, {d: big[query][d] for d in ids if d not in set(shown)}))
    return out


def metrics(ranked: list[str], hidden: dict[str, int]) -> tuple[float, float]:
    """recall@20 and nDCG@10 (gains 2^rel - 1) of a ranking against the hidden half."""
    recall = len(set(ranked[:20]) & set(hidden)) / len(hidden)
    dcg = sum((2 ** hidden.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(hidden.values(), reverse=True)[:10]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return recall, dcg / idcg


def embedder(cached: bool = True) -> object:
    model = build_embedder(load_settings())
    return (
        CachingEmbedder(model, VectorStore(common.OUT / "embeddings.sqlite")) if cached else model
    )


def items(ids: list[str], docs: dict[str, tuple[str, str]], model: object) -> list[Item]:
    """Works as the library holds them: the work vector embeds title + text."""
    texts = [work_text(docs[d][0], None, docs[d][1]) for d in ids]
    vectors = model.embed_passages(texts)  # type: ignore[attr-defined]
    return [Item(d, docs[d][0], docs[d][1], v) for d, v in zip(ids, vectors, strict=True)]


def z(scores: np.ndarray) -> np.ndarray:
    return (scores - scores.mean()) / (scores.std() + 1e-12)


def run_protocol() -> None:
    docs = load(NFCORPUS)
    collections = protocol(NFCORPUS / "qrels" / "dev.tsv")
    library = sorted({d for _, shown, _ in collections for d in shown})
    candidates = [d for d in sorted(docs) if d not in set(library)]
    print(f"{len(collections)} collections, library {len(library)}, candidates {len(candidates)}")
    model = embedder()
    lib_items, cand_items = items(library, docs, model), items(candidates, docs, model)
    started = time.perf_counter()
    ranking = Ranking(lib_items, cand_items)
    print(f"features: {time.perf_counter() - started:.1f} s")
    # the references' TF-IDF (arxiv-sanity-lite's settings) over library + candidates
    ref = lexical.tfidf(
        [f"{i.title}\n{i.text}" for i in [*lib_items, *cand_items]],
        stem=False,
        min_df=5,
        max_df=0.1,
        max_terms=20_000,
    )
    ref_lib, ref_cand = (
        ref.rows.take(range(len(library))),
        ref.rows.take(range(len(library), len(library) + len(candidates))),
    )
    lib_dense, cand_dense = ranking.known_dense, ranking.candidate_dense
    similar = cand_dense @ lib_dense.T

    def knn(mask: np.ndarray, k: int = 3) -> np.ndarray:
        return np.sort(similar[:, mask], axis=1)[:, -min(k, int(mask.sum())) :].mean(axis=1)

    results: dict[str, list[tuple[float, float]]] = defaultdict(list)
    timings: dict[str, float] = defaultdict(float)
    for _, shown, hidden in collections:
        y = np.array([d in set(shown) for d in library], dtype=np.float64)
        m = y > 0
        methods: dict[str, Callable[[], np.ndarray]] = {
            "prioris": lambda shown=shown: np.array(
                [r.id for r in ranking.rank(Profile("c", frozenset(shown)), 20)]
            ),
            "svm-tfidf": lambda y=y: fit(ref_lib, y, c=0.01).scores(ref_cand),
            "centroid-tfidf": lambda y=y: ref_cand.dot(ref_lib.weighted_sum(y / y.sum())),
            "centroid-dense": lambda m=m: cand_dense @ lib_dense[m].mean(axis=0),
            "rocchio-dense": lambda m=m: (
                cand_dense @ (lib_dense[m].mean(axis=0) - 0.5 * lib_dense[~m].mean(axis=0))
            ),
            "knn3-dense": lambda m=m: knn(m),
            "knn3-pos-minus-neg-dense": lambda m=m: knn(m) - knn(~m),
            "svm-dense": lambda y=y: fit(DenseRows(lib_dense), y, c=ranking.c).scores(
                DenseRows(cand_dense)
            ),
            "fusion z(svm-dense)+z(svm-tfidf)": lambda y=y: (
                z(fit(DenseRows(lib_dense), y, c=ranking.c).scores(DenseRows(cand_dense)))
                + z(fit(ref_lib, y, c=0.01).scores(ref_cand))
            ),
        }
        for name, method in methods.items():
            t = time.perf_counter()
            scores = method()
            timings[name] += time.perf_counter() - t
            if name == "prioris":  # its 20 best ids, with their why
                ranked = list(scores)
            else:
                ranked = [candidates[i] for i in np.argsort(-scores, kind="stable")[:20]]
            results[name].append(metrics(ranked, hidden))
    half = len(collections) // 2
    print(
        f"{'method':36s} {'all R@20':>9s} {'nDCG@10':>8s}  {'A R@20':>7s} {'nDCG':>6s}"
        f"  {'B R@20':>7s} {'nDCG':>6s}  {'s/coll':>6s}"
    )
    for name, values in results.items():
        v = np.array(values)
        a, b, every = v[:half].mean(0), v[half:].mean(0), v.mean(0)
        print(
            f"{name:36s} {every[0]:9.3f} {every[1]:8.3f}  {a[0]:7.3f} {a[1]:6.3f}  "
            f"{b[0]:7.3f} {b[1]:6.3f}  {timings[name] / len(collections):6.2f}"
        )


def run_sweep() -> None:
    """The shipped ranking for each C: picked on half A, reported on half B."""
    docs = load(NFCORPUS)
    collections = protocol(NFCORPUS / "qrels" / "dev.tsv")
    library = sorted({d for _, shown, _ in collections for d in shown})
    candidates = [d for d in sorted(docs) if d not in set(library)]
    model = embedder()
    lib_items, cand_items = items(library, docs, model), items(candidates, docs, model)
    half = len(collections) // 2
    for c in (0.01, 0.1, 0.3, 1.0, 3.0):
        ranking = Ranking(lib_items, cand_items, c=c)
        v = np.array(
            [
                metrics([r.id for r in ranking.rank(Profile("c", frozenset(shown)), 20)], hidden)
                for _, shown, hidden in collections
            ]
        )
        a, b = v[:half].mean(0), v[half:].mean(0)
        print(f"C={c:<5} A {a[0]:.3f} / {a[1]:.3f}   B {b[0]:.3f} / {b[1]:.3f}")


def run_timing(n_candidates: int = 5000, n_collections: int = 20) -> None:
    """Embedding and ranking timed apart, with the real model (no cache for candidates)."""
    docs = load(NFCORPUS)
    collections = protocol(NFCORPUS / "qrels" / "dev.tsv")[-n_collections:]  # the largest
    library = sorted({d for _, shown, _ in collections for d in shown})
    pool = {**{f"sf-{k}": v for k, v in load(SCIFACT).items()}, **docs}
    candidates = [d for d in sorted(pool) if d not in set(library)][:n_candidates]
    lib_items = items(library, docs, embedder())
    started = time.perf_counter()
    cand_items = items(candidates, pool, embedder(cached=False))
    embedded = time.perf_counter() - started
    started = time.perf_counter()
    ranking = Ranking(lib_items, cand_items)
    built = time.perf_counter() - started
    for _, shown, _ in collections:
        ranking.rank(Profile("c", frozenset(shown)), 20)
    ranked = time.perf_counter() - started
    print(
        f"{len(candidates)} candidates, {len(collections)} collections, library {len(library)}:"
        f" embedding {embedded:.1f} s ({len(candidates) / embedded:.0f}/s), features"
        f" {built:.1f} s, features + 20 rankings {ranked:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timing", action="store_true", help="time 5,000 x 20 instead")
    parser.add_argument("--sweep", action="store_true", help="the SVM's C on halves A, B")
    args = parser.parse_args()
    if not (NFCORPUS / "corpus.jsonl").is_file():
        print(f"SKIPPED: NFCorpus dev data not found at {NFCORPUS} (it lives in ../shared)")
        sys.exit(0)
    if args.timing:
        run_timing()
    elif args.sweep:
        run_sweep()
    else:
        run_protocol()


if __name__ == "__main__":
    main()
