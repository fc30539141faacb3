"""How long a whole-library snowball takes over the local graph (offline), by library size.

Builds a library in a temp dir: ``--works`` records, each with ``--refs`` references
drawn from a pool of cited works four times the library's size (a skewed draw, so some
works are cited by many seeds, as in a real field), plus one reference in ten to a work of
the library (linked). Then times ``Library.snowball(all=True, offline=True)``: gathering,
merging and deduplicating the candidates, embedding up to 2,000 of them and ranking. With
``--real-model`` the library's own model embeds (else the fake embedder: the cost without
the model).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: F401  (puts src on the path)

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
from prioris.models import Reference
from prioris.storage import references as reference_store

WORDS = (
    "coral reef ocean warming bleaching symbiont heat stress larval recovery acidification "
    "calcification fish herbivory turf algae sediment nutrient runoff cyclone restoration "
    "genomics thermal tolerance microbiome disease monitoring survey model projection"
).split()


def title(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(6)).capitalize() + f" study {n}"


def build(library: Library, works: int, refs: int, seed: int) -> int:
    rng = random.Random(seed)
    library.import_records(
        [
            {"_id": f"w{i}", "title": title(rng, i), "text": title(rng, i), "year": 2000 + i % 25}
            for i in range(works)
        ]
    )
    pool = works * 4
    cited = [(title(rng, 100_000 + j), 1990 + j % 35) for j in range(pool)]
    total = 0
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        for i in range(works):
            rows = []
            for k in range(refs):
                j = int(pool * rng.random() ** 3)  # skewed: a few works cited by many
                t, y = cited[j]
                doi = f"10.5555/c{j}" if j % 2 == 0 else None
                rows.append(Reference(k + 1, f"{t}. {y}.", ["A. Author"], t, y, None, doi))
            reference_store.replace_references(library.conn, f"w{i}", rows)
            total += len(rows)
        library.conn.execute("COMMIT")
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--works", type=int, nargs="+", default=[100, 1000], help="library sizes (default 100 1000)"
    )
    parser.add_argument("--refs", type=int, default=30, help="references per work (default 30)")
    parser.add_argument(
        "--real-model",
        action="store_true",
        help="embed with the library's model (default: the fake embedder)",
    )
    parser.add_argument("--seed", type=int, default=3, help="random seed (default 3)")
    args = parser.parse_args()
    for works in args.works:
        with tempfile.TemporaryDirectory() as folder:
            settings = load_settings({"PRIORIS_MCP_DATA_DIR": folder, "PRIORIS_MCP_ENRICH": "off"})
            given = {} if args.real_model else {"embedder": FakeEmbedder()}
            with Library.open(settings, **given) as library:
                refs = build(library, works, args.refs, args.seed)
                library.snowball(["w0"], offline=True, limit=1)  # the model loaded, caches warm
                started = time.perf_counter()
                answer = library.snowball(all=True, offline=True, limit=25)
                took = time.perf_counter() - started
                top = answer["candidates"][0]["why"] if answer["candidates"] else {}
                print(
                    f"{works} works, {refs} references: {answer['total']} candidates in "
                    f"{took:.2f} s (model: {library.embedder.model_id}); the top one cited by "
                    f"{top.get('backward')} seeds"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
