"""The docs' commands that are not ``prioris`` calls: make targets, bench and tools
scripts, pytest runs (docs/testing.md, docs/benchmarks.md, README).

They take minutes to hours (benchmarks, mutation runs, the suite itself), so they are not
run whole; each is checked as far as it can be without running it: a make line by
``make -n`` (the target exists and its variables are taken), a script line by parsing its
arguments with the script's own argparse parser (the script stops right after), a pytest
line by its paths and its Hypothesis profile. ``prioris`` and ``sqlite3`` lines run for
real in tests/test_doc_examples.py; a line of any other program fails here, so no example
escapes both.
"""

from __future__ import annotations

import argparse
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from prioris.interfaces.cli.app import build_parser

from doc_blocks import (
    ROOT,
    RUN_HERE,
    inline_commands,
    program,
    shell_lines,
    split_assignments,
    split_words,
)

CHECKED_HERE = ("make", "python", "pip", "export", "systemctl", "journalctl")
NOT_RUN = {
    "pip": "sets up a scratch environment for the LanceDB comparison, not a project dependency",
    "systemctl": "docs/usage.md's user unit for `prioris watch`: no systemd user session here",
    "journalctl": "reads that unit's log: no systemd user session here",
}
PLACEHOLDERS = {"tests/some/dir"}  # docs/testing.md: "runs a part"


class _Parsed(Exception):
    """Raised by the patched ``parse_args`` once a script's arguments parsed."""


def _pieces(command: str) -> list[list[str]]:
    """The commands of a ``a && b`` line, each as words."""
    pieces, current = [], []
    for word in split_words(command):
        if word == "&&":
            pieces.append(current)
            current = []
        else:
            current.append(word)
    return [*pieces, current]


