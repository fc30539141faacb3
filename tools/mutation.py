"""Run mutmut module by module over the core modules and print each one's kill rate.

mutmut (configured in ``[tool.mutmut]`` of pyproject.toml) copies the project into
``mutants/``, learns which fast tests reach each function, then runs only those tests
against every mutant. This script runs one module at a time, so a long run can be
stopped and resumed (mutmut keeps each mutant's result in ``mutants/``), and prints a
table of killed / total per module for docs/testing.md.

    .venv/bin/python tools/mutation.py                      # every core module
    .venv/bin/python tools/mutation.py search.fusion        # one module
    .venv/bin/python tools/mutation.py --report             # only the table of results
    .venv/bin/python tools/mutation.py --survivors search.fusion  # the diffs that survived
    .venv/bin/python tools/mutation.py --sample 40          # a seeded sample per module

A full run is thousands of mutants (hours on two shared cores); ``--sample N`` tests a
fixed random sample of N mutants per module (the same sample every time) for a quicker
estimate of each module's kill rate.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTMUT = str(Path(sys.executable).with_name("mutmut"))
CORE = [
    "discovery.routes",
    "sources.doi",
    "ingest.uploads",
    "storage.documents",
    "storage.works",
    "storage.chunks",
    "search.fusion",
    "search.backends",
    "search.service",
    "sources.http",
    "ingest.pipeline",
]
DETECTED = {"killed", "timeout", "segfault", "suspicious"}
GOAL = 0.85


def _mutmut(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.setdefault("PRIORIS_TEST_SHARED", str(ROOT.parent / "shared"))
    return subprocess.run(
        [MUTMUT, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def results() -> dict[str, Counter[str]]:
    """Status counts per module, from mutmut's stored results."""
    out = _mutmut("results", "--all", "true").stdout
    per_module: dict[str, Counter[str]] = {}
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if "__mutmut_" not in name:
            continue
        module = name.split(".x_")[0].split(".xǁ")[0]
        module = module.removeprefix("prioris.")
        per_module.setdefault(module, Counter())[status.strip()] += 1
    return per_module


def report(modules: list[str]) -> bool:
    """Print the table; True when every module reaches the goal."""
    counts = results()
    ok = True
    print(f"{'module':22} {'mutants':>7} {'killed':>7} {'survived':>8} {'rate':>6}")
    for module in modules:
        c = counts.get(module, Counter())
        checked = sum(n for status, n in c.items() if status not in ("not checked", "skipped"))
        killed = sum(c[s] for s in DETECTED)
        rate = killed / checked if checked else 0.0
        pending = c["not checked"]
        note = f"  ({pending} not checked yet)" if pending else ""
        ok &= rate >= GOAL and not pending
        print(f"{module:22} {checked:7} {killed:7} {checked - killed:8} {rate:6.1%}{note}")
    return ok


def _functions(path: Path) -> dict[str, str]:
    """Source of every (method) function in a mutated file, by its mutmut name."""
    import ast

    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
            found[node.name] = "\n".join(lines[node.lineno - 1 : node.end_lineno])
    return found


def report_sample(modules: list[str], chosen: set[str]) -> bool:
    """The table for the sampled mutants only."""
    statuses: dict[str, Counter[str]] = {}
    for line in _mutmut("results", "--all", "true").stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name in chosen:
            module = name.split(".x_")[0].split(".xǁ")[0].removeprefix("prioris.")
            statuses.setdefault(module, Counter())[status.strip()] += 1
    ok = True
    print(f"{'module (sample)':22} {'mutants':>7} {'killed':>7} {'survived':>8} {'rate':>6}")
    for module in modules:
        c = statuses.get(module, Counter())
        checked = sum(n for status, n in c.items() if status not in ("not checked", "skipped"))
        killed = sum(c[s] for s in DETECTED)
        rate = killed / checked if checked else 0.0
        ok &= rate >= GOAL
        print(f"{module:22} {checked:7} {killed:7} {checked - killed:8} {rate:6.1%}")
    return ok


def survivors(module: str) -> None:
    """The diff of each surviving mutant (read from mutants/, faster than ``mutmut show``)."""
    import difflib

    out = _mutmut("results").stdout
    path = ROOT / "mutants" / "src" / "prioris" / (module.replace(".", "/") + ".py")
    functions = _functions(path)
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name.startswith(f"prioris.{module}.") or "__mutmut_" not in name:
            continue
        if status.strip() not in ("survived", "no tests"):
            continue
        function = name.removeprefix(f"prioris.{module}.")
        original = functions.get(function.rsplit("__mutmut_", 1)[0] + "__mutmut_orig", "")
        mutant = functions.get(function, "")
        diff = [
            d
            for d in difflib.unified_diff(original.splitlines(), mutant.splitlines(), lineterm="")
            if d[:1] in "+-" and d[:3] not in ("+++", "---") and "def " not in d
        ]
        print(f"# {name}: {status}")
        print("\n".join(diff))


def _all_names() -> dict[str, list[str]]:
    """Every mutant's name per module (mutmut generates them on its first run)."""
    names: dict[str, list[str]] = {}
    for line in _mutmut("results", "--all", "true").stdout.splitlines():
        name = line.strip().rpartition(": ")[0]
        if "__mutmut_" in name:
            module = name.split(".x_")[0].split(".xǁ")[0].removeprefix("prioris.")
            names.setdefault(module, []).append(name)
    return names


def sample(modules: list[str], size: int) -> list[str]:
    """A seeded random sample of ``size`` mutant names per module."""
    import random

    names = _all_names()
    chosen: list[str] = []
    for module in modules:
        pool = sorted(names.get(module, []))
        chosen.extend(random.Random(f"prioris-{module}").sample(pool, min(size, len(pool))))
    return chosen


def main(argv: list[str]) -> int:
    if argv[:1] == ["--sample"]:
        size, modules = int(argv[1]), argv[2:] or CORE
        chosen = sample(modules, size)
        children = os.environ.get("MUTMUT_CHILDREN", "2")
        run = _mutmut("run", "--max-children", children, *chosen)
        if run.returncode != 0:
            print(run.stdout[-2000:], run.stderr[-2000:])
            return run.returncode
        return 0 if report_sample(modules, set(chosen)) else 1
    if argv[:1] == ["--survivors"]:
        for module in argv[1:]:
            survivors(module)
        return 0
    only_report = argv[:1] == ["--report"]
    modules = [a for a in argv if not a.startswith("--")] or CORE
    if not only_report:
        for module in modules:
            print(f"mutating prioris.{module} ...", flush=True)
            run = _mutmut(
                "run",
                "--max-children",
                os.environ.get("MUTMUT_CHILDREN", "2"),
                f"prioris.{module}.*",
            )
            if run.returncode != 0:
                print(run.stdout[-2000:], run.stderr[-2000:])
                return run.returncode
    return 0 if report(modules) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
