"""Where alerts are read (issue 37): what a feed poll, the Alerts page and the digest cost.

A library of 200 works in 20 collections (fake embedder: this measures the reading paths,
not the ranking, which ``bench_alerts.py`` measures) with 20 alerts, each run once over
its own JSONL file of 200 candidates, keeping 50 results. The web app is the real one in
accounts mode, called in process through Starlette's test client (no socket). Figures,
each the median of ``--repeat`` calls:

* verifying a feed token (SHA-256 of a 256-bit secret) against verifying an account's
  login token (scrypt, n=2^14), the check a feed reader's poll would otherwise pay;
* ``GET /alerts/NAME.atom`` with a feed token and with a session (50 entries);
* ``GET /alerts`` (every alert with its 50 results, 1,000 candidates on one page);
* ``Library.alerts_digest(dry_run=True)`` (composing the 20 alerts' digest, no SMTP).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: F401  (puts src/ on the path like every bench script)

from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
from prioris.storage import accounts as account_store

WORDS = (
    "protein folding diffusion glacier moraine climate graph network tau amyloid sleep "
    "memory vaccine malaria sediment enzyme catalysis neuron synapse cortex lattice"
).split()


def text(seed: int, n: int = 40) -> str:
    return " ".join(WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(n))


def median_ms(call: Callable[[], object], repeat: int) -> float:
    call()  # warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def build(folder: Path) -> tuple[Library, dict[str, str]]:
    lib = Library.open(data_dir=folder, embedder=FakeEmbedder(), allowed_import_dirs=(folder,))
    lib.import_records(
        [{"_id": f"w{i}", "title": f"Work {i}", "text": text(i)} for i in range(200)]
    )
    tokens = {"ana": lib.add_account("ana", "writer")}
    for c in range(20):
        lib.create_collection(f"C{c}")
        lib.add_to_collection(f"C{c}", [f"w{i}" for i in range(c * 10, c * 10 + 10)])
        path = folder / f"cand{c}.jsonl"
        rows = [
            {"_id": f"doi:10.5555/c{c}-{j}", "title": f"Candidate {c}-{j}", "text": text(c + j)}
            for j in range(200)
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        lib.alerts_add(f"a{c}", collection=f"C{c}", sources=f"jsonl:{path}", account="ana")
        (report,) = lib.alerts_run(f"a{c}", k=50, account="ana")
        assert report["ok"], report
    return lib, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=50, help="calls per figure (default 50)")
    args = parser.parse_args()
    from starlette.testclient import TestClient

    from prioris.interfaces.web.app import build_app

    with tempfile.TemporaryDirectory() as tmp:
        lib, tokens = build(Path(tmp))
        feed = lib.add_feed_token("ana")["token"]
        app = build_app(lib, csrf_token="bench-csrf", accounts=True)
        anon = TestClient(app, base_url="http://127.0.0.1:8765")
        session = TestClient(app, base_url="http://127.0.0.1:8765")
        session.post(
            "/login", json={"token": tokens["ana"]}, headers={"X-CSRF-Token": "bench-csrf"}
        )
        assert anon.get("/alerts/a0.atom", params={"token": feed}).status_code == 200
        rows = [
            (
                "verify a feed token (SHA-256)",
                median_ms(lambda: lib.feed_account(feed), args.repeat),
            ),
            (
                "verify an account token (scrypt), uncached",
                median_ms(lambda: account_store.verify(lib.conn, tokens["ana"]), args.repeat),
            ),
            (
                "GET /alerts/a0.atom with ?token= (50 entries)",
                median_ms(lambda: anon.get("/alerts/a0.atom", params={"token": feed}), args.repeat),
            ),
            (
                "GET /alerts/a0.atom with a session",
                median_ms(lambda: session.get("/alerts/a0.atom"), args.repeat),
            ),
            (
                "GET /alerts (20 alerts x 50 candidates)",
                median_ms(lambda: session.get("/alerts"), max(5, args.repeat // 5)),
            ),
            (
                "alerts_digest(dry_run=True), 20 alerts",
                median_ms(lambda: lib.alerts_digest(dry_run=True), max(5, args.repeat // 5)),
            ),
        ]
        app.state.web.jobs.close()
        lib.close()
    print("| what | median ms |\n|---|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.2f} |")


if __name__ == "__main__":
    main()
