"""Test a module's seeded mutation sample against chosen test files only, fast.

mutmut runs, for each mutant, every test that reaches its function: for the header
parser that is some 200 tests (most of them ingest PDFs), minutes for each survivor on
two shared cores. This script runs the same mutants (the seeded sample of
``tools/mutation.py --sample N``, read from the ``mutants/`` tree mutmut generated) the
way mutmut does, with ``MUTANT_UNDER_TEST`` naming the mutant, but only against the test
files given: a mutant killed here is killed by the suite, so the kill rate it prints is a
lower bound of mutmut's. Survivors are printed with their diff, to be killed by a new
test or judged equivalent (``tools/mutation_equivalent.json``).

    .venv/bin/python tools/mutation_subset.py 60 ingest.header:parser tests/ingest/test_pdf*.py

It records nothing in ``mutants/`` (run ``tools/mutation.py`` for mutmut's own results).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import mutation  # noqa: E402


def main(argv: list[str]) -> int:
    size, module, files = int(argv[0]), argv[1], [str(Path(f).resolve()) for f in argv[2:]]
    src = ROOT / "mutants" / "src"
    if not src.exists():
        print("no mutants/ yet: run tools/mutation.py --sample N <module> first")
        return 2
    names = mutation.sample([module], size)
    functions = {part: mutation._functions(part) for part in mutation.members(module)}
    judged = mutation.judged()
    sys.path.insert(0, str(src))  # the trampolined copy, as mutmut runs it
    os.environ["PYTHONPATH"] = os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])
    os.chdir(ROOT / "mutants")
    import pytest

    options = ["-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "not slow"]
    basetemp = ["--basetemp", str(ROOT / "mutants" / ".subset-tmp")]
    killed = equivalent = 0
    for index, name in enumerate(names, 1):
        os.environ["MUTANT_UNDER_TEST"] = name
        with contextlib.redirect_stdout(io.StringIO()):
            code = pytest.main([*files, *options, *basetemp])
        diff = mutation.diff_of(name, functions[mutation.module_of(name)])
        if code not in (0, 5):
            killed += 1
            print(f"{index} killed {name}", flush=True)
            continue
        why = judged.get(name) or mutation.equivalent(diff)
        equivalent += bool(why)
        print(f"{index} SURVIVED {name}" + (f" (equivalent: {why})" if why else ""))
        print("\n".join(diff), flush=True)
    os.environ["MUTANT_UNDER_TEST"] = ""
    total = len(names)
    adjusted = killed / (total - equivalent) if total - equivalent else 0.0
    print(
        f"{module}: {total} mutants, {killed} killed, {total - killed} survived, "
        f"{equivalent} equivalent, rate {killed / total:.1%}, adjusted {adjusted:.1%}"
    )
    return 0 if adjusted >= mutation.GOAL else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
