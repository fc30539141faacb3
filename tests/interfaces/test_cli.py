"""The CLI end to end on PDFs the tests generate, with the real model and real tesseract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prioris.interfaces.cli import main
from prioris.interfaces.cli.app import build_parser

from conftest import start_library
from pdf_factory import make_scanned_pdf, make_text_pdf


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    make_text_pdf(
        folder / "a.pdf",
        "Transformers for protein structure prediction",
        [
            "Attention layers model residue contacts in protein structures. " * 15,
            "Evaluation on CASP targets shows accurate folding predictions. " * 10,
        ],
    )
    make_text_pdf(
        folder / "nested" / "b.pdf",
        "Soil microbiome and drought",
        ["Drought reshapes soil bacterial communities and nitrogen cycling. " * 15],
    )
    make_scanned_pdf(
        folder / "c_scan.pdf",
        "Volcanic eruptions cool the climate by injecting sulfate aerosols into the stratosphere.",
    )
    (folder / "d_broken.pdf").write_bytes(b"%PDF-1.7\nbroken beyond repair")
    return folder


def test_ingest_search_show_delete(capsys, papers: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "ingest", str(papers), "--json")
    assert code == 1  # one file failed
    summary = json.loads(out)
    assert len(summary["ingested"]) == 3
    assert [f["error"]["code"] for f in summary["failed"]] == ["parse_error"]
    scan = next(r for r in summary["ingested"] if r["path"].endswith("c_scan.pdf"))
    assert scan["ocr_pages"] == 1 and scan["chunks"] >= 1

    for mode in ("fts", "vector", "hybrid"):
        code, out, _ = run(capsys, "search", "sulfate aerosols volcanic", "--mode", mode, "--json")
        assert code == 0
        result = json.loads(out)
        assert result["mode"] == mode and result["took_ms"] >= 0
        top = result["hits"][0]
        assert top["id"] == scan["id"]  # found through real OCR text
        assert {
            "id",
            "title",
            "authors",
            "year",
            "score",
            "ranks",
            "snippet",
            "page_start",
            "page_end",
            "offset",
            "chunk_id",
        } <= set(top)

    code, out, _ = run(capsys, "search", "CASP folding", "--mode", "fts", "--chunks", "--json")
    hit = json.loads(out)["hits"][0]
    assert hit["page_start"] == 2 and "**" in hit["snippet"]

    code, out, _ = run(capsys, "show", hit["id"], "--offset", str(hit["offset"]), "--limit", "80")
    assert code == 0 and "CASP" in out

    code, out, _ = run(capsys, "list", "--json")
    assert json.loads(out)["count"] == 3

    code, out, _ = run(capsys, "status", "--json")
    status = json.loads(out)
    assert status["works"] == 3 and status["stale_chunks"] == 0 and status["dim"] == 384
    assert status["model"] == "prioris/all-MiniLM-L6-v2-int8" and status["size_bytes"] > 0

    code, out, _ = run(capsys, "delete", scan["id"])
    assert code == 0
    code, out, _ = run(capsys, "search", "sulfate aerosols", "--mode", "fts", "--json")
    assert all(h["id"] != scan["id"] for h in json.loads(out)["hits"])

    code, out, _ = run(capsys, "ingest", str(papers / "a.pdf"), "--json")
    assert code == 0 and len(json.loads(out)["skipped"]) == 1


def test_queries_file_answers_each_query(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"_id": "1", "title": "Aspirin and heart attacks", "text": "Aspirin lowers risk."},
                {"_id": "2", "title": "Coffee and sleep", "text": "Caffeine delays sleep onset."},
            ]
        )
    )
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"_id": "q1", "text": "caffeine sleep"}\n{"id": "q2", "text": "aspirin"}\n')
    assert run(capsys, "import", str(corpus), "--json")[0] == 0
    _, out, _ = run(capsys, "search", "--queries", str(queries), "--mode", "fts", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(x["query_id"], x["hits"][0]["id"]) for x in lines] == [("q1", "2"), ("q2", "1")]
    assert all("took_ms" in x for x in lines)


def test_errors_are_one_line_with_code_and_exit_status(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "show", "nope")  # no library here yet: said, nothing created
    assert code == 2 and err.strip() == (
        f"error [configuration_error]: there is no library at {data_dir / 'library.sqlite'}: "
        "nothing has been added there yet (`prioris ingest` or `prioris import` starts one); "
        "check --data-dir, --db or PRIORIS_MCP_DATA_DIR"
    )
    assert not data_dir.exists()
    start_library()
    code, _, err = run(capsys, "show", "nope")
    assert code == 1 and err.strip() == "error [not_found]: no work 'nope' in the library"
    code, _, err = run(capsys, "search", "x", "--mode", "fts", "--syntax", "fts5", "-k", "3")
    assert code == 0
    code, _, err = run(capsys, "search", '"open', "--mode", "fts", "--syntax", "fts5")
    assert code == 2 and err.startswith("error [invalid_request]")
    code, _, err = run(capsys, "search", "x", "--mode", "bogus")
    assert code == 2 and "invalid_request" in err
    assert "Traceback" not in err


def test_invalid_environment_fails_naming_the_variable(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PRIORIS_MCP_OCR", "sometimes")
    code, _, err = run(capsys, "status")
    assert code == 2 and "PRIORIS_MCP_OCR" in err and "auto, always, never" in err


def test_every_command_has_help_text() -> None:
    parser = build_parser()
    subactions = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert subactions
    for action in subactions:
        helps = {choice.dest: choice.help for choice in action._choices_actions}
        assert helps and all(helps.values()), helps
        for name, sub in action.choices.items():
            assert sub.format_help().strip(), name


def test_year_filters_say_what_they_leave_out(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus.jsonl"
    records = [
        {"_id": "bigtable", "title": "Bigtable", "text": "A distributed storage system."},
        {
            "_id": "gfs",
            "title": "The Google file system",
            "year": 2003,
            "text": "Bigtable runs on GFS.",
        },
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert run(capsys, "import", str(corpus))[0] == 0
    code, out, err = run(capsys, "search", "bigtable", "--mode", "fts", "--from-year", "2000")
    assert code == 0 and "gfs" in out and "bigtable " not in out
    assert "1 work without a year left out by the year filter (--include-undated keeps them)" in err
    code, out, err = run(
        capsys, "search", "bigtable", "--mode", "fts", "--to-year", "2030", "--include-undated"
    )
    assert code == 0 and "bigtable" in out and "without a year" not in err
    _, out, _ = run(
        capsys, "search", "bigtable", "--mode", "hybrid", "--from-year", "2000", "--json"
    )
    assert json.loads(out)["left_out_no_year"] == 1
    code, _, err = run(capsys, "search", "bigtable", "--source", "arxvi")
    assert code == 2
    assert "error [invalid_request]: unknown source 'arxvi'; known sources: arxiv" in err


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("refs.csv", b"Title,Author,Year\nDeep learning,LeCun,2015\nAttention,Vaswani,2017\n"),
        ("refs.xml", b'<?xml version="1.0"?>\n<records><record/></records>\n'),
        ("notes.txt", b"some notes\nabout papers\n"),
        ("library", b"PK\x03\x04\x14\x00\x00\x00binary zip"),
    ],
)
def test_import_of_a_file_of_no_known_kind_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: bytes
) -> None:
    """Not handed to the JSONL reader, which said "not JSON" once per line of the file."""
    path = tmp_path / name
    path.write_bytes(content)
    code, out, err = run(capsys, "import", str(path))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"error [invalid_request]: {name} is neither BibTeX, RIS nor JSONL records (by its "
        "name and its first lines); `prioris import` reads .bib, .ris and .jsonl files"
    ]
    assert "Traceback" not in err and "not JSON" not in err


@pytest.mark.parametrize(
    ("name", "content", "imported"),
    [
        ("records", b'{"_id": "w1", "title": "Peat", "text": "peat bogs"}\n', "1 imported"),
        ("refs.txt", b"@article{a,\n  title = {Peat bogs},\n  year = 2020\n}\n", "1 added"),
        ("refs", b"TY  - JOUR\nTI  - Peat bogs\nPY  - 2020\nER  - \n", "1 added"),
    ],
)
def test_import_still_tells_each_kind_by_its_first_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: bytes, imported: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    code, out, err = run(capsys, "import", str(path))
    assert code == 0, err
    assert imported in out
