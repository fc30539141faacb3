"""Embedding batch size: chunks/s of the default model at several batch sizes.

The texts are real SciFact abstracts cut the way ingest cuts them (title line + chunk),
so sequence lengths vary as they do in a library. Each size embeds the same texts after a
warm-up; the best size becomes ``PRIORIS_MCP_EMBEDDING_BATCH_SIZE``'s default.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=480, help="chunk texts to embed")
    parser.add_argument("--sizes", default="4,8,16,32,64", help="batch sizes to try")
    args = parser.parse_args(argv)
    folder = common.require_scifact()

    from prioris.embedding.fastembed_backend import FastembedEmbedder

    texts = []
    for record in common.load_corpus(folder):
        texts.append(f"{record['title']}\n{record['text']}"[:1500])
        if len(texts) >= args.texts:
            break
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        embedder = FastembedEmbedder(cache_dir=common.OUT / "models", batch_size=size)
        embedder.embed_passages(texts[:size])  # load + warm-up
        started = time.perf_counter()
        embedder.embed_passages(texts)
        seconds = time.perf_counter() - started
        rows.append((size, len(texts), round(seconds, 2), round(len(texts) / seconds, 1)))
    common.print_table(["batch size", "texts", "seconds", "texts/s"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
