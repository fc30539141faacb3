"""The BEIR development sets and their cached libraries under ``bench/out/beir/``.

Two sets, both from ``../shared/eval`` and both development data only (the test splits are
held out elsewhere and never read here):

- ``scifact``: claims against abstracts; the train qrels, checked on its two halves;
- ``nfcorpus``: short nutrition topics against abstracts; dev and train qrels, each the
  other's check.

Each corpus is imported once with the real model through ``Library.import_records`` (the
product's own chunking, FTS and vector indexing) into ``bench/out/beir/<name>``, marked
complete, and reused by every experiment. Every vector goes through the
:mod:`embedding_cache`, so a rebuild (``--rebuild``) re-embeds nothing already seen.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common
from embedding_cache import CachingEmbedder, VectorStore

BEIR_OUT = common.OUT / "beir"
EMBEDDINGS = common.OUT / "embeddings.sqlite"


@dataclass(frozen=True)
class Dataset:
    name: str
    folder: Path
    splits: tuple[str, ...]  # qrels files used for tuning and checking

    @property
    def data_dir(self) -> Path:
        return BEIR_OUT / self.name

    def available(self) -> bool:
        return (self.folder / "corpus.jsonl").is_file()

    def queries(self) -> dict[str, str]:
        return common.load_queries(self.folder)

    def qrels(self) -> dict[str, common.Qrels]:
        """Split name -> qrels; SciFact's train is also given as its halves A and B."""
        out: dict[str, common.Qrels] = {}
        for split in self.splits:
            qrels = common.load_qrels(split, self.folder)
            if qrels is not None:
                out[split] = qrels
        if self.name == "scifact" and "train" in out:
            out["train-A"], out["train-B"] = halves(out["train"])
        return out


def halves(qrels: common.Qrels) -> tuple[common.Qrels, common.Qrels]:
    """A split in two (alternate ids in numeric order), to see whether a gain is stable."""
    ids = sorted(qrels, key=lambda q: int(q) if q.isdigit() else q)
    return ({q: qrels[q] for q in ids[0::2]}, {q: qrels[q] for q in ids[1::2]})


DATASETS = {
    "scifact": Dataset("scifact", common.SHARED / "eval" / "scifact", ("train",)),
    "nfcorpus": Dataset("nfcorpus", common.SHARED / "eval" / "nfcorpus-dev", ("dev", "train")),
}


def caching_embedder(data_dir: Path) -> CachingEmbedder:
    """The configured real embedder (the offline default), memoised in ``EMBEDDINGS``."""
    from prioris.embedding import build_embedder

    data_dir.mkdir(parents=True, exist_ok=True)
    return CachingEmbedder(build_embedder(common.settings_for(data_dir)), VectorStore(EMBEDDINGS))


def build(dataset: Dataset, *, rebuild: bool = False) -> dict[str, Any]:
    """Import the corpus into its library once (resumable) and mark it complete."""
    data_dir = dataset.data_dir
    marker = data_dir / "complete.json"
    if rebuild and data_dir.exists():
        shutil.rmtree(data_dir)
    if marker.is_file():
        return json.loads(marker.read_text())
    corpus = dataset.folder / "corpus.jsonl"
    total = sum(1 for _ in common.read_jsonl(corpus))
    done, last = 0, time.perf_counter()

    def progress(n: int) -> None:
        nonlocal done, last
        done += n
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            print(f"  {dataset.name}: imported {done}/{total}", file=sys.stderr, flush=True)

    print(f"building {dataset.name} in {data_dir} (real model, cached vectors)", file=sys.stderr)
    embedder = caching_embedder(data_dir)

    with common.open_library(data_dir, embedder=embedder) as library, common.timed() as t:
        summary = library.import_records(library.read_jsonl(corpus), on_progress=progress)
        status = library.status()
    if summary.failed:
        raise SystemExit(f"import failed for {len(summary.failed)} records: {summary.failed[:3]}")
    info = {
        "docs": total,
        "ingested": len(summary.ingested),
        "skipped": len(summary.skipped),
        "chunks": status["chunks"],
        "model": status["model"],
        "seconds": round(t["seconds"], 1),
        "embedded": embedder.computed,
        "reused": embedder.reused,
    }
    marker.write_text(json.dumps(info, indent=2))
    return info


def main(argv: list[str] | None = None) -> int:
    names = argv if argv else list(DATASETS)
    for name in names:
        dataset = DATASETS[name]
        if not dataset.available():
            print(f"SKIPPED: {dataset.name} not found at {dataset.folder}")
            continue
        print(name, json.dumps(build(dataset)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
