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
vectors for the library, title + first 60 words for the candidates, TF-IDF, each
collection's lexical shortlist ranked by a linear SVM on both); the references, computed
with this project's own TF-IDF at arxiv-sanity-lite's settings (scikit-learn is not a
dependency; ``--sklearn`` computes them with it too when it is installed): ``svm-tfidf``
(arxiv-sanity-lite's linear SVM per collection: C=0.01, classes balanced, on TF-IDF 1-2
grams, unstemmed, min_df 5, max_df 0.1, 20,000 terms, trained as its serve.py does on
every paper it holds: the library and the candidates, the untagged ones negatives) and
``centroid-tfidf`` (cosine to the collection's TF-IDF centroid); the other methods tried
are kept for the record.

    python bench/bench_alerts.py              # the protocol, every method
    python bench/bench_alerts.py --sklearn    # the references by scikit-learn as well
    python bench/bench_alerts.py --seeds 5    # the halves drawn with seeds 17 to 21
    python bench/bench_alerts.py --timing     # 5,000 candidates x 20 collections
    python bench/bench_alerts.py --sweep      # C and the shortlist on halves A and B

Vectors come from the real model through the embedding cache (``--cache``, by default
bench/out/embeddings.sqlite), so the first run embeds the corpus once (4 to 15 minutes
on a shared 2-core machine, by its load).
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
from dataclasses import dataclass
from pathlib import Path

import common
import numpy as np
from embedding_cache import CachingEmbedder, VectorStore

from prioris.alerts import terms as lexical
from prioris.alerts.linear import DenseRows, Stacked, fit
from prioris.alerts.ranking import EMBED_WORDS, SHORTLIST, C, Item, Profile, Ranking, candidate_text
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


def embedder(cache: Path | None) -> object:
    """The real model, behind the disk cache of vectors unless ``cache`` is None."""
    model = build_embedder(load_settings())
    return CachingEmbedder(model, VectorStore(cache)) if cache is not None else model


def items(
    ids: list[str], docs: dict[str, tuple[str, str]], model: object, *, candidates: bool = False
) -> list[Item]:
    """Works as the library holds them (the work vector embeds title + text), or
    candidates as the ranking embeds them (:func:`candidate_text`)."""
    if candidates:
        texts = [candidate_text(*docs[d]) for d in ids]
    else:
        texts = [work_text(docs[d][0], None, docs[d][1]) for d in ids]
    vectors = model.embed_passages(texts)  # type: ignore[attr-defined]
    return [Item(d, docs[d][0], docs[d][1], v) for d, v in zip(ids, vectors, strict=True)]


def z(scores: np.ndarray) -> np.ndarray:
    return (scores - scores.mean()) / (scores.std() + 1e-12)


@dataclass
class Setup:
    """One draw of the protocol with its items: the library and the candidates."""

    collections: list[Collection]
    library: list[str]
    candidates: list[str]
    lib_items: list[Item]
    cand_items: list[Item]

    @property
    def texts(self) -> list[str]:
        return [f"{i.title} {i.text}" for i in [*self.lib_items, *self.cand_items]]

    def labels(self, shown: list[str]) -> np.ndarray:
        chosen = set(shown)
        return np.array([d in chosen for d in self.library], dtype=np.float64)


def setup(docs: dict[str, tuple[str, str]], model: object, seed: int = 17) -> Setup:
    collections = protocol(NFCORPUS / "qrels" / "dev.tsv", seed)
    library = sorted({d for _, shown, _ in collections for d in shown})
    candidates = [d for d in sorted(docs) if d not in set(library)]
    return Setup(
        collections,
        library,
        candidates,
        items(library, docs, model),
        items(candidates, docs, model, candidates=True),
    )


def shipped(s: Setup, *, c: float = C, shortlist: int | None = SHORTLIST) -> list[list[str]]:
    """Each collection's 20 best ids by :mod:`prioris.alerts.ranking` as shipped (each
    ranking only its lexical shortlist), with their why."""
    ranking = Ranking(s.lib_items, s.cand_items, c=c)
    profiles = [Profile(q, frozenset(shown)) for q, shown, _ in s.collections]
    if shortlist is not None:
        ranking.shortlist(profiles, shortlist)
    return [[r.id for r in ranking.rank(p, 20)] for p in profiles]


def references(s: Setup) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """arxiv-sanity-lite's SVM and the TF-IDF centroid, with this project's TF-IDF at
    arxiv-sanity-lite's settings (unstemmed 1-2 grams, min_df 5, max_df 0.1, 20,000
    terms) over every document of the corpus. arxiv-sanity-lite trains its SVM on every
    paper it holds, the untagged ones negatives: here the library and the candidates."""
    ref = lexical.tfidf(s.texts, stem=False, min_df=5, max_df=0.1, max_terms=20_000)
    n = len(s.library)
    lib, cand = ref.rows.take(range(n)), ref.rows.take(range(n, ref.rows.height))
    pool = np.zeros(len(s.candidates))
    return {
        "svm-tfidf": lambda y: fit(ref.rows, np.concatenate([y, pool]), c=0.01).scores(cand),
        "svm-tfidf trained on the library only": lambda y: fit(lib, y, c=0.01).scores(cand),
        "centroid-tfidf": lambda y: cand.dot(lib.weighted_sum(y / y.sum())),
    }


def sklearn_references(s: Setup) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """The same references with scikit-learn itself (``TfidfVectorizer`` and
    ``LinearSVC`` as arxiv-sanity-lite's compute.py and serve.py call them), when it is
    installed; it is no dependency of Prioris."""
    from sklearn import svm  # type: ignore[import-not-found]
    from sklearn.feature_extraction.text import (  # type: ignore[import-not-found]
        TfidfVectorizer,
    )

    vectorizer = TfidfVectorizer(
        strip_accents="unicode",
        lowercase=True,
        analyzer="word",
        stop_words="english",
        token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
        ngram_range=(1, 2),
        max_features=20_000,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=True,
        max_df=0.1,
        min_df=5,
    )
    x = vectorizer.fit_transform(s.texts).astype(np.float32)
    n = len(s.library)
    lib, cand = x[:n], x[n:]
    pool = np.zeros(len(s.candidates))

    def svm_on(rows: object, y: np.ndarray) -> np.ndarray:
        model = svm.LinearSVC(class_weight="balanced", max_iter=10000, tol=1e-6, C=0.01)
        return model.fit(rows, y).decision_function(cand)

    return {
        "sklearn svm-tfidf": lambda y: svm_on(x, np.concatenate([y, pool])),
        "sklearn svm-tfidf trained on the library only": lambda y: svm_on(lib, y),
        "sklearn centroid-tfidf": lambda y: np.asarray(
            cand @ np.asarray(lib[y > 0].mean(axis=0)).ravel()
        ).ravel(),
    }


def others(s: Setup) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Other rules and models tried on the same features, kept for the record."""
    ranking = Ranking(s.lib_items, s.cand_items)
    lib_dense, cand_dense = ranking.known_dense, ranking.candidate_dense
    lib_rows = Stacked(DenseRows(lib_dense), ranking.known_lexical)
    cand_rows = Stacked(DenseRows(cand_dense), ranking.candidate_lexical)
    similar = cand_dense @ lib_dense.T

    def knn(mask: np.ndarray, k: int = 3) -> np.ndarray:
        return np.sort(similar[:, mask], axis=1)[:, -min(k, int(mask.sum())) :].mean(axis=1)

    def svm_dense(y: np.ndarray) -> np.ndarray:
        return fit(DenseRows(lib_dense), y, c=C).scores(DenseRows(cand_dense))

    return {
        "z(svm) + 0.5 z(knn1)": lambda y: (
            z(fit(lib_rows, y, c=C).scores(cand_rows)) + 0.5 * z(knn(y > 0, 1))
        ),
        "svm-dense": svm_dense,
        "centroid-dense": lambda y: cand_dense @ lib_dense[y > 0].mean(axis=0),
        "knn3-dense": lambda y: knn(y > 0),
        "knn3-pos-minus-neg-dense": lambda y: knn(y > 0) - knn(y == 0),
    }


def scored(s: Setup, method: Callable[[np.ndarray], np.ndarray]) -> list[list[str]]:
    return [
        [s.candidates[i] for i in np.argsort(-method(s.labels(shown)), kind="stable")[:20]]
        for _, shown, _ in s.collections
    ]


def report(name: str, s: Setup, rankings: list[list[str]]) -> np.ndarray:
    """Print a method's figures (all, halves A and B) and return them per collection."""
    v = np.array(
        [metrics(r, hidden) for r, (_, _, hidden) in zip(rankings, s.collections, strict=True)]
    )
    half = len(s.collections) // 2
    a, b, every = v[:half].mean(0), v[half:].mean(0), v.mean(0)
    print(
        f"{name:46s} {every[0]:6.3f} {every[1]:6.3f}   {a[0]:6.3f} {a[1]:6.3f}"
        f"   {b[0]:6.3f} {b[1]:6.3f}"
    )
    return v


HEADER = (
    f"{'method':46s} {'R@20':>6s} {'nDCG':>6s}   {'A R@20':>6s} {'nDCG':>6s}"
    f"   {'B R@20':>6s} {'nDCG':>6s}"
)


def run_protocol(cache: Path, use_sklearn: bool) -> None:
    docs = load(NFCORPUS)
    s = setup(docs, embedder(cache))
    print(
        f"{len(s.collections)} collections, library {len(s.library)},"
        f" candidates {len(s.candidates)}"
    )
    print(HEADER)
    mine = report("prioris (shipped)", s, shipped(s))
    report("prioris without the shortlist", s, shipped(s, shortlist=None))
    refs = references(s)
    if use_sklearn:
        refs |= sklearn_references(s)
    figures = {name: report(name, s, scored(s, method)) for name, method in refs.items()}
    for name, method in others(s).items():
        report(name, s, scored(s, method))
    # the split's noise: the paired standard error of the difference over collections
    for name in ("svm-tfidf", "centroid-tfidf"):
        diff = mine - figures[name]
        se = diff.std(axis=0, ddof=1) / np.sqrt(len(diff))
        print(
            f"prioris - {name}: {diff.mean(0)[0]:+.3f} (SE {se[0]:.3f}) recall@20,"
            f" {diff.mean(0)[1]:+.3f} (SE {se[1]:.3f}) nDCG@10"
        )


def run_seeds(cache: Path, seeds: int) -> None:
    """The shipped ranking and the references over other draws of the halves."""
    docs = load(NFCORPUS)
    model = embedder(cache)
    found: dict[str, list[np.ndarray]] = defaultdict(list)
    for seed in range(17, 17 + seeds):
        s = setup(docs, model, seed)
        print(f"seed {seed}: {len(s.collections)} collections")
        print(HEADER)
        found["prioris (shipped)"].append(report("prioris (shipped)", s, shipped(s)).mean(0))
        for name, method in references(s).items():
            found[name].append(report(name, s, scored(s, method)).mean(0))
    print(f"mean over seeds 17-{16 + seeds} (sd between seeds)")
    for name, values in found.items():
        v = np.array(values)
        m, sd = v.mean(0), v.std(0)
        print(f"{name:46s} {m[0]:.3f} ({sd[0]:.3f}) / {m[1]:.3f} ({sd[1]:.3f})")


def run_sweep(cache: Path) -> None:
    """The shipped ranking for each C: picked on half A, reported on half B."""
    s = setup(load(NFCORPUS), embedder(cache))
    print(HEADER)
    for c in (0.01, 0.1, 0.3, 1.0, 3.0):
        report(f"C={c}", s, shipped(s, c=c))
    for size in (25, 50, 100, 200):
        report(f"shortlist {size}", s, shipped(s, shortlist=size))


def run_timing(cache: Path, n_candidates: int = 5000, n_collections: int = 20) -> None:
    """The shipped flow timed step by step with the real model (no cache for
    candidates): lexical features, shortlist, embedding the shortlist, 20 rankings."""
    docs = load(NFCORPUS)
    collections = protocol(NFCORPUS / "qrels" / "dev.tsv")[-n_collections:]  # the largest
    library = sorted({d for _, shown, _ in collections for d in shown})
    pool = {**{f"sf-{k}": v for k, v in load(SCIFACT).items()}, **docs}
    candidates = [d for d in sorted(pool) if d not in set(library)][:n_candidates]
    lib_items = items(library, docs, embedder(cache))
    model = embedder(None)
    model.embed_passages(["warm-up: the session loads"])  # type: ignore[attr-defined]
    started = time.perf_counter()
    ranking = Ranking(lib_items, [Item(d, *pool[d], None) for d in candidates])
    built = time.perf_counter() - started
    profiles = [Profile(q, frozenset(shown)) for q, shown, _ in collections]
    t = time.perf_counter()
    places = ranking.shortlist(profiles)
    shortlisted = time.perf_counter() - t
    t = time.perf_counter()
    texts = [candidate_text(*pool[candidates[i]]) for i in places]
    vectors = model.embed_passages(texts)  # type: ignore[attr-defined]
    ranking.set_vectors({i: vectors[n] for n, i in enumerate(places)})
    embedded = time.perf_counter() - t
    t = time.perf_counter()
    for profile in profiles:
        ranking.rank(profile, 20)
    ranked = time.perf_counter() - t
    total = time.perf_counter() - started
    print(
        f"{len(candidates)} candidates, {len(collections)} collections, library"
        f" {len(library)}: features {built:.1f} s, shortlists {shortlisted:.1f} s,"
        f" embedding {len(places)} shortlisted {embedded:.1f} s"
        f" ({len(places) / embedded:.0f}/s), 20 rankings with why {ranked:.1f} s;"
        f" total {total:.1f} s"
    )
    # the same 300 candidates embedded whole and cut, one after the other (the machine's
    # load moves both alike): what cutting the text saves, per text
    sample = [pool[d] for d in candidates[:300]]
    rates = {}
    for name, texts in (
        ("whole (title + text)", [work_text(t, None, x) for t, x in sample]),
        (f"cut ({EMBED_WORDS} words)", [candidate_text(t, x) for t, x in sample]),
    ):
        t = time.perf_counter()
        model.embed_passages(texts)  # type: ignore[attr-defined]
        rates[name] = len(texts) / (time.perf_counter() - t)
    print("texts/s: " + ", ".join(f"{name} {rate:.1f}" for name, rate in rates.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timing", action="store_true", help="time 5,000 x 20 instead")
    parser.add_argument("--sweep", action="store_true", help="C and the shortlist on A, B")
    parser.add_argument("--seeds", type=int, default=0, help="also draw N other halves")
    parser.add_argument("--sklearn", action="store_true", help="references by scikit-learn")
    parser.add_argument(
        "--cache",
        type=Path,
        default=common.OUT / "embeddings.sqlite",
        help="the disk cache of vectors (bench/out/embeddings.sqlite)",
    )
    args = parser.parse_args()
    if not (NFCORPUS / "corpus.jsonl").is_file():
        print(f"SKIPPED: NFCorpus dev data not found at {NFCORPUS} (it lives in ../shared)")
        sys.exit(0)
    if args.timing:
        run_timing(args.cache)
    elif args.sweep:
        run_sweep(args.cache)
    elif args.seeds:
        run_seeds(args.cache, args.seeds)
    else:
        run_protocol(args.cache, args.sklearn)


if __name__ == "__main__":
    main()
