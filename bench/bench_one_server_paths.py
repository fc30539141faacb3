"""The one-server paths before and after a change, timed side by side: import, list,
browse and search, on SQLite and on PostgreSQL, with this checkout's code and another's.

Written for the shards (issue 38), which touched paths every library runs: a trigger on
``works`` (migration 0019, idle unless a session says the library is sharded), the
passage and page counts of ``list``/``browse`` asked apart from the works' rows, one
settings read when a PostgreSQL library opens. Each run is a process of its own with
``PYTHONPATH`` set to one checkout's ``src`` (and its own migrations), on a fresh SQLite
file and a fresh schema of one PostgreSQL 18 server started here; the fake embedder, so
the database's part is what is timed. Runs alternate, twice each.

    .venv/bin/python bench/bench_one_server_paths.py --compare-src ../main/src
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_postgres
import common

sys.path.insert(0, str(common.REPO / "tests"))
from pg_cluster import LocalServer

RUN = r"""
import json, statistics, sys, time
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
location, count = sys.argv[1], int(sys.argv[2])
records = [
    {"_id": f"r{i}", "title": f"Study {i} of coral reef {i % 97}",
     "text": f"Transect {i} bleached; colony {i % 13} recovered near site {i % 31}.",
     "source": "field", "year": 2000 + i % 20}
    for i in range(count)
]
settings = load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(location)
out = {}
with Library.open(settings, embedder=FakeEmbedder()) as library:
    started = time.perf_counter()
    for start in range(0, count, 100):
        library.import_records(records[start:start + 100])
    out["import"] = (time.perf_counter() - started) * 1000 / count
    def median(call, rounds=30):
        times = []
        for _ in range(rounds):
            began = time.perf_counter()
            call()
            times.append((time.perf_counter() - began) * 1000)
        return statistics.median(times)
    out["list 50"] = median(lambda: library.list_works(limit=50))
    out["browse 50"] = median(lambda: library.browse(limit=50))
    for mode in ("fts", "vector", "hybrid"):
        out[mode] = median(lambda: library.search("coral colony transect", mode=mode, k=10))
print(json.dumps(out))
"""
COLUMNS = ("import", "list 50", "browse 50", "fts", "vector", "hybrid")


def run(src: Path, location: str, count: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, location, str(count)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=str(src.parent),
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare-src", type=Path, required=True, help="another src/ to time")
    parser.add_argument("--records", type=int, default=2000)
    args = parser.parse_args(argv)
    sources = [("this checkout", common.REPO / "src"), ("other", args.compare_src.resolve())]
    rows = []
    with tempfile.TemporaryDirectory(prefix="prioris-paths-") as folder:
        base = Path(folder)
        base.chmod(0o755)
        server = LocalServer.create(base / "pg")
        try:
            results: dict[tuple[str, str], list[dict[str, float]]] = {}
            for run_number in (1, 2):
                for label, src in sources:
                    for engine in ("sqlite", "postgresql"):
                        name = f"r{run_number}_{label.split()[0]}_{engine}"
                        if engine == "sqlite":
                            location = str(base / f"{name}.sqlite")
                        else:
                            location = bench_postgres.schema_url(server.url, name)
                        found = run(src, location, args.records)
                        results.setdefault((label, engine), []).append(found)
        finally:
            server.remove()
    for (label, engine), found in results.items():
        medians = [statistics.median(r[c] for r in found) for c in COLUMNS]
        rows.append((engine, label, *(f"{m:.2f}" for m in medians)))
    rows.sort()
    print(
        f"\none server, {args.records} records imported 100 at a time (ms per record), then "
        "the median ms of 30 calls each; the median of 2 alternated runs"
    )
    common.print_table(["engine", "code", *COLUMNS], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
