"""Every example in README.md and docs/*.md runs, against a small library built here.

Shell examples (lines of ``sh``/plain fences that call ``prioris``) run in document order
through the real CLI entry point, with HOME and the working folder in a temp dir that holds
the files they name (``~/papers/``, ``paper.pdf``, ``scans/``, ``corpus.jsonl``, ...) and
the providers answered by a loopback server (tests/doc_providers.py). Each must exit 0;
some also have their output checked. The few that cannot run here are listed in SKIPPED
with the reason (and still have their options checked against the parser). Synopsis
blocks (``[--mode fts|vector|hybrid]``) and inline ``prioris ...`` spans are checked
against the parser; ``python`` blocks run; ``toml`` blocks load as a config file; JSON
client configurations name a command line the parser accepts.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from prioris.config import load_settings
from prioris.interfaces.cli import main
from prioris.interfaces.cli.app import build_parser, iter_parsers

from conftest import shared_path_or_none
from doc_blocks import (
    DOCS,
    RUN_HERE,
    blocks,
    commands,
    is_synopsis,
    program,
    resource_uris,
    shell_lines,
    split_words,
    strip_comment,
)
from doc_providers import ARXIV_ID, Providers
from pdf_factory import make_scanned_pdf, make_text_pdf

SKIPPED = {
    "prioris demo": "ingests with the real model and tesseract: tests/test_demo.py runs it",
    "prioris serve": "an MCP stdio server: tests/interfaces/test_mcp_stdio.py runs it with a "
    "real MCP client",
    "prioris serve --transport http --port 8000": "serves until stopped: "
    "tests/interfaces/test_mcp_http.py serves over loopback",
    "prioris ui": "serves the web app until stopped: tests/interfaces/web/ run it in-process",
    ".venv/bin/prioris ui": "the same, by its path in the venv",
    "prioris ui --port 9000 --no-browser": "serves the web app until stopped",
    "prioris --data-dir ~/other-library ui": "serves the web app until stopped",
    "prioris --db ~/.local/share/prioris/library.sqlite migrate-to 'postgresql://…/library'": (
        "needs a PostgreSQL server: tests/storage/test_migrate_to.py copies both ways on one"
    ),
    "prioris --db 'postgresql://…/library' migrate-to ~/backup/library.sqlite": (
        "needs a PostgreSQL server: tests/storage/test_migrate_to.py copies both ways on one"
    ),
    "prioris --db \"$PRIORIS_MCP_DB\" search 'coral bleaching' --mode hybrid": (
        "a PostgreSQL library named by the variable docs/postgres.md exports; the shared "
        "search tests run on PostgreSQL too"
    ),
    "prioris watch ~/Papers --json": "watches until stopped: "
    "tests/interfaces/test_cli_watch.py runs it on a folder",
    "prioris watch ~/Papers ~/Downloads/papers": "watches until stopped",
    "prioris watch ~/Papers --zotero --json": "watches until stopped, and needs a Zotero "
    "data directory: tests/test_watching.py re-syncs one",
    "claude mcp add prioris --env PRIORIS_MCP_DATA_DIR=$HOME/papers/prioris -- prioris serve": (
        "needs the Claude Code CLI; its `prioris serve` part is checked"
    ),
}


def shell_examples() -> list[tuple[str, str]]:
    """The shell lines this module runs: prioris (also piped) and the sqlite3 upkeep."""
    return [(where, c) for where, c in shell_lines() if program(c) in RUN_HERE]


# -- checks against the parser ------------------------------------------------------------
def _command_parser(words: list[str]) -> tuple[str, argparse.ArgumentParser]:
    """The parser of the (possibly nested) command the words call, skipping options."""
    parser = build_parser()
    commands_by_path = dict(iter_parsers(parser))
    path = ""
    for word in words[1:]:
        if word.startswith("-"):
            continue
        candidate = f"{path} {word}".strip()
        if candidate in commands_by_path:
            path = candidate
        elif path:
            break
    return path, commands_by_path.get(path, parser)


def _check_options(where: str, words: list[str]) -> None:
    """Every ``--option`` named exists on the command, and ``a|b|c`` lists its choices."""
    path, parser = _command_parser(words)
    options = {s: a for a in parser._actions for s in a.option_strings}
    for index, word in enumerate(words):
        name = word.strip("[]").split("=")[0]
        if not re.fullmatch(r"--?[a-z][\w-]*", name):
            continue
        assert name in options, f"{where}: `prioris {path}` has no option {name}"
        following = words[index + 1].strip("[]") if index + 1 < len(words) else ""
        if "|" in following and options[name].choices:
            listed = set(following.split("|"))
            assert listed == set(options[name].choices), f"{where}: {name} {following}"


def test_synopses_and_inline_commands_match_the_parser() -> None:
    checked = 0
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for span in re.findall(r"`(prioris [^`]+)`", text):
            words = span.split()
            if words[1].isupper() or words[1].startswith("<"):
                continue  # `prioris COMMAND --help`: a placeholder for any command
            name, _ = _command_parser(words)
            assert name or words[1].startswith("-"), f"{path.name}: unknown command in `{span}`"
            _check_options(path.name, words)
            checked += 1
        for block in blocks(path):
            for where, command in commands(block):
                if is_synopsis(command):  # [--option ...]
                    _check_options(where, command.replace("[", " [").split())
                    checked += 1
    assert checked >= 10


# -- the library the examples run against -------------------------------------------------
ZOTERO_SCHEMA = shared_path_or_none("fixtures", "zotero", "schema")
NEEDS_ZOTERO_SCHEMA = {
    "prioris zotero sync",
    "prioris zotero sync --zotero-dir ~/Documents/Zotero --json",
    "prioris zotero sync --base-dir ~/papers",
}
"""Examples that need a Zotero database, built from Zotero's schema in ../shared."""


