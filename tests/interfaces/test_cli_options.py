"""CLI conventions: help for every command and option, global options anywhere, --version."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import prioris
from prioris.interfaces.cli import main
from prioris.interfaces.cli.app import build_parser, iter_parsers

from conftest import start_library
from pdf_factory import make_text_pdf


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0 and not isinstance(
        action, argparse._VersionAction | argparse._HelpAction | argparse._CountAction
    )


def test_every_command_and_option_has_help_and_values_their_default() -> None:
    parser = build_parser()
    commands = dict(iter_parsers(parser))
    assert {"ingest", "search", "show", "list", "arxiv search", "completion"} <= set(commands)
    missing = []
    for path, command in [("prioris", parser), *commands.items()]:
        for action in command._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            name = action.option_strings[-1] if action.option_strings else action.dest
            if not action.help:
                missing.append(f"{path} {name}: no help")
            elif action.option_strings and _takes_value(action) and "default" not in action.help:
                missing.append(f"{path} {name}: help does not give the default")
    assert not missing, "\n".join(missing)
    helps = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
    assert helps and all(helps.values())


def test_version_flag_and_attribute(capsys) -> None:  # type: ignore[no-untyped-def]
    from importlib.metadata import version

    assert prioris.__version__ == version("prioris")
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"prioris {prioris.__version__}"


def test_global_options_before_or_after_the_command(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    start_library(tmp_path / "a.sqlite")
    start_library(tmp_path / "d" / "library.sqlite")
    for argv in (
        ["--db", str(tmp_path / "a.sqlite"), "status", "--json"],
        ["status", "--db", str(tmp_path / "a.sqlite"), "--json"],
        ["--json", "status", "--db", str(tmp_path / "a.sqlite")],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        assert json.loads(out)["db"] == str(tmp_path / "a.sqlite")
    code, out, _ = run(capsys, "status", "--data-dir", str(tmp_path / "d"), "--json")
    assert json.loads(out)["db"] == str(tmp_path / "d" / "library.sqlite")
    code, _, err = run(capsys, "--json", "demo")
    assert code == 2 and "has no --json output" in err


def test_verbose_and_quiet_go_through_logging(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"_id": "r1", "title": "Sleep", "text": "Caffeine delays sleep."}\n')
    assert run(capsys, "import", str(corpus))[0] == 0
    _, _, err = run(capsys, "search", "caffeine", "--mode", "fts")
    assert err == "1 hit in " + err.split(" in ", 1)[1] and err.endswith("ms (fts)\n")
    _, _, quiet = run(capsys, "search", "caffeine", "--mode", "fts", "-q")
    assert quiet == ""
    _, _, verbose = run(capsys, "-v", "search", "caffeine", "--mode", "fts")
    assert "prioris.library] search" in verbose  # a DEBUG record with its logger name
    pdf = tmp_path / "p.pdf"
    make_text_pdf(pdf, "Sleep and caffeine", ["Caffeine delays sleep onset. " * 5])
    _, _, verbose = run(capsys, "ingest", str(pdf), "-v")
    for step in ("prioris.ingest.pipeline] parsed", "] embedded 1 chunks", "] committed file:"):
        assert step in verbose, verbose
    code, _, err = run(capsys, "show", "nope", "-q")
    assert code == 1 and err.startswith("error [not_found]")  # errors survive -q


def test_a_database_failure_is_an_error_line_through_logging(
    capsys, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from prioris.engines.sqlite.connection import sqlite3
    from prioris.library import Library

    def failing(self: Library) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    start_library()
    monkeypatch.setattr(Library, "status", failing)
    code, out, err = run(capsys, "status", "-q")  # shown with -q: it is an error
    assert code == 2 and out == ""
    assert err.startswith("error [configuration_error]: ") and err.endswith(
        "library.sqlite: disk I/O error\n"
    )


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize(("option", "value"), [("--data-dir", "lib\x00x"), ("--db", "lib\ud800")])
def test_a_library_path_the_system_cannot_take_is_a_usage_error(
    capsys, where: str, option: str, value: str
) -> None:  # type: ignore[no-untyped-def]
    argv = [option, value, "status"] if where == "before" else ["status", option, value]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    # a NUL is refused with every other argument, before parsing
    expected = "argument " if "\x00" in value else "not a file path: "
    assert err.startswith(f"error [invalid_request]: {expected}")
