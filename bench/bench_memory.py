"""Peak memory and speed of embedding under ONNX Runtime session settings, A/B.

Two jobs, each run in a fresh subprocess per setting so every peak RSS starts from
nothing, the settings alternating round by round so machine load falls on all of them:

(1) small: ``prioris --data-dir TMP ingest PDF --json`` on one real ~14-page paper
    (default ``../shared/fixtures/pdfs/good/pdfjs_tracemonkey.pdf``; skipped when absent),
    peak RSS sampled every 20 ms with psutil, wall time including the model load.
(2) bulk: the chunk texts of the first N SciFact records (or generated texts when SciFact
    is absent) embedded by the product's embedder; peak RSS (ru_maxrss) and the embedding
    seconds and CPU seconds, model load excluded.

Settings: ``before`` = the former session (memory-pattern planner on) at batch 16;
``after`` = the product's defaults; plus any ``--extra NAME=pattern:on|off,batch:N``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

DEFAULT_PDF = common.SHARED / "fixtures" / "pdfs" / "good" / "pdfjs_tracemonkey.pdf"

# run inside each subprocess: apply one setting, then do the job
CHILD = """
import json, os, resource, sys, time
setting, job = json.loads(sys.argv[1]), sys.argv[2]
import prioris.embedding.fastembed_backend as backend
if setting.get("pattern") is not None:
    backend.SESSION_OPTIONS = {"enable_mem_pattern": setting["pattern"]}
if job == "ingest":
    from prioris.interfaces.cli import main
    raise SystemExit(main(["--data-dir", sys.argv[3], "ingest", sys.argv[4], "--json"]))
texts = json.loads(open(sys.argv[3]).read())
from prioris.embedding.fastembed_backend import FastembedEmbedder
embedder = FastembedEmbedder(cache_dir=__import__("pathlib").Path(sys.argv[4]),
                             batch_size=setting.get("batch", 16))
embedder.embed_passages(texts[:2])  # load the model: not timed
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu, start = usage.ru_utime + usage.ru_stime, time.perf_counter()
embedder.embed_passages(texts)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime - cpu,
                  "peak": usage.ru_maxrss * 1024}))
"""


def settings(extra: list[str]) -> dict[str, dict[str, Any]]:
    from prioris.config import load_settings

    product = load_settings({"HOME": str(Path.home())}).embedding_batch_size
    found: dict[str, dict[str, Any]] = {
        "before": {"pattern": True, "batch": 16},
        "after": {"pattern": None, "batch": product},
    }
    for item in extra:
        name, _, spec = item.partition("=")
        setting: dict[str, Any] = {"pattern": None, "batch": product}
        for part in spec.split(","):
            key, _, value = part.partition(":")
            if key == "pattern":
                setting["pattern"] = value == "on"
            elif key == "batch":
                setting["batch"] = int(value)
        found[name] = setting
    return found


def _env(setting: dict[str, Any]) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(common.REPO / "src"))
    env["PRIORIS_MCP_EMBEDDING_BATCH_SIZE"] = str(setting["batch"])
    return env


def run_ingest(setting: dict[str, Any], pdf: Path, tmp: Path) -> tuple[float, float, int]:
    data_dir = Path(tempfile.mkdtemp(dir=tmp))
    command = [sys.executable, "-c", CHILD, json.dumps(setting), "ingest", str(data_dir), str(pdf)]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(setting)
    )
    with common.RssSampler(process.pid, interval=0.02) as sampler:
        out, _ = process.communicate()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"ingest exited {process.returncode}")
    chunks = json.loads(out)["ingested"][0]["chunks"]
    return seconds, sampler.peak, chunks


def run_bulk(setting: dict[str, Any], texts: Path, cache: Path) -> dict[str, float]:
    command = [sys.executable, "-c", CHILD, json.dumps(setting), "bulk", str(texts), str(cache)]
    out = subprocess.run(
        command, capture_output=True, text=True, check=True, env=_env(setting)
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def bulk_texts(records: int, path: Path) -> int:
    """Chunk texts as the pipeline gives them to the model."""
    import random

    from prioris.embedding.fake import FakeEmbedder
    from prioris.ingest.embed import embedding_text
    from prioris.ingest.pipeline import IngestPipeline

    if (common.SCIFACT / "corpus.jsonl").is_file():
        rows = common.load_corpus()[:records]
    else:
        rng = random.Random(5)
        rows = [
            {"_id": str(i), "title": common.sentence(rng, 8), "text": common.paragraph(rng, 9)}
            for i in range(records)
        ]
    pipeline = IngestPipeline(
        None, FakeEmbedder(), ocr=None, ocr_mode="never", max_file_bytes=1, now=lambda: ""
    )
    texts = []
    for row in rows:
        prepared = pipeline.prepare_record(row)
        texts += [embedding_text(prepared.work.title, c.text) for c in prepared.chunks]
    path.write_text(json.dumps(texts))
    return len(texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the small job's PDF")
    parser.add_argument("--records", type=int, default=300, help="SciFact records for (2)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--extra", action="append", default=[], help="NAME=pattern:off,batch:8")
    parser.add_argument("--part", choices=("small", "bulk"), action="append")
    args = parser.parse_args(argv)
    parts = args.part or ["small", "bulk"]
    chosen = settings(args.extra)
    with tempfile.TemporaryDirectory(prefix="prioris-bench-memory-") as name:
        tmp = Path(name)
        if "small" in parts:
            if not args.pdf.is_file():
                print(f"(1) SKIPPED: {args.pdf} not found")
            else:
                rows = []
                for round_number in range(args.rounds):
                    for label, setting in chosen.items():
                        seconds, peak, chunks = run_ingest(setting, args.pdf, tmp)
                        rows.append(
                            [
                                label,
                                round_number + 1,
                                chunks,
                                f"{seconds:.1f}",
                                f"{common.mib(peak):.0f}",
                            ]
                        )
                print(f"(1) `prioris ingest {args.pdf.name}` in a subprocess, per setting:")
                common.print_table(["setting", "round", "chunks", "seconds", "peak RSS MiB"], rows)
        if "bulk" in parts:
            texts = tmp / "texts.json"
            count = bulk_texts(args.records, texts)
            rows = []
            for round_number in range(args.rounds):
                for label, setting in chosen.items():
                    result = run_bulk(setting, texts, tmp / "cache")
                    rows.append(
                        [
                            label,
                            round_number + 1,
                            f"{result['seconds']:.1f}",
                            f"{count / result['seconds']:.1f}",
                            f"{result['cpu']:.1f}",
                            f"{common.mib(result['peak']):.0f}",
                        ]
                    )
            print(f"\n(2) embedding {count} chunk texts ({args.records} records), per setting:")
            common.print_table(
                ["setting", "round", "seconds", "texts/s", "CPU s", "peak RSS MiB"], rows
            )
    _ = resource  # ru_maxrss is read in the child
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
