"""Latency of ``Library.evidence`` beside ``Library.search`` at 10k and 100k passages.

Evidence is one hybrid search over passages plus one batch of sentence embeddings, so its
cost is a search's plus the embedding of the few dozen sentences of the best passages.
Two libraries, both reused from the latency benchmark: SciFact's (9,215 passages, built by
``bench_scifact.py``; claims are SciFact's train claims) and the synthetic one of 100,000
passages (``bench_latency.py``; Zipf words from a random vocabulary, queries of its
words). For each claim: a plain hybrid search (k=10), then evidence (k=5), timed in turn
after warm-up on other claims; the sentences embedded per call are counted (p50), and the
CPU time of the call (all threads) beside its wall time. The machine's load is printed
beside the figures: on a shared 2-core machine they move with it, the CPU time less so.

    .venv/bin/python bench/bench_evidence_latency.py --claims 50
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_latency
import common


class CountingEmbedder:
    """The library's embedder, counting the sentences embedded per evidence call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id, self.dim = inner.model_id, inner.dim
        self.passages = 0

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)

    def embed_passages(self, texts: Any) -> Any:
        self.passages += len(texts)
        return self.inner.embed_passages(texts)

    def count_tokens(self, texts: Any) -> list[int]:
        return self.inner.count_tokens(texts)


def measure(data_dir: Path, claims: list[str]) -> dict[str, Any]:
    with common.open_library(data_dir) as library:
        counting = CountingEmbedder(library.searcher.embedder)
        library.searcher.embedder = counting
        for claim in claims[-3:]:  # warm-up on claims not measured (sentence vectors are kept)
            library.search(claim, mode="hybrid", k=10)
            library.evidence(claim, k=5)
        searches, evidences, embedded, cpu = [], [], [], []
        for claim in claims[:-3]:
            started = time.perf_counter()
            library.search(claim, mode="hybrid", k=10)
            searches.append((time.perf_counter() - started) * 1000)
            counting.passages = 0
            started, cpu_started = time.perf_counter(), time.process_time()
            library.evidence(claim, k=5)
            evidences.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
            embedded.append(counting.passages)
        passages = library.status()["chunks"]
    return {
        "passages": passages,
        "claims": len(claims) - 3,
        "search p50/p95 ms": [round(common.percentile(searches, p)) for p in (50, 95)],
        "evidence p50/p95 ms": [round(common.percentile(evidences, p)) for p in (50, 95)],
        "evidence CPU p50 ms (all threads)": round(common.percentile(cpu, 50)),
        "sentences embedded p50": common.percentile([float(e) for e in embedded], 50),
        "load average": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=50)
    args = parser.parse_args()
    folder = common.require_scifact()
    claims = [q["text"] for q in common.read_jsonl(folder / "queries.jsonl")][: args.claims]
    results = {"scifact": measure(common.OUT / "scifact", claims)}
    synthetic = common.OUT / "synthetic-100k"
    if (synthetic / "complete.json").is_file():
        info = json.loads((synthetic / "complete.json").read_text())
        queries = bench_latency.synthetic_queries(info["vocabulary"], args.claims)
        random.Random(36).shuffle(queries)
        results["synthetic-100k"] = measure(synthetic, queries)
    else:
        print("synthetic-100k not built: run bench/bench_latency.py --which synthetic first")
    for name, figures in results.items():
        print(name, json.dumps(figures))


if __name__ == "__main__":
    main()