def _build_reference_managers(home: Path) -> None:
    """~/Zotero and ~/Documents/Zotero (when Zotero's schema is at hand), a .bib whose entry
    links a PDF the way Zotero's export does, and a .ris file."""
    if ZOTERO_SCHEMA is not None:
        from refman.zotero_factory import add_attachment, add_item, make_zotero_dir, open_db

        for parent in (home, home / "Documents"):
            data_dir = make_zotero_dir(parent, ZOTERO_SCHEMA)
            pdf = make_text_pdf(
                home / "zotero-paper.pdf",
                "Estuary salinity gradients",
                ["Salinity gradients in estuaries shape fish nurseries. " * 10],
            )
            with open_db(data_dir) as db:
                add_item(
                    db,
                    "ZOTITEM1",
                    "journalArticle",
                    {"title": "Estuary salinity gradients", "date": "2022", "DOI": "10.1/est"},
                    creators=[("Mara", "Lind", "author")],
                )
                add_attachment(
                    db,
                    data_dir,
                    "ZOTATT01",
                    "ZOTITEM1",
                    file_name="est.pdf",
                    content=pdf.read_bytes(),
                )
    (home / "refs.bib").write_text(
        "@misc{okafor2019dunes, title = {Coastal dunes}, year = {2019}}\n", encoding="utf-8"
    )
    (home / "papers" / "library.bib").write_text(
        "@article{lind2020kelp,\n"
        "  title = {Kelp forests and {Sea} Urchins},\n"
        '  author = {Lind, Mara and Schr{\\"o}der, Jan},\n'
        "  journal = {Marine Ecology},\n"
        "  year = {2020},\n"
        "  doi = {10.5555/kelp.2020},\n"
        "  file = {Full Text PDF:nested/attention.pdf:application/pdf},\n"
        "}\n",
        encoding="utf-8",
    )
    (home / "export.ris").write_text(
        "TY  - JOUR\nAU  - Okafor, Ngozi\nTI  - Mangrove carbon stocks\nPY  - 2018\n"
        "JO  - Coastal Science\nDO  - 10.5555/mangrove\nER  - \n",
        encoding="utf-8",
    )


