"""Distributed ingest on Dask (issue 38): the fixture PDFs ingested in this process, then
through ``--cluster local:2``, then through ``local:2`` with a worker killed half-way;
the three libraries' fingerprints (each work's fields, its Markdown's sha256, its
documents, a digest of every passage and of its vector rounded to 1e-6, as
bench/ingest_fingerprint.py makes them) must be identical. Prints the wall time of each
run (the cluster's start apart) and whether the fingerprints match::

    PYTHONPATH=src .venv/bin/python bench/bench_dask_ingest.py
    PYTHONPATH=src .venv/bin/python bench/bench_dask_ingest.py --workers 2 --json

The PDFs are ``../shared/fixtures/pdfs/good`` and ``../shared/fixtures/pdfmeta/pdfs``
(skipped, exit 0, when absent); the real model, enrichment off, OCR as configured.
A run through the Library with the ``cluster`` setting is what ``prioris ingest
--cluster local:2`` does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from ingest_fingerprint import library_fingerprint


def _pdfs() -> list[Path]:
    found: list[Path] = []
    for folder in ("fixtures/pdfs/good", "fixtures/pdfmeta/pdfs"):
        found += sorted((common.SHARED / folder).glob("*.pdf"))
    return found


def _fingerprint(library: Any) -> dict[str, Any]:
    conn = library.conn
    markdown = {
        work_id: hashlib.sha256((text or "").encode()).hexdigest()
        for work_id, text in conn.execute("SELECT id, markdown FROM works").fetchall()
    }
    documents = conn.execute(
        "SELECT sha256, work_id, page_count, ocr_pages FROM documents ORDER BY sha256"
    ).fetchall()
    return {
        "works": library_fingerprint(library),
        "markdown": markdown,
        "documents": [list(row) for row in documents],
    }


def _kill_half_way(runner: Any, done: list[Path], total: int, killed: dict[str, Any]) -> None:
    """SIGKILL a worker running a task once about half the files are committed."""
    client = runner.client
    while len(done) < max(1, total // 2):
        time.sleep(0.05)
        if killed.get("stop"):
            return
    while not killed.get("stop"):
        busy = sorted(w for w, keys in client.processing().items() if keys)
        if busy:
            pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            killed.update(worker=busy[0], pid=pid, committed=len(done))
            os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


def _run(pdfs: list[Path], cluster: str | None, kill: bool) -> dict[str, Any]:
    from prioris import Library

    with tempfile.TemporaryDirectory() as tmp:
        settings = common.load_settings().with_library(Path(tmp) / "library.db")
        settings = settings.with_overrides(enrich="off", cluster=cluster)
        started = time.perf_counter()
        library = Library.open(settings)
        try:
            runner = library.pipeline.runner  # starts the LocalCluster, if any
            opened = time.perf_counter() - started
            done: list[Path] = []
            killed: dict[str, Any] = {}
            watcher = None
            if kill:
                watcher = threading.Thread(
                    target=_kill_half_way, args=(runner, done, len(pdfs), killed)
                )
                watcher.start()
            started = time.perf_counter()
            summary = library.ingest_paths(pdfs, on_file_done=lambda p, r, e: done.append(p))
            seconds = time.perf_counter() - started
            killed["stop"] = True
            if watcher is not None:
                watcher.join()
            return {
                "cluster": cluster or "(in process)",
                "start_seconds": round(opened, 2),
                "ingest_seconds": round(seconds, 2),
                "ingested": len(summary.ingested),
                "failed": [f["path"] for f in summary.failed],
                "killed": {k: v for k, v in killed.items() if k != "stop"} or None,
                "fingerprint": _fingerprint(library),
            }
        finally:
            library.close()


def _plain_records(count: int) -> str:
    """The in-process import's speed (to compare two source trees: the change must not
    slow the one-machine path): ``count`` generated records with the fake model, then the
    same again (all skipped), best of three."""
    from prioris import Library
    from prioris.embedding.fake import FakeEmbedder

    records = [
        {
            "_id": f"r{i}",
            "title": f"Title {i} of a record",
            "year": 2000 + i % 20,
            "text": f"Some words about thing {i}. " * 30,
        }
        for i in range(count)
    ]
    best = [float("inf"), float("inf")]
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            settings = common.load_settings().with_library(Path(tmp) / "library.db")
            with Library.open(settings, embedder=FakeEmbedder()) as library:
                for at in (0, 1):
                    started = time.perf_counter()
                    library.import_records(records)
                    best[at] = min(best[at], time.perf_counter() - started)
    return f"{count} records in this process: first {best[0]:.2f} s, again {best[1]:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="local:N workers (default 2)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument(
        "--plain-records", type=int, metavar="N", help="only time N records imported here"
    )
    args = parser.parse_args()
    if args.plain_records:
        print(_plain_records(args.plain_records))
        return 0
    pdfs = _pdfs()
    if not pdfs:
        print("skipped: the shared fixture PDFs are missing", file=sys.stderr)
        return 0
    cluster = f"local:{args.workers}"
    runs = [_run(pdfs, None, False), _run(pdfs, cluster, False), _run(pdfs, cluster, True)]
    plain = runs[0]["fingerprint"]
    rows = []
    for run in runs:
        same = run["fingerprint"] == plain
        label = run["cluster"] + (" (a worker killed)" if run["killed"] else "")
        rows.append(
            {
                **{k: v for k, v in run.items() if k != "fingerprint"},
                "label": label,
                "identical": same,
                "works": len(run["fingerprint"]["works"]),
            }
        )
    if args.json:
        print(json.dumps({"pdfs": len(pdfs), "cpus": os.cpu_count(), "runs": rows}, indent=1))
    else:
        print(f"{len(pdfs)} PDFs, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        for row in rows:
            print(
                f"{row['label']:<32} start {row['start_seconds']:>5.1f} s  ingest "
                f"{row['ingest_seconds']:>6.1f} s  {row['works']} works  "
                f"identical to plain: {row['identical']}"
                + (
                    f"  (killed {row['killed']['worker']} after {row['killed']['committed']} files)"
                    if row["killed"]
                    else ""
                )
            )
    return 0 if all(row["identical"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
