"""How long ``zotero sync`` takes: a first sync and an unchanged re-sync of libraries of
N items built from Zotero's own schema (metadata only, so the model's pace does not hide
the sync's own), and a re-sync after editing 1% of them.

The issue's goal: an unchanged sync of a 1,000-item library in under 5 s besides start-up.
The library uses the real model unless ``--fake-model`` (start-up is outside the timings).
Works in a temp dir; when the Zotero schema in ../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import common

from prioris.library import Library
from refman.zotero_factory import add_many, edit_field, make_zotero_dir, open_db

SCHEMA = common.SHARED / "fixtures" / "zotero" / "schema"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fake-model", action="store_true", help="the fake embedder")
    args = parser.parse_args()
    if not SCHEMA.is_dir():
        print(f"no Zotero schema under {SCHEMA}; nothing to measure")
        return 0
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="prioris-bench-zsync-") as tmp:
            root = Path(tmp)
            data_dir = make_zotero_dir(root, SCHEMA)
            with open_db(data_dir) as db:
                keys = add_many(db, size)
            components = {}
            if args.fake_model:
                from prioris.embedding.fake import FakeEmbedder

                components["embedder"] = FakeEmbedder()
            with Library.open(data_dir=root / "lib", enrich="off", **components) as library:
                started = time.perf_counter()
                first = library.zotero_sync(data_dir)
                first_s = time.perf_counter() - started
                times = []
                for _ in range(args.runs):
                    started = time.perf_counter()
                    again = library.zotero_sync(data_dir)
                    times.append(time.perf_counter() - started)
                    assert again["unchanged"] == size, again
                with open_db(data_dir) as db:
                    for key in keys[: max(1, size // 100)]:
                        edit_field(db, key, "title", f"Edited {key}")
                started = time.perf_counter()
                edited = library.zotero_sync(data_dir)
                edited_s = time.perf_counter() - started
            print(
                f"{size} items: first sync {first_s:.1f} s ({first['added']} added); "
                f"unchanged re-sync median {statistics.median(times):.2f} s "
                f"(runs {', '.join(f'{t:.2f}' for t in times)}); "
                f"after editing {edited['updated']}: {edited_s:.2f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
