"""Every CLI command on arbitrary arguments: an exit code and, on failure, one
``error [code]:`` line; never a traceback, and the library file intact afterwards.

Arguments are drawn from each command's own argparse definition (options, choices, types,
positionals), so a command added later is fuzzed too. Not fuzzed: ``serve``, ``ui`` and ``watch``
(servers that run until stopped) and ``demo`` (the whole main job on generated PDFs). The remote
commands reach a closed loopback port (provider_unavailable), and the embedding model is
the fake one: this is about argument handling, not ranking.
"""

from __future__ import annotations

import argparse
import io
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.strategies import HUGE_INT, TEXT
from prioris.errors import ERROR_CODES
from prioris.interfaces.cli import main
from prioris.interfaces.cli.app import build_parser

from pdf_factory import make_text_pdf

SKIPPED = {"serve", "ui", "demo", "watch"}  # servers and watchers run until stopped
CLOSED = "http://127.0.0.1:1"  # nothing listens on port 1


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> dict:
    """``{("arxiv", "search"): parser, ("list",): parser, ...}`` from the parser tree."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = _commands(sub, (*prefix, name))
                found.update(nested or {(*prefix, name): sub})
    return found


COMMANDS = {path: sub for path, sub in _commands(build_parser()).items() if path[0] not in SKIPPED}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    import prioris.embedding
    from prioris.embedding.fake import FakeEmbedder

    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    monkeypatch.chdir(tmp_path)  # a drawn relative path (migrate-to TARGET) lands here
    monkeypatch.setattr(sys, "stdin", io.StringIO("text on stdin about coral reefs"))
    for name in (
        "ARXIV_API_URL",
        "ARXIV_SITE_URL",
        "ARXIV_OAI_URL",
        "EUROPEPMC_BASE_URL",
        "OPENALEX_BASE_URL",
        "DOI_RESOLVER_URL",
    ):
        monkeypatch.setenv(f"PRIORIS_MCP_{name}", CLOSED)
    monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "key")
    monkeypatch.setenv("PRIORIS_MCP_OCR", "never")
    monkeypatch.setenv("PRIORIS_MCP_HTTP_TIMEOUT_SECONDS", "2")
    files = tmp_path / "files"
    paper = make_text_pdf(files / "paper.pdf", "Coral reefs", ["Reefs bleach in heat. " * 40])
    (files / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really")
    (files / "corpus.jsonl").write_bytes(
        b'{"_id": "r1", "title": "Reef one", "text": "coral"}\n{"_id": 2, "year": "\xc2\xb2"}\n'
    )
    (files / "binary.bin").write_bytes(bytes(range(256)) * 8)
    paths = [
        str(p)
        for p in (
            paper,
            files / "broken.pdf",
            files / "corpus.jsonl",
            files / "binary.bin",
            files,
            tmp_path / "missing.pdf",
        )
    ]
    db = tmp_path / "prioris-data" / "library.sqlite"
    main(["import", str(files / "corpus.jsonl")])  # something to search, list and show
    # --db / --data-dir (accepted after the command too) create a library where they
    # point: relative values land here, and drawn values stay inside this folder
    return {"paths": paths, "db": db, "home": tmp_path}


def _value(action: argparse.Action, paths: list[str], home: Path) -> st.SearchStrategy[str]:
    type_name = getattr(action.type, "__name__", "")
    if action.dest in ("db", "data_dir"):  # a library location: inside the test's folder
        return TEXT.map(lambda text: str(home / ("lib-" + text.replace("/", "_"))))
    if action.choices:
        return st.one_of(st.sampled_from(sorted(action.choices)), TEXT)
    if type_name in ("int", "_year", "_positive"):
        return st.one_of(HUGE_INT.map(str), TEXT)
    if type_name == "Path" or action.dest in ("paths", "file", "queries", "keep"):
        return st.one_of(st.sampled_from(paths), TEXT)
    ids = st.sampled_from(["r1", "2", "arXiv:2401.01234", "10.1/x", "W1", "PMC1", "-", "--"])
    return st.one_of(TEXT, ids)


@st.composite
def argv(draw: st.DrawFn, paths: list[str], home: Path) -> list[str]:
    path = draw(st.sampled_from(sorted(COMMANDS)))
    sub = COMMANDS[path]
    args = list(path)
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:  # a positional
            count = {
                "+": draw(st.integers(1, 3)),
                "*": draw(st.integers(0, 2)),
                "?": draw(st.integers(0, 1)),
            }.get(action.nargs, 1)  # type: ignore[arg-type]
            args += [draw(_value(action, paths, home)) for _ in range(count)]
        elif draw(st.booleans()):
            args.append(draw(st.sampled_from(action.option_strings)))
            if action.nargs != 0:
                args.append(draw(_value(action, paths, home)))
    if draw(st.integers(0, 9)) == 0:  # now and then something no command expects
        args.insert(draw(st.integers(0, len(args))), draw(TEXT))
    return args


@given(data=st.data())
def test_every_command_exits_with_a_code_and_at_most_one_error_line(  # type: ignore[no-untyped-def]
    world, capsys, data
) -> None:
    args = data.draw(argv(world["paths"], world["home"]))
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (args, code, err)
    assert "Traceback" not in err and "Traceback" not in out, args
    errors = [line for line in err.splitlines() if line.startswith("error [")]
    if code == 2 and not err.lstrip().startswith("usage:"):
        assert len(errors) == 1, (args, err)
    for line in errors:
        assert line[len("error [") : line.index("]")] in ERROR_CODES, (args, line)
    db = world["db"]
    if db.exists():
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM works WHERE id = 'r1'").fetchone()[0] in (0, 1)
        conn.close()