def check_make(words: list[str], where: str) -> None:
    """``make TARGET [NAME=value]``: a dry run (``make -n``) succeeds and does something;
    the modules a ``MUTATE=`` names exist."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    args = words[1:]
    for arg in args:
        if arg.startswith("MUTATE="):
            for module in arg.split("=", 1)[1].split():
                path = ROOT / "src" / "prioris" / (module.replace(".", "/") + ".py")
                assert path.is_file(), f"{where}: MUTATE names {module}, no {path}"
    done = subprocess.run(
        [make, "-n", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, f"{where}: make -n {' '.join(args)}: {done.stderr}"
    assert done.stdout.strip(), f"{where}: make {' '.join(args)} does nothing"


def check_script(script: Path, args: list[str], where: str, monkeypatch: Any) -> None:
    """The script parses ``args`` with its own parser; it is stopped right after."""
    assert script.is_file(), f"{where}: no {script.relative_to(ROOT)}"
    source = script.read_text(encoding="utf-8")
    if "argparse" not in source:  # reads sys.argv itself: each option is one it compares
        for arg in args:
            if arg.startswith("-"):
                assert f'"{arg}"' in source, f"{where}: {script.name} has no option {arg}"
            elif re.fullmatch(r"[a-z_]+\.[a-z_]+", arg):  # a module (tools/mutation.py)
                module = ROOT / "src" / "prioris" / (arg.replace(".", "/") + ".py")
                assert module.is_file(), f"{where}: no module {arg}"
        return
    parse_known = argparse.ArgumentParser.parse_known_args

    def parse_args(self: argparse.ArgumentParser, argv: Any = None, namespace: Any = None) -> Any:
        namespace, extra = parse_known(self, argv, namespace)
        if extra:
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        raise _Parsed(namespace)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
    monkeypatch.setattr(sys, "argv", [str(script), *args])
    monkeypatch.syspath_prepend(str(script.parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except _Parsed:
        return
    except SystemExit as exc:  # argparse's error exit (2) or --help (0)
        assert exc.code == 0, f"{where}: {script.name} {' '.join(args)} exits {exc.code}"
        return
    pytest.fail(f"{where}: {script.name} never parsed its arguments")


def check_pytest(env: dict[str, str], args: list[str], where: str) -> None:
    """Paths exist and a named Hypothesis profile is registered."""
    for arg in args:
        if not arg.startswith("-") and arg not in PLACEHOLDERS:
            assert (ROOT / arg.split("::")[0]).exists(), f"{where}: no {arg}"
    profile = env.get("HYPOTHESIS_PROFILE")
    if profile:
        registered = {
            name
            for conftest in (ROOT / "tests").rglob("conftest.py")
            for name in re.findall(r"register_profile\(\s*\"(\w+)\"", conftest.read_text())
        }
        assert profile in registered, f"{where}: no Hypothesis profile {profile!r}"


def check_export(assignments: list[str], where: str) -> None:
    """``export PRIORIS_MCP_X=value``: a setting Prioris reads, and a value it accepts."""
    from prioris.config import load_settings

    for item in assignments:
        name, _, value = item.partition("=")
        assert name.startswith("PRIORIS_MCP_"), f"{where}: {name} is not a Prioris setting"
        before = load_settings({"HOME": "/nonexistent"})
        after = load_settings({"HOME": "/nonexistent", name: value})
        assert after != before, f"{where}: {name} changes no setting"


def check_python(words: list[str], where: str, monkeypatch: Any) -> None:
    env, rest = split_assignments(words)
    args = rest[1:]
    if args[:2] == ["-m", "pytest"]:
        check_pytest(env, args[2:], where)
    elif args[:2] == ["-m", "prioris"]:
        assert build_parser().parse_args(args[2:]).func, where
    elif args[:2] == ["-m", "venv"]:
        pass  # a scratch environment (docs/benchmarks.md); its pip line follows
    else:
        assert args and args[0].endswith(".py"), f"{where}: unsupported python call"
        check_script(ROOT / args[0], args[1:], where, monkeypatch)


def _check(command: str, where: str, monkeypatch: Any) -> None:
    for words in _pieces(command):
        _env, rest = split_assignments(words)
        name = program(words)
        if name == "make":
            check_make(rest, where)
        elif name == "python":
            check_python(words, where, monkeypatch)
        elif re.fullmatch(r"(bench|tools)/\w+\.py", rest[0]):
            check_script(ROOT / rest[0], rest[1:], where, monkeypatch)
        elif name == "export":
            check_export(rest[1:], where)
        else:
            assert name in NOT_RUN, f"{where}: `{command}` is checked nowhere"


def test_every_shell_example_is_run_or_checked() -> None:
    programs = {program(command) for _, command in shell_lines()}
    unknown = programs - set(RUN_HERE) - set(CHECKED_HERE)
    assert not unknown, f"examples of programs no test runs or checks: {unknown}"


def _docs_commands() -> list[tuple[str, str]]:
    block = [(w, c) for w, c in shell_lines() if program(c) in CHECKED_HERE]
    return block + inline_commands()


@pytest.mark.parametrize(("where", "command"), _docs_commands())
def test_make_script_and_pytest_examples(where: str, command: str, monkeypatch: Any) -> None:
    _check(command, where, monkeypatch)


def test_the_checks_catch_a_wrong_example(monkeypatch: Any) -> None:
    """What a stale example looks like fails: an unknown target, an option a script does
    not have, a missing test path, an unregistered profile, a module that is not there."""
    bad = [
        "make no-such-target",
        'make mutation MUTATE="search.nowhere"',
        ".venv/bin/python bench/bench_latency.py --no-such-option",
        ".venv/bin/python bench/bench_latency.py --which nowhere",
        ".venv/bin/python -m pytest tests/no_such_dir",
        "HYPOTHESIS_PROFILE=endless .venv/bin/python -m pytest tests/fuzz",
        "tools/nowhere.py --sample 40",
        ".venv/bin/python tools/mutation.py --no-such-option",
        ".venv/bin/python tools/mutation.py --survivors search.nowhere",
        "curl https://example.org",
        "export PRIORIS_MCP_NO_SUCH_SETTING=1",
    ]
    for command in bad:
        with pytest.raises((AssertionError, pytest.fail.Exception)):
            _check(command, "bad", monkeypatch)
    assert len(_docs_commands()) >= 20
    # docs/testing.md's indented (not fenced) block is read too
    assert any("mutation.py --report" in c for w, c in shell_lines() if ":" in w)
