"""Text output neutralises what anyone's text could do to a terminal; JSON stays exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prioris.interfaces.cli import main
from prioris.interfaces.cli.terminal import terminal_safe

HOSTILE = (
    "Title \x1b[2J\x1b[H cleared \x1b]0;owned\x07 retitled "
    "\x1b]52;c;ZWNobyBoaQ==\x07 clipboard \x9b31m c1 \u202eevil\u202c bidi \r over"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _no_controls(text: str) -> None:
    bad = [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]
    assert not bad, bad
    assert "\u202e" not in text


def test_terminal_safe_spells_out_controls_and_keeps_text() -> None:
    assert terminal_safe("plain – ünïcode\ttab\nline") == "plain – ünïcode\ttab\nline"
    assert terminal_safe("a\x1b[31mb") == "a\\x1b[31mb"
    assert terminal_safe("\x07\x9b\x7f\r") == "\\x07\\x9b\\x7f\\x0d"
    assert terminal_safe("x\u202ey\u2066z") == "x\\u202ey\\u2066z"


def test_every_text_output_of_hostile_records_is_neutralised(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    records = tmp_path / "hostile.jsonl"
    record = {
        "_id": "evil",
        "title": HOSTILE,
        "authors": [HOSTILE],
        "venue": HOSTILE,
        "year": 2020,
        "text": f"quokka {HOSTILE} quokka",
    }
    records.write_text(json.dumps(record) + "\n")
    code, out, err = run(capsys, "import", str(records))
    assert code == 0
    _no_controls(out + err)
    for argv in (
        ["list"],
        ["search", "quokka", "--mode", "fts"],
        ["search", "quokka", "--mode", "fts", "--chunks"],
        ["show", "evil"],
        ["export", "--format", "bibtex"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, err)
        _no_controls(out + err)
        # what ingest keeps (its cleaning drops C0/C1 controls) is spelled out, not dropped
        assert "\\u202e" in out, argv
    _, out, _ = run(capsys, "show", "evil", "--json")
    assert "\u202eevil" in json.loads(out)["markdown"]  # JSON output stays exact
    _, out, _ = run(capsys, "export", "--format", "csl-json")
    assert "\u202e" in json.loads(out)[0]["title"]


def test_lines_from_anyone_never_reach_the_terminal_raw(capsys) -> None:  # type: ignore[no-untyped-def]
    """What is printed without being stored (a provider's reply, an error message naming
    a file) goes through the same door."""
    from prioris.interfaces.cli.context import CliContext

    CliContext.print_line(HOSTILE)
    out = capsys.readouterr().out
    _no_controls(out)
    assert "\\x1b[2J" in out and "\\x1b]52;" in out and "\\x07" in out
