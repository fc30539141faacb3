"""Odd and hostile local input through the Library: each item fails alone, nothing is lost.

Unreadable files in an ingest, malformed JSONL records around good ones, a PDF given to
import, over-long queries, absurd list bounds and repaired PDFs (read with a warning).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from prioris.config import load_settings
from prioris.errors import InvalidRequestError
from prioris.library import Library

from hostile_pdfs import bad_xref
from pdf_factory import make_text_pdf


def _integrity_ok(library: Library) -> None:
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _paths(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "papers"
    return [
        make_text_pdf(folder / f"{name}.pdf", f"Paper {name} on glaciers", [f"Ice {name}. " * 80])
        for name in ("a", "b", "c")
    ]


def test_an_unreadable_file_fails_alone_and_the_run_goes_on(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, b, _ = _paths(tmp_path)
    real_open = os.open  # a file is opened through os.open (no wait; checked once open)

    def locked(path: object, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if os.fspath(path).endswith("b.pdf"):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", os.fspath(path))  # type: ignore[arg-type]
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", locked)
    summary = library.ingest_paths([tmp_path / "papers"])
    assert [Path(r.path).name for r in summary.ingested] == ["a.pdf", "c.pdf"]
    assert summary.failed == [
        {
            "path": str(b),
            "error": {"code": "invalid_request", "message": f"cannot read {b}: permission denied"},
        }
    ]
    _integrity_ok(library)


def test_an_io_error_reading_a_file_is_that_files_failure(library: Library, tmp_path: Path) -> None:
    a, _, _ = _paths(tmp_path)
    summary = library.ingest_paths(["/proc/self/mem", a])  # reading it fails with EIO
    assert len(summary.ingested) == 1
    assert summary.failed[0]["error"]["code"] == "invalid_request"
    assert "input/output error" in summary.failed[0]["error"]["message"]


def test_a_folder_that_cannot_be_listed_is_reported_not_skipped(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _paths(tmp_path)
    hidden = tmp_path / "papers" / "private"
    hidden.mkdir()
    import os

    real_scandir = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if Path(path) == hidden:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", lambda path: scandir(path) and [])
    summary = library.ingest_paths([tmp_path / "papers"])
    assert len(summary.ingested) == 3
    assert summary.failed[0]["path"] == str(hidden)
    assert "cannot read folder" in summary.failed[0]["error"]["message"]


# -- JSONL ---------------------------------------------------------------------------------
BAD_LINES = {
    "non-UTF-8": b'{"_id": "x1", "title": "caf\xe9"}',
    "superscript year": json.dumps({"_id": "x2", "title": "T", "year": "²"}).encode(),
    "huge year": b'{"_id": "x3", "title": "T", "year": 99999999999999999999999}',
    "object venue": json.dumps({"_id": "x4", "title": "T", "venue": {"a": 1}}).encode(),
    "number authors": json.dumps({"_id": "x5", "title": "T", "authors": 7}).encode(),
    "list abstract": json.dumps({"_id": "x6", "title": "T", "abstract": ["a"]}).encode(),
    "not JSON": b'{"_id": "x7", "title": ',
    "not an object": b"[1, 2, 3]",
    "no id": b'{"title": "no id here"}',
    "nested too deep": b"[" * 100_000 + b"]" * 100_000,
    "too long": json.dumps({"_id": "x8", "title": "T", "text": "w " * 40_000}).encode(),
}


def _good(number: int) -> bytes:
    return json.dumps(
        {"_id": f"g{number}", "title": f"Good record {number}", "text": "ok"}
    ).encode()


def test_bad_jsonl_lines_fail_alone_with_file_line_and_reason(
    data_dir: Path, tmp_path: Path
) -> None:
    """Good records before, between and after the bad ones (past one 64-record batch) are
    all stored; each bad line is reported with ``file:line`` and why."""
    from prioris.embedding.fake import FakeEmbedder

    from conftest import FakeOcr

    settings = load_settings().with_overrides(max_record_bytes=50_000)
    lines: list[bytes] = [_good(n) for n in range(70)]
    bad_at: dict[int, str] = {}
    for name, raw in BAD_LINES.items():
        lines.append(raw)
        bad_at[len(lines)] = name
        lines.append(_good(len(lines)))
    lines += [b"", b"   "] + [_good(1000 + n) for n in range(5)]
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr()) as library:
        summary = library.import_records(library.read_jsonl(path))
        good = sum(1 for line in lines if line.startswith(b'{"_id": "g'))
        assert len(summary.ingested) == good
        assert library.status()["works"] == good
        failed = {f["path"]: f["error"] for f in summary.failed}
        assert set(failed) == {f"{path}:{line}" for line in bad_at}
        assert all(error["code"] == "invalid_request" for error in failed.values())
        reasons = {
            bad_at[int(where.rsplit(":", 1)[1])]: e["message"] for where, e in failed.items()
        }
        assert "not UTF-8" in reasons["non-UTF-8"]
        assert "year" in reasons["superscript year"] and "year" in reasons["huge year"]
        assert "venue" in reasons["object venue"]
        assert "authors" in reasons["number authors"]
        assert "abstract" in reasons["list abstract"]
        assert "PRIORIS_MCP_MAX_RECORD_BYTES" in reasons["too long"]
        _integrity_ok(library)


def test_importing_a_pdf_is_a_clear_error(library: Library, tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "paper.pdf", "A paper", ["Some text. " * 50])
    with pytest.raises(InvalidRequestError, match="is a PDF, not a JSONL file"):
        library.import_records(library.read_jsonl(pdf))


def test_a_pdf_like_first_line_before_good_records_fails_alone(
    library: Library, tmp_path: Path
) -> None:
    """Found by the JSONL fuzz test: ``%PDF-`` then records is JSONL with one bad line."""
    path = tmp_path / "odd.jsonl"
    record = {"id": "r1", "title": "A record", "text": "Plain text of the record."}
    path.write_bytes(b"%PDF-\n" + json.dumps(record).encode() + b"\n")
    summary = library.import_records(library.read_jsonl(path))
    assert [f["path"] for f in summary.failed] == [f"{path}:1"]
    assert library.resolve_work_id("r1")


def test_a_pdf_of_one_line_is_still_a_pdf(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "tiny.pdf"
    path.write_bytes(b"%PDF-1.7 nothing else")
    with pytest.raises(InvalidRequestError, match="is a PDF, not a JSONL file"):
        library.import_records(library.read_jsonl(path))


def test_a_binary_file_is_not_jsonl(library: Library, tmp_path: Path) -> None:
    junk = tmp_path / "data.bin"
    junk.write_bytes(bytes(range(256)) * 400)
    with pytest.raises(InvalidRequestError, match="does not look like JSONL"):
        library.import_records(library.read_jsonl(junk))


def test_records_read_before_a_failing_file_are_kept(library: Library) -> None:
    def records():  # type: ignore[no-untyped-def]
        yield {"_id": "kept", "title": "Kept", "text": "saved before the failure"}
        raise InvalidRequestError("the disk went away")

    with pytest.raises(InvalidRequestError):
        library.import_records(records())
    assert library.get_work("kept").title == "Kept"


def test_lone_surrogates_are_stored_as_replacement_characters(library: Library) -> None:
    summary = library.import_records([{"_id": "s", "title": "Broken \ud83d emoji", "text": "x"}])
    assert summary.failed == []
    assert library.get_work("s").title == "Broken \ufffd emoji"


# -- searching and listing -----------------------------------------------------------------
def test_a_query_over_the_length_limit_is_refused(data_dir: Path) -> None:
    from prioris.embedding.fake import FakeEmbedder

    settings = load_settings().with_overrides(max_query_chars=50)
    with Library.open(settings, embedder=FakeEmbedder(), ocr=None) as library:
        library.import_records([{"_id": "1", "title": "Glaciers", "text": "ice sheets"}])
        assert library.search("glaciers " * 5, mode="fts").hits
        for mode in ("fts", "vector", "hybrid"):
            with pytest.raises(InvalidRequestError, match="PRIORIS_MCP_MAX_QUERY_CHARS"):
                library.search("glaciers " * 10, mode=mode)


@pytest.mark.parametrize("year", [10**20, -(10**20), 0, 10_000])
def test_out_of_range_years_are_invalid_requests(library: Library, year: int) -> None:
    with pytest.raises(InvalidRequestError, match="between 1 and 9999"):
        library.search("x", mode="fts", from_year=year)
    with pytest.raises(InvalidRequestError, match="between 1 and 9999"):
        library.search("x", mode="fts", to_year=year)


def test_list_bounds_are_checked_and_huge_ones_mean_everything(library: Library) -> None:
    library.import_records([{"_id": "1", "title": "One", "text": "x"}])
    assert len(library.list_works(limit=10**30, offset=0)) == 1
    assert library.list_works(limit=1, offset=10**30) == []
    for kwargs in ({"limit": -1}, {"offset": -5}):
        with pytest.raises(InvalidRequestError):
            library.list_works(**kwargs)  # type: ignore[arg-type]


# -- repaired PDFs -------------------------------------------------------------------------
def test_a_repaired_pdf_is_ingested_with_a_warning(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "bad_xref.pdf"
    path.write_bytes(bad_xref())
    result = library.ingest_file(path)
    assert result.status == "ingested" and result.chunks >= 1
    assert result.warnings and "damaged" in result.warnings[0]
    assert result.to_dict()["warnings"] == result.warnings


def test_the_library_applies_the_pdf_limits_of_its_settings(data_dir: Path, tmp_path: Path) -> None:
    from prioris.embedding.fake import FakeEmbedder

    pdf = make_text_pdf(tmp_path / "two.pdf", "Two pages", ["Page one. " * 50, "Two. " * 50])
    settings = load_settings().with_overrides(pdf_max_pages=1)
    with Library.open(settings, embedder=FakeEmbedder(), ocr=None) as library:
        summary = library.ingest_paths([pdf])
    assert summary.failed[0]["error"]["code"] == "file_too_large"
    assert "PRIORIS_MCP_PDF_MAX_PAGES" in summary.failed[0]["error"]["message"]


def test_a_file_that_is_not_jsonl_yields_no_line_errors_before_its_one_error(
    library: Library, tmp_path: Path
) -> None:
    """`search --queries paper.pdf` printed twenty `not JSON` lines before the real error."""
    pdf = make_text_pdf(tmp_path / "paper.pdf", "A paper", ["Some text. " * 50])
    junk = tmp_path / "data.bin"
    junk.write_bytes(b"\x00\x01 not json\n" * 100)
    for path in (pdf, junk):
        seen = []
        with pytest.raises(InvalidRequestError) as info:
            for line in library.read_jsonl(path):
                seen.append(line)
        assert seen == [] and str(path) in info.value.message


def test_bad_lines_before_the_first_good_one_still_fail_alone_and_in_order(
    library: Library, tmp_path: Path
) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text('not json\n{"_id": "a", "text": "x"}\n[1]\n{"_id": "b", "text": "y"}\n')
    lines = list(library.read_jsonl(path))
    assert [line.where.rsplit(":", 1)[1] for line in lines] == ["1", "2", "3", "4"]
    assert [isinstance(line.value, InvalidRequestError) for line in lines] == [
        True,
        False,
        True,
        False,
    ]
    short = tmp_path / "short.jsonl"
    short.write_text("bad\nworse\n")
    assert [line.where.rsplit(":", 1)[1] for line in library.read_jsonl(short)] == ["1", "2"]


def test_a_files_bytes_are_read_once_and_checked_once(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PDF used to be checked three times on its way in (and an upload as often): the
    bytes are read and checked once, then handed on as checked."""
    from prioris.ingest import prepared

    a, b, _ = _paths(tmp_path)
    checks: list[int] = []
    opened: list[str] = []
    real_check, real_open = prepared.check_pdf_bytes, os.open

    def check(data: bytes, max_bytes: int) -> None:
        checks.append(len(data))
        real_check(data, max_bytes)

    def counted(path: object, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        opened.append(Path(os.fspath(path)).name)  # type: ignore[arg-type]
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prepared, "check_pdf_bytes", check)
    monkeypatch.setattr(os, "open", counted)
    summary = library.ingest_paths([a])
    assert len(summary.ingested) == 1
    assert len(checks) == 1 and opened.count("a.pdf") == 1
    checks.clear()
    assert library.ingest_upload(b.read_bytes(), filename="b.pdf").status == "ingested"
    assert len(checks) == 1
