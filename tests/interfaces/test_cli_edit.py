"""``prioris edit`` and ``prioris show`` with origins, end to end through ``main``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from prioris.interfaces.cli import main

from pdf_factory import make_text_pdf


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def work_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    pdf = make_text_pdf(tmp_path / "g.pdf", "Glacier melt in the Alps", ["Glaciers retreat. " * 20])
    code, out, _ = run(capsys, "ingest", str(pdf), "--json")
    assert code == 0
    return str(json.loads(out)["ingested"][0]["id"])


def test_edit_options_json_show_history_undo(
    capsys: pytest.CaptureFixture[str], work_id: str
) -> None:
    code, out, _ = run(
        capsys,
        "edit",
        work_id,
        "--title",
        "Alpine Glacier Retreat",
        "--author",
        "Ada Rossi",
        "--author",
        "Ben Keller",
        "--year",
        "2021",
        "--doi",
        "10.5555/glacier.1",
        "--keyword",
        "glaciers",
        "--json",
    )
    assert code == 0
    record = json.loads(out)
    assert record["title"] == "Alpine Glacier Retreat"
    assert record["authors"] == ["Ada Rossi", "Ben Keller"] and record["year"] == 2021
    assert record["doi"] == "10.5555/glacier.1" and record["keywords"] == ["glaciers"]
    assert record["origins"]["title"] == "user" and record["edits"] == 1

    code, out, _ = run(capsys, "show", "10.5555/glacier.1")  # the new DOI resolves
    assert code == 0
    assert out.splitlines()[1] == "title      Alpine Glacier Retreat  [user]"
    assert "Glaciers retreat." in out
    code, out, _ = run(capsys, "show", work_id, "--json")
    shown = json.loads(out)
    assert shown["origins"]["authors"] == "user" and shown["record"]["year"] == 2021

    code, out, _ = run(capsys, "edit", work_id, "--clear", "year", "--venue", "Glaciology")
    assert code == 0 and "venue      Glaciology  [user]" in out and "year " not in out
    code, out, _ = run(capsys, "edit", work_id, "--history")
    lines = out.splitlines()
    assert len(lines) == 2 and "year: 2021 -> (empty)" in lines[0]
    code, out, _ = run(capsys, "edit", work_id, "--history", "--json")
    assert json.loads(out)[0]["changes"] == {"year": None, "venue": "Glaciology"}

    assert run(capsys, "edit", work_id, "--undo")[0] == 0
    code, out, _ = run(capsys, "edit", work_id, "--undo", "--json")
    assert json.loads(out)["title"] == "Glacier melt in the Alps"
    code, _, err = run(capsys, "edit", work_id, "--undo")
    assert code == 1 and "error [not_found]" in err and "no edit to undo" in err


def test_edit_patch_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work_id: str
) -> None:
    patch = {"title": "From Stdin", "authors": ["C. D."], "venue": None, "year": 1999}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(patch)))
    code, out, _ = run(capsys, "edit", work_id, "--patch", "-", "--json")
    assert code == 0
    record = json.loads(out)
    assert (record["title"], record["authors"], record["year"]) == ("From Stdin", ["C. D."], 1999)
    assert record["origins"]["venue"] == "user" and record["venue"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--year", "later"], "year must be a four-digit year"),
        (["--title", " "], "title cannot be empty"),
        (["--clear", "title"], "title cannot be empty"),
        (["--date", "5 May"], "published must be an ISO date"),
        (["--doi", "nonsense"], "doi: 'nonsense' is not a valid doi"),
        (["--clear", "colour"], "invalid choice: 'colour'"),
        (["--title", "T", "--undo"], "one at a time"),
        (["--patch", "file.json"], "--patch reads from stdin"),
    ],
)
def test_bad_edits_are_usage_errors_and_change_nothing(
    capsys: pytest.CaptureFixture[str], work_id: str, argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "edit", work_id, *argv)
    assert code == 2 and "error [invalid_request]" in err and message in err
    code, out, _ = run(capsys, "edit", work_id, "--json")
    assert json.loads(out)["title"] == "Glacier melt in the Alps"
    assert json.loads(out)["edits"] == 0


def test_unknown_field_in_a_patch(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work_id: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('{"colour": "red"}'))
    code, _, err = run(capsys, "edit", work_id, "--patch", "-")
    assert code == 2 and "unknown field(s) colour; editable fields: title, authors" in err
