"""The ranked lists a library gives, written down, to check a speed change changed none.

For each query of a development set and each mode, the work ids of ``Library.search`` at
k=10 (hits and their order) go into a JSON file; ``--compare`` reads a file written by
other code (say, the commit before a change) and counts the queries whose lists differ,
printing the first few. Results must not move when only the speed changes (issue 26).

    .venv/bin/python bench/search_lists.py --library bench/out/scifact \\
        --queries ../shared/eval/scifact/queries.jsonl --out /tmp/after.json \\
        --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")


def warm_caches(library: Any, query: str) -> None:
    """Two queries, then wait for the in-memory vector copy and the BM25 postings a large
    library builds in the background: the lists compared are those a serving process
    gives, not those of its first queries (answered by the database meanwhile)."""
    for _ in range(2):
        library.search(query, mode="hybrid", k=10)
    backend = library.searcher.backend
    cache = getattr(backend, "vector_cache", None)
    if cache is not None:
        cache.wait_until_loaded(900)
    ranker = getattr(backend, "postings", None)
    if ranker is not None:
        ranker.wait_until_built(1800)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--queries", type=Path, required=True, help="a BEIR queries.jsonl")
    parser.add_argument("--qrels", type=Path, help="only the queries of this qrels file")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path, help="lists written before, to compare with")
    args = parser.parse_args(argv)

    queries = {str(q["_id"]): q["text"] for q in common.read_jsonl(args.queries)}
    if args.qrels:
        wanted = {line.split("\t")[0] for line in args.qrels.read_text().splitlines()[1:]}
        queries = {qid: text for qid, text in queries.items() if qid in wanted}
    lists: dict[str, dict[str, list[str]]] = {mode: {} for mode in MODES}
    with common.open_library(args.library) as library:
        warm_caches(library, next(iter(queries.values()), "cells"))
        for mode in MODES:
            for qid, text in queries.items():
                hits = library.search(text, mode=mode, k=args.k).hits
                lists[mode][qid] = [hit.id for hit in hits]
    args.out.write_text(json.dumps(lists))
    print(f"{len(queries)} queries x {len(MODES)} modes written to {args.out}")
    if args.compare:
        before = json.loads(args.compare.read_text())
        for mode in MODES:
            differ = [q for q in queries if before[mode].get(q) != lists[mode][q]]
            print(f"  {mode}: {len(queries) - len(differ)} of {len(queries)} lists identical")
            for qid in differ[:3]:
                print(f"    {qid}: before {before[mode].get(qid)} after {lists[mode][qid]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
