"""The OpenAlex citation graph at scale: requests, time and cache size, cold and warm.

A loopback OpenAlex (``tests/openalex_server.py``) serves the recorded citation-graph
works of ``../shared/fixtures/api/openalex-graph`` plus ``--works`` copies of the recorded
work W2741809807 (39 KB of real OpenAlex JSON), each given a new id and made to cite the
seed W3045921891. Through ``Library.openalex_graph()`` on a new library it then asks, twice
(cold: an empty cache; warm: a new graph object over the same library):

1. ``works(ids)`` for all the copies (50 ids a request);
2. ``citing([seeds], limit=works + 10)`` (``filter=cites:``, 100 a cursor page).

and prints the wall time, the requests sent (and the library's count of the day), and the
size of ``openalex_cache``. SQLite in a temp folder by default; ``--db postgresql://...``
runs it on PostgreSQL (an empty database). When ``../shared`` is absent it says so and
exits 0.

    .venv/bin/python bench/bench_openalex_graph.py --works 2000
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "api" / "openalex-graph"
for folder in (REPO / "src", REPO / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=2000, help="synthetic citing works")
    parser.add_argument("--db", help="a postgresql:// URL (default: SQLite in a temp folder)")
    args = parser.parse_args()
    if not FIXTURES.is_dir():
        print(f"SKIPPED: the recorded OpenAlex answers are not at {FIXTURES}")
        return 0
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    from openalex_server import SEEDS, OpenAlexServer

    with OpenAlexServer(FIXTURES) as server, tempfile.TemporaryDirectory() as tmp:
        template = server.works["W2741809807"]
        ids = [f"W9{n:09d}" for n in range(args.works)]
        for wid in ids:
            work = copy.deepcopy(template)
            work["id"], work["doi"] = f"https://openalex.org/{wid}", None
            work["referenced_works"] = [
                f"https://openalex.org/{SEEDS[0]}",
                *work["referenced_works"],
            ]
            server.works[wid] = work
        settings = load_settings({"PRIORIS_MCP_DATA_DIR": tmp}).with_library(
            args.db or Path(tmp) / "library.sqlite"
        )
        settings = settings.with_overrides(
            openalex_api_key="bench-key-0123456789",
            openalex_base_url=server.base,
            openalex_daily_budget=100_000,
            min_intervals={**settings.min_intervals, "openalex": 0.0},
        )
        print(f"{settings.library_location if args.db else 'SQLite'}, {args.works} works")
        with Library.open(settings, embedder=FakeEmbedder()) as library:
            for run in ("cold", "warm"):
                graph = library.openalex_graph()
                start = time.perf_counter()
                found = graph.works(ids)
                took_works, sent_works = time.perf_counter() - start, graph.requests
                graph = library.openalex_graph()
                start = time.perf_counter()
                citing = graph.citing(list(SEEDS), limit=args.works + 10)
                took_citing = time.perf_counter() - start
                today = library.status()["openalex_requests_today"]
                print(
                    f"  {run}: works {len(found)} in {took_works:.2f} s, {sent_works} requests; "
                    f"citing {len(citing)} in {took_citing:.2f} s, {graph.requests} requests; "
                    f"today's count {today}"
                )
            rows, size = library.conn.execute(
                "SELECT count(*), coalesce(sum(length(body)), 0) FROM openalex_cache"
            ).fetchone()
            per_row = size / max(rows, 1) / 1e3
            print(f"  cache: {rows} rows, {size / 1e6:.1f} MB ({per_row:.1f} KB a row)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
