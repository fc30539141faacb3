"""How long reading a Zotero data directory takes: the snapshot (copy, quick_check) and the
set-based read, on the real data directories of ``../shared/fixtures/zotero`` and on
libraries of 1,000 and 10,000 items built from Zotero's own schema.

Prints, per library, the median of ``--runs`` reads (file cache warm) and the items read.
Reads copies in a temp dir; when the shared material is absent it says so and exits 0.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import common

from prioris.refman.zotero import read_library
from refman.zotero_factory import add_many, make_zotero_dir, open_db

ZOTERO = common.SHARED / "fixtures" / "zotero"


def _median_read(data_dir: Path, runs: int) -> tuple[float, int]:
    read_library(data_dir)  # warm the file cache
    times, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        count = len(read_library(data_dir).items)
        times.append(time.perf_counter() - started)
    return statistics.median(times), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    args = parser.parse_args()
    if not (ZOTERO / "schema").is_dir():
        print(f"no Zotero fixtures under {ZOTERO}; nothing to measure")
        return 0
    with tempfile.TemporaryDirectory(prefix="prioris-bench-zotero-") as tmp:
        root = Path(tmp)
        for folder in sorted(p for p in ZOTERO.iterdir() if (p / "zotero.sqlite").is_file()):
            copy = root / folder.name
            shutil.copytree(folder, copy)
            seconds, count = _median_read(copy, args.runs)
            size = (copy / "zotero.sqlite").stat().st_size / 2**20
            print(f"{folder.name:36} {count:6d} items  {size:6.1f} MiB  {seconds * 1000:7.1f} ms")
        for size in args.sizes:
            data_dir = make_zotero_dir(root, ZOTERO / "schema", name=f"built-{size}")
            with open_db(data_dir) as db:
                add_many(db, size)
            seconds, count = _median_read(data_dir, args.runs)
            mib = (data_dir / "zotero.sqlite").stat().st_size / 2**20
            label = f"built, {size} items"
            print(f"{label:36} {count:6d} items  {mib:6.1f} MiB  {seconds * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
