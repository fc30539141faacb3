"""CLI input that used to end in a traceback: each is one ``error [code]:`` line and an exit
code. The embedding model is the fake one (these tests are about argument and file
handling; tests/interfaces/test_cli.py runs the real model end to end)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from prioris.interfaces.cli import main

from conftest import start_library
from hostile_pdfs import bad_xref
from pdf_factory import make_text_pdf


@pytest.fixture(autouse=True)
def _fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import prioris.embedding
    from prioris.embedding.fake import FakeEmbedder

    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str, code: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error [{code}]: "), err
    assert "Traceback" not in err
    return lines[0]


def test_db_pointing_at_a_folder(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "--db", str(tmp_path), "status")
    assert code == 2
    line = one_error_line(err, "configuration_error")
    assert "is a folder" in line and line.endswith("(--data-dir or --db)")  # the user's names


def test_db_pointing_at_a_file_that_is_not_sqlite(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n" * 100)
    code, _, err = run(capsys, "--db", str(notes), "status")
    assert code == 2
    assert "not a Prioris library" in one_error_line(err, "configuration_error")
    assert notes.read_text().startswith("my notes")  # untouched


def test_db_pointing_at_another_programs_database(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.commit()
    conn.close()
    code, _, err = run(capsys, "--db", str(other), "list")
    assert code == 2
    assert "another program" in one_error_line(err, "configuration_error")
    tables = sqlite3.connect(other).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("contacts",)]  # none of ours added


@pytest.mark.parametrize("where", ["/proc/prioris/library.sqlite", "/proc/library.sqlite"])
def test_db_at_an_unwritable_place(capsys, where: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "--db", where, "status")
    assert code == 2
    assert where in one_error_line(err, "configuration_error")


def test_db_under_a_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "file").write_text("x")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"_id": "r1", "title": "T", "text": "words"}\n')
    code, _, err = run(capsys, "--db", str(tmp_path / "file" / "lib.sqlite"), "import", str(corpus))
    assert code == 2
    assert "is not a folder" in one_error_line(err, "configuration_error")
    code, _, err = run(capsys, "--db", str(tmp_path / "file" / "lib.sqlite"), "status")
    assert code == 2
    assert "there is no library at" in one_error_line(err, "configuration_error")


def test_data_dir_naming_a_file_is_one_line(  # type: ignore[no-untyped-def]
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRIORIS_MCP_DATA_DIR (and --data-dir) naming a file, not a folder: a one-line
    configuration error for commands that write and for those that only read."""
    (tmp_path / "file").write_text("x")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"_id": "r1", "title": "T", "text": "words"}\n')
    monkeypatch.setenv("PRIORIS_MCP_DATA_DIR", str(tmp_path / "file"))
    for argv in (["import", str(corpus)], ["status"], ["list"], ["search", "words"]):
        code, _, err = run(capsys, *argv)
        assert code == 2, argv
        one_error_line(err, "configuration_error")
    monkeypatch.delenv("PRIORIS_MCP_DATA_DIR")
    code, _, err = run(capsys, "--data-dir", str(tmp_path / "file"), "import", str(corpus))
    assert code == 2
    line = one_error_line(err, "configuration_error")
    assert "is not a folder" in line and "(--data-dir or --db)" in line
    assert (tmp_path / "file").read_text() == "x"  # the file is left as it was


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--from-year", "99999999999999999999"],
        ["search", "x", "--to-year", "-99999999999999999999", "--mode", "fts"],
        ["list", "--limit", "-1"],
        ["list", "--offset", "-3"],
        ["show", "nothing", "--offset", "99999999999999999999"],
    ],
)
def test_absurd_numbers_are_usage_errors(capsys, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    start_library()
    code, _, err = run(capsys, *argv)
    assert "Traceback" not in err
    first = err.strip().splitlines()[0]
    assert first.startswith(("error [invalid_request]", "error [not_found]")), err
    assert code in (1, 2)


def test_huge_list_limit_lists_everything(capsys) -> None:  # type: ignore[no-untyped-def]
    start_library()
    code, out, err = run(capsys, "list", "--limit", "9" * 30, "--json")
    assert code == 0, err
    assert json.loads(out)["count"] == 0


def test_import_of_a_pdf_is_one_error_line(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = make_text_pdf(tmp_path / "paper.pdf", "A paper", ["Some text. " * 50])
    code, _, err = run(capsys, "import", str(pdf))
    assert code == 2
    assert "prioris ingest" in one_error_line(err, "invalid_request")


def test_import_reports_bad_lines_and_keeps_the_good(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "c.jsonl"
    corpus.write_bytes(
        b'{"_id": "1", "title": "One", "text": "first"}\n'
        b'{"_id": "2", "title": "Two", "year": "\xc2\xb2"}\n'
        b'{"_id": "3", "title": "Three \xff"}\n'
        b'{"_id": "4", "title": "Four", "text": "last"}\n'
    )
    code, out, err = run(capsys, "import", str(corpus))
    assert code == 1 and "Traceback" not in err
    assert f"failed   {corpus}:2  error [invalid_request]: invalid record: year" in out
    assert f"failed   {corpus}:3  error [invalid_request]: not UTF-8" in out
    assert out.strip().endswith("2 imported, 0 skipped, 2 failed")


def test_queries_file_with_bad_lines(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    queries = tmp_path / "q.jsonl"
    queries.write_bytes(
        b'{"_id": "q1", "text": ["a list"]}\n\xff\xfe\n{"_id": "q2", "text": "ok"}\n'
    )
    start_library()
    code, out, err = run(capsys, "search", "--queries", str(queries), "--mode", "fts")
    assert code == 1 and "Traceback" not in err
    assert [json.loads(line)["query_id"] for line in out.splitlines()] == ["q2"]
    assert f"{queries}:1: 'text' must be a string" in err and f"{queries}:2: not UTF-8" in err


def test_ingest_prints_the_warning_of_a_repaired_pdf(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "repaired.pdf"
    path.write_bytes(bad_xref())
    code, out, _ = run(capsys, "ingest", str(path))
    assert code == 0
    assert "  warning: the PDF is damaged" in out
    code, out, _ = run(capsys, "ingest", str(path), "--json")
    assert json.loads(out)["skipped"]  # same bytes: skipped


def test_a_file_name_that_is_not_utf8(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "latin1"
    folder.mkdir()
    source = make_text_pdf(folder / "x.pdf", "Caf\u00e9 culture", ["Coffee houses. " * 60])
    odd = os.fsdecode(os.fsencode(folder) + b"/caf\xe9.pdf")  # undecodable byte -> surrogate
    os.rename(source, odd)
    code, out, err = run(capsys, "ingest", str(folder))
    assert code == 0, err
    assert "Traceback" not in err and "ingested" in out
    code, out, err = run(capsys, "show", "caf\udce9", "--json")  # an id no one has
    assert code == 1 and one_error_line(err, "not_found")


@pytest.mark.parametrize(
    "argv",
    [
        ["migrate-to", "x\x00y"],
        ["ingest", "paper\x00.pdf"],
        ["import", "corpus\x00.jsonl"],
        ["search", "a\x00b"],
        ["--data-dir", "d\x00", "status"],
        ["export", "--format", "bibtex", "id\x00"],
    ],
)
def test_a_nul_byte_in_any_argument_is_a_usage_error(capsys, tmp_path, monkeypatch, argv) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2 and "Traceback" not in err
    assert "holds a NUL byte" in one_error_line(err, "invalid_request")
    assert list(tmp_path.iterdir()) == []  # nothing was created on the way


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["statsu"], "did you mean 'status'?"),
        (["lsit"], "did you mean 'list'?"),
        (["search", "x", "--mdoe", "fts"], "did you mean '--mode'?"),
        (["search", "x", "--mode", "fst"], "did you mean 'fts'?"),
        (["export", "--fromat", "ris"], "did you mean '--format'?"),
    ],
)
def test_a_mistyped_command_option_or_choice_gets_a_suggestion(
    capsys, argv: list[str], suggestion: str
) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, *argv)
    assert code == 2 and one_error_line(err, "invalid_request").endswith(suggestion)


@pytest.mark.parametrize(
    ("argv", "refused", "suggestion"),
    [
        (["show", "--mode", "fts", "x"], "--mode", None),  # search's option, not show's
        (["status", "--collection", "a"], "--collection", None),
        (["delete", "--format", "ris", "x"], "--format", None),
        (["users", "list", "--jsno"], "--jsno", "--json"),  # a sub-command's
        (["export", "--fromat", "ris"], "--fromat", "--format"),
    ],
)
def test_a_suggestion_is_an_option_of_that_command_never_the_refused_one(
    capsys, argv: list[str], refused: str, suggestion: str | None
) -> None:  # type: ignore[no-untyped-def]
    """The top-level parser reports an unknown option, and every command's options were
    candidates: ``show --mode`` said "did you mean '--mode'?", the option just refused."""
    code, _, err = run(capsys, *argv)
    line = one_error_line(err, "invalid_request")
    assert code == 2 and f"unrecognized arguments: {refused}" in line
    assert f"did you mean {refused!r}" not in line
    if suggestion is None:
        assert "did you mean" not in line
    else:
        assert line.endswith(f"did you mean {suggestion!r}?")


def test_nothing_like_the_typo_suggests_nothing(capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "zzzzqqq")
    assert code == 2 and "did you mean" not in err


def test_ingest_of_a_folder_without_pdfs_says_so_and_starts_no_library(
    capsys, tmp_path: Path, data_dir: Path
) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a paper")
    code, _, err = run(capsys, "ingest", str(empty))
    assert code == 1
    assert f"no PDF files in {empty}" in one_error_line(err, "not_found")
    assert not data_dir.exists()
