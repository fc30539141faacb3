"""What a CLI command costs before it does anything: CPU seconds of the whole process.

A light command (``--version``, ``status``, ``list``, ``show``, an fts ``search``) should not
pay for the model, PDF reading, the web or MCP stacks. CPU time (user + system of the
child, from ``wait4``) is the figure: a loaded machine stretches wall time but not the CPU a
process spends. Wall time is printed beside it, for a quiet machine.

The library is a small one made here (``--works`` records imported from JSONL with the real
model), kept in ``bench/out/startup-library`` between runs. Each command runs once to warm
the page cache and write ``__pycache__``, then ``--runs`` times::

    .venv/bin/python bench/bench_startup.py [--runs 7] [--json]
    PYTHONPATH=<old checkout>/src .venv/bin/python bench/bench_startup.py   # another version

Goals (issue 35): ``--version`` < 0.2 s; ``status``, ``list``, ``show`` < 0.6 s; an fts
``search`` < 0.8 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
WORDS = (
    "protein cell cancer gene expression model vaccine infection receptor tumour signal "
    "pathway mouse patient trial dose response immune therapy neural network learning "
    "graph retrieval citation evidence sentence ranking corpus"
).split()
GOALS = {"--version": 0.2, "status": 0.6, "list": 0.6, "show": 0.6, "search fts": 0.8}


def _prioris() -> list[str]:
    return [sys.executable, "-m", "prioris"]


def build_library(data_dir: Path, works: int) -> None:
    """``works`` records of random words, imported once (the real model embeds them)."""
    if (data_dir / "prioris.db").is_file():
        return
    data_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    records = data_dir / "records.jsonl"
    with records.open("w", encoding="utf-8") as out:
        for number in range(works):
            title = " ".join(rng.choice(WORDS) for _ in range(8)).capitalize()
            text = " ".join(rng.choice(WORDS) for _ in range(300))
            out.write(json.dumps({"_id": f"w{number}", "title": title, "text": text}) + "\n")
    subprocess.run(
        [*_prioris(), "--data-dir", str(data_dir), "import", str(records)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """One run of the command: (CPU seconds, wall seconds)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        message = child.stderr.read().decode() if child.stderr else ""
        raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}): {message}")
    return usage.ru_utime + usage.ru_stime, wall


def commands(data_dir: Path) -> dict[str, list[str]]:
    db = ["--data-dir", str(data_dir)]
    return {
        "--version": ["--version"],
        "--help": ["--help"],
        "status": [*db, "status"],
        "list": [*db, "list"],
        "show": [*db, "show", "w1", "--limit", "200"],
        "search fts": [*db, "search", "--mode", "fts", "protein receptor"],
        "search hybrid": [*db, "search", "protein receptor"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--works", type=int, default=50)
    parser.add_argument("--data-dir", type=Path, default=OUT / "startup-library")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, PRIORIS_MCP_ENRICH="off")
    # a user's Python caches compiled modules (__pycache__): measure that, not a compile
    # of every module at every start (this machine's shells set PYTHONDONTWRITEBYTECODE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    build_library(args.data_dir, args.works)
    results: dict[str, Any] = {}
    for name, rest in commands(args.data_dir).items():
        argv = [*_prioris(), *rest]
        measure(argv, env)  # warm the page cache
        runs = [measure(argv, env) for _ in range(args.runs)]
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        results[name] = {
            "cpu_s": round(statistics.median(cpu), 3),
            "cpu_min_s": round(min(cpu), 3),
            "wall_s": round(statistics.median(wall), 3),
            "goal_cpu_s": GOALS.get(name),
        }
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"{'command':<16}{'CPU s (median)':>16}{'CPU s (min)':>13}{'wall s':>9}{'goal':>7}")
    for name, row in results.items():
        goal = "" if row["goal_cpu_s"] is None else f"{row['goal_cpu_s']:.1f}"
        print(
            f"{name:<16}{row['cpu_s']:>16.3f}{row['cpu_min_s']:>13.3f}{row['wall_s']:>9.3f}"
            f"{goal:>7}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
