"""What the CLI prints: counts in English, one way to show a missing title, real pages only."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from prioris.interfaces.cli import main
from prioris.interfaces.cli.app import bash_script, fish_script, zsh_script
from prioris.interfaces.cli.render import plural, render_hits, search_summary
from prioris.models import Hit

from pdf_factory import make_text_pdf


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _hit(**changes: object) -> Hit:
    fields: dict[str, object] = {
        "id": "w1",
        "title": "",
        "authors": ["A. One", "B. Two", "C. Three", "D. Four"],
        "year": 2020,
        "score": 0.5,
        "ranks": {"fts": 1},
        "snippet": "a **match** here",
        "page_start": 2,
        "page_end": 3,
        "offset": 40,
        "chunk_id": 7,
    }
    fields.update(changes)
    return Hit(**fields)  # type: ignore[arg-type]


def test_counts_are_pluralised() -> None:
    assert plural(1, "hit") == "1 hit" and plural(0, "hit") == "0 hits"
    assert plural(2, "match", "matches") == "2 matches"
    assert search_summary(1, 2.04, "fts") == "1 hit in 2.0 ms (fts)"


def test_render_shows_pages_only_for_paginated_works_and_untitled() -> None:
    lines = render_hits([_hit()], paginated={"w1"})
    assert lines[0] == " 1. Untitled  [w1]"
    assert (
        lines[1] == "    A. One, B. Two, C. Three et al. · 2020 · pp. 2-3 · score 0.5 · offset 40"
    )
    assert lines[2] == "    a **match** here"
    assert "p. " not in render_hits([_hit(page_start=1, page_end=1)], paginated=set())[1]


def test_cli_listing_and_search_wording(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        json.dumps({"_id": "r1", "title": "", "text": "Caffeine delays sleep onset."}) + "\n"
    )
    assert run(capsys, "import", str(corpus))[0] == 0
    make_text_pdf(tmp_path / "p.pdf", "Coffee review", ["Caffeine and sleep in adults. " * 5])
    code, out, _ = run(capsys, "ingest", str(tmp_path / "p.pdf"))
    assert code == 0 and "1 page, 1 chunk" in out

    _, out, err = run(capsys, "list")
    assert "r1" in out and "Untitled" in out and err == "2 works\n"
    _, out, _ = run(capsys, "export", "r1")
    assert "Untitled" in out  # the same word as the listing

    _, out, err = run(capsys, "search", "caffeine", "--mode", "fts")
    lines = out.splitlines()
    record = lines.index(next(line for line in lines if "[r1]" in line))
    pdf = lines.index(next(line for line in lines if "Coffee review" in line))
    assert "p. " not in lines[record + 1]  # an imported record has no pages
    assert "p. 1 · score" in lines[pdf + 1]  # a PDF's page is real
    assert err.startswith("2 hits in")
    _, _, err = run(capsys, "search", "caffeine", "--mode", "fts", "-k", "1")
    assert err.startswith("1 hit in")


def _complete(script: Path, *words: str) -> list[str]:
    line = " ".join(repr(w) if w else "''" for w in words)
    command = (
        f"source {script}; COMP_WORDS=({line}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); "
        '_prioris; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_bash_completion_completes_commands_options_and_choices(tmp_path: Path) -> None:
    script = tmp_path / "prioris.bash"
    script.write_text(bash_script())
    assert "search" in _complete(script, "prioris", "se")
    assert _complete(script, "prioris", "arxiv", "") == ["search"]
    assert _complete(script, "prioris", "--db", "x.sqlite", "search", "--mo") == ["--mode"]
    assert _complete(script, "prioris", "search", "--mode", "") == ["fts", "vector", "hybrid"]
    assert _complete(script, "prioris", "ingest", "--ocr", "al") == ["always"]
    assert "--sort" in _complete(script, "prioris", "arxiv", "search", "--s")
    assert "--db" in _complete(script, "prioris", "status", "--d")  # global options too


def test_zsh_and_fish_scripts(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    zsh = zsh_script()
    assert zsh.startswith("#compdef prioris") and "bashcompinit" in zsh and "_prioris()" in zsh
    fish = fish_script()
    assert "complete -c prioris -n '__fish_use_subcommand' -a search" in fish
    assert "-l mode -x -a 'fts vector hybrid'" in fish
    for shell, text in (("zsh", zsh), ("fish", fish)):
        if shutil.which(shell):  # a syntax check where the shell is installed
            path = tmp_path / f"script.{shell}"
            path.write_text(text)
            subprocess.run([shell, "-n", str(path)], check=True)
    code, out, _ = run(capsys, "completion", "fish")
    assert code == 0 and out == fish