def _build_home(home: Path) -> None:
    make_text_pdf(
        home / "papers" / "folding.pdf",
        "Protein folding with transformers",
        ["Attention layers predict protein folding from residue contacts. " * 12],
    )
    make_text_pdf(
        home / "papers" / "nested" / "attention.pdf",
        "Sparse attention for long documents",
        ["Sparse attention lets transformers read long documents cheaply. " * 12],
    )
    make_text_pdf(
        home / "paper.pdf",
        "Coral reefs and heatwaves",  # past 12,000 characters: docs/mcp.md reads from there
        [
            f"Marine heatwaves bleach coral reefs across the tropics, part {n}. " * 45
            for n in range(6)
        ],
    )
    make_scanned_pdf(home / "scans" / "scan.pdf", "Volcanic aerosols cool the stratosphere.")
    _build_reference_managers(home)
    records = [
        {"_id": "tau-only", "title": "Tau tangles", "text": "Tau protein tangles in neurons."},
        {
            "_id": "tau-amyloid",
            "title": "Tau and amyloid",
            "text": "Tau and amyloid plaques together.",
        },
        {
            "_id": "sleep-2021",
            "title": "Caffeine and sleep",
            "text": "Caffeine delays sleep onset in adults.",
            "source": "arxiv",
            "year": 2021,
        },
    ]
    records.append(  # what the evidence and cite-check examples quote
        {
            "_id": "statins-2019",
            "title": "Statins in older adults",
            "authors": ["Ana Ruiz"],
            "year": 2019,
            "text": "OBJECTIVE To determine whether statins change mortality in older adults. "
            "We followed 4,000 patients over 70 for five years. Statin therapy cut "
            "cardiovascular mortality by 20% in adults over 70. Muscle pain was rare.",
        }
    )
    (home / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    claim = "Statin therapy cut cardiovascular mortality by 20% in adults over 70."
    pair = {"id": 1, "claim": claim, "work_id": "ruiz2019statins"}
    (home / "draft-citations.jsonl").write_text(json.dumps(pair) + "\n")
    (home / "queries.jsonl").write_text('{"_id": "q1", "text": "protein folding"}\n')
    (home / "abstract.txt").write_text("CRISPR screens find regulators of T cell exhaustion.")
    for folder in (
        ".local/share/bash-completion/completions",
        ".zfunc",
        ".config/fish/completions",
    ):
        (home / folder).mkdir(parents=True)  # where the README's completion lines write


def _hits(out: str) -> list[str]:
    return [h["id"] for h in json.loads(out)["hits"]]


CHECKS: dict[str, Callable[[str, str, Path, Providers], None]] = {
    "prioris ingest ~/papers/ paper.pdf": lambda out, err, home, p: (
        out.count("ingested ") == 3 or pytest.fail(out)
    ),
    "prioris ingest scans/ --ocr always --json": lambda out, err, home, p: (
        json.loads(out)["ingested"][0]["ocr_pages"] == 1 or pytest.fail(out)
    ),
    "prioris ingest scans/ --ocr always --force": lambda out, err, home, p: (
        "replaced " in out or pytest.fail(out)
    ),
    "prioris search 'tau NOT amyloid' --mode fts --syntax fts5": lambda out, err, home, p: (
        (" [tau-only]" in out and "tau-amyloid" not in out) or pytest.fail(out)
    ),
    "prioris search 'protein folding' --mode hybrid -k 10": lambda out, err, home, p: (
        out.startswith(" 1. Protein folding with transformers") or pytest.fail(out)
    ),
    "prioris search sleep --chunks --source arxiv --from-year 2020 --json": (
        lambda out, err, home, p: _hits(out)[0] == "sleep-2021" or pytest.fail(out)
    ),
    f"prioris show arxiv:{ARXIV_ID} --page 3": lambda out, err, home, p: (
        out.startswith("Page 3.") or pytest.fail(out)
    ),
    "prioris delete file:3fa4c2d18e0b9a71": lambda out, err, home, p: (
        out == "deleted file:3fa4c2d18e0b9a71\n" or pytest.fail(out)
    ),
    "prioris export --format bibtex > library.bib": lambda out, err, home, p: (
        "@misc{" in (home / "library.bib").read_text() or pytest.fail("no BibTeX")
    ),
    "sqlite3 library.sqlite \"INSERT INTO chunks_fts(chunks_fts) VALUES('optimize'); VACUUM;\"": (
        lambda out, err, home, p: _upkeep_kept_the_library(home)
    ),
    "cat abstract.txt | prioris discover -": lambda out, err, home, p: (
        any(
            q.get("search.semantic", [""])[0].startswith("CRISPR screens")
            for q in p.queries("/openalex/works")
        )
        or pytest.fail(str(p.paths))
    ),
    "prioris completion bash > ~/.local/share/bash-completion/completions/prioris": (
        lambda out, err, home, p: (
            "_prioris()" in (home / ".local/share/bash-completion/completions/prioris").read_text()
            or pytest.fail("no script")
        )
    ),
}


def _run(
    command: str, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Run ``[cat FILE |] prioris ARGS [> FILE]`` as a shell would, through ``main``."""
    words = [str(home) + w[1:] if w.startswith("~") else w for w in split_words(command)]
    stdin_text = None
    if "|" in words:
        bar = words.index("|")
        assert words[:1] == ["cat"] and bar == 2, f"unsupported shell syntax: {command}"
        stdin_text = (home / words[1]).read_text()
        words = words[bar + 1 :]
    target = None
    if ">" in words:
        arrow = words.index(">")
        assert arrow == len(words) - 2, f"unsupported shell syntax: {command}"
        target = home / words[-1]
        words = words[:arrow]
    if Path(words[0]).name == "sqlite3":
        return _sqlite3(words, command), ""
    assert Path(words[0]).name == "prioris", f"unsupported command: {command}"
    if stdin_text is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    code = main(words[1:])
    out, err = capsys.readouterr()
    assert code == 0, f"`{command}` exited {code}: {err}"
    assert "Traceback" not in err
    if target is not None:
        assert target.parent.is_dir(), f"`{command}`: no folder {target.parent}"
        target.write_text(out)
    return out, err


def _sqlite3(words: list[str], command: str) -> str:
    """``sqlite3 library.sqlite "SQL"`` in the library's folder, by the sqlite3 shell (or,
    without one, the same SQL through the SQLite Prioris uses)."""
    assert len(words) == 3, f"unsupported sqlite3 call: {command}"
    database = load_settings().db_path.parent / words[1]
    assert database.is_file(), f"`{command}`: no {database}"
    shell = shutil.which("sqlite3")
    if shell is not None:
        done = subprocess.run(
            [shell, words[1], words[2]], cwd=database.parent, capture_output=True, text=True
        )
        assert done.returncode == 0, f"`{command}`: {done.stderr}"
        return done.stdout
    from prioris.engines.sqlite.connection import sqlite3

    conn = sqlite3.connect(database, isolation_level=None)
    try:
        conn.executescript(words[2])
    finally:
        conn.close()
    return ""


def _upkeep_kept_the_library(home: Path) -> None:
    """After the docs' optimize + VACUUM: no free pages left, and the FTS index (external
    content over chunks since schema 4) still finds the passages."""
    from prioris.engines.sqlite.connection import sqlite3

    conn = sqlite3.connect(load_settings().db_path)
    try:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    finally:
        conn.close()
    from prioris.library import Library

    with Library.open() as library:
        assert library.search("heatwaves", mode="fts").hits


def _read_resources(examples: list[tuple[str, str]], local_id: str) -> None:
    """Each ``research://`` example of docs/mcp.md read through an MCP client; the local
    file's placeholder id stands for a real ingested PDF's."""
    from interfaces.mcp_helpers import with_client
    from prioris.library import Library

    async def body(client: Any) -> list[tuple[str, Any]]:
        results = []
        for where, uri in examples:
            uri = uri.replace("file:0123456789abcdef", local_id)
            results.append((f"{where} {uri}", await client.read_resource(uri)))
        return results

    library = Library.open()
    try:
        # a thread of its own: the browser tests' Playwright loop may hold this one
        with ThreadPoolExecutor(1) as pool:
            read = pool.submit(with_client, library, body).result()
    finally:
        library.close()
    for where, result in read:
        content = result.contents[0]
        if content.mime_type == "application/json":
            page = json.loads(content.text)
            assert page["markdown"].strip(), where
        else:
            assert getattr(content, "text", "") or getattr(content, "blob", ""), where


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Providers]]:
    home = tmp_path / "home"
    _build_home(home)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    with Providers() as providers:
        for name, value in providers.env().items():
            monkeypatch.setenv(name, value)
        yield home, providers


def test_every_shell_example_runs(home, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder, providers = home
    examples = shell_examples()
    assert len(examples) >= 25, examples
    # what the examples name but do not create themselves: a stored arXiv paper (shown by
    # page) and a work with the id the delete example uses
    assert main(["fetch", "2401.01234"]) == 0
    (folder / "extra.jsonl").write_text(
        json.dumps({"_id": "file:3fa4c2d18e0b9a71", "title": "To delete", "text": "x"}) + "\n"
    )
    assert main(["import", "extra.jsonl"]) == 0
    capsys.readouterr()

    skips = {strip_comment(k) for k in SKIPPED}
    checks = {strip_comment(k): check for k, check in CHECKS.items()}
    # compared in the same normal form as the examples (shlex quotes a `~` path)
    needs_zotero = {strip_comment(k) for k in NEEDS_ZOTERO_SCHEMA}
    ran, skipped = set(), set()
    for where, command in examples:
        bare = strip_comment(command)
        words = split_words(command)
        if bare in needs_zotero and ZOTERO_SCHEMA is None:
            continue  # no Zotero schema to build a database from (../shared is absent)
        if bare in skips:
            skipped.add(bare)
            names = [Path(w).name for w in words]
            if "prioris" in names:
                last = len(names) - 1 - names[::-1].index("prioris")  # `-- prioris serve`
                prioris = words[last:]
                assert build_parser().parse_args(prioris[1:]).func, where
            continue
        out, err = _run(command, folder, capsys, monkeypatch)
        check = checks.get(bare)
        if check is not None:
            check(out, err, folder, providers)
        ran.add(bare)
    assert skipped == skips, f"SKIPPED lists examples no doc has: {skips - skipped}"
    assert set(checks) <= ran, f"checks for examples no doc has: {set(checks) - ran}"

    uris = resource_uris()
    assert len(uris) >= 3, uris
    local = json.loads(_cli_out(capsys, "list", "--json"))["works"]
    local_id = next(w["id"] for w in local if w["title"] == "Coral reefs and heatwaves")
    _read_resources(uris, local_id)


def _cli_out(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_python_examples_run(home, capsys) -> None:  # type: ignore[no-untyped-def]
    python = [b for path in DOCS for b in blocks(path) if b.lang == "python"]
    assert python
    for block in python:
        exec(compile("\n".join(block.lines), block.where, "exec"), {})
        assert capsys.readouterr().out.strip(), f"{block.where} printed nothing"


def test_toml_and_json_configurations_load(tmp_path: Path) -> None:
    from prioris.config import load_settings

    tomls = [b for path in DOCS for b in blocks(path) if b.lang == "toml"]
    jsons = [b for path in DOCS for b in blocks(path) if b.lang == "json"]
    assert tomls and jsons
    for block in tomls:
        path = tmp_path / "config.toml"
        path.write_text("\n".join(block.lines))
        load_settings({"PRIORIS_MCP_CONFIG": str(path), "HOME": str(tmp_path)})
    for block in jsons:
        config = json.loads("\n".join(block.lines))
        for server in config.get("mcpServers", {}).values():
            assert server["command"] == "prioris", block.where
            assert build_parser().parse_args(server["args"]).func, block.where
