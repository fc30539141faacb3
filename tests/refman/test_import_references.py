"""``prioris import refs.bib|refs.ris``: the real exports of ../shared/fixtures/bibtex and
files written here, through the CLI; re-import, a changed entry, a malformed one, keys."""

from __future__ import annotations

import json
import shutil

import pytest

import prioris.embedding
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main

from conftest import shared_path, start_library
from pdf_factory import make_text_pdf


@pytest.fixture(autouse=True)
def _fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's library with the fake embedder and no OCR (the real ones are tested
    elsewhere): these tests are about what an import stores."""
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    monkeypatch.setenv("PRIORIS_MCP_OCR", "never")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_real_better_bibtex_and_zotero_exports_import_with_their_files(capsys, tmp_path):
    for name in ("ahmedthahir-bbt", "tabassam823-zotero-export"):
        shutil.copytree(shared_path("fixtures", "bibtex", name), tmp_path / name)
    bbt = tmp_path / "ahmedthahir-bbt" / "My Library.bib"
    truth = json.loads((tmp_path / "ahmedthahir-bbt" / "truth.json").read_text("utf-8"))
    code, report = _run(capsys, "import", str(bbt))
    assert code == 0, report
    assert report["format"] == "bibtex" and report["failed"] == []
    assert report["added"] == len(truth["entries"]) == 42
    # absolute macOS paths are found again under storage/<KEY>/ beside the .bib; the files
    # the snapshot lacks are reported, their entries kept with their metadata
    assert report["files_ingested"] >= 20
    assert report["files_missing"]
    _every_work_is_its_own_entry(capsys, bbt, truth)
    code, again = _run(capsys, "import", str(bbt))
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 42)
    _every_work_is_its_own_entry(capsys, bbt, truth)  # a second import merges nothing
    # the citation key is an alias and comes back on export
    assert main(["show", "bibtex:hughesAnalysisPassingSequences2005"]) == 0
    capsys.readouterr()
    assert main(["export", "bibtex:hughesAnalysisPassingSequences2005", "--format", "bibtex"]) == 0
    assert capsys.readouterr().out.startswith("@article{hughesAnalysisPassingSequences2005,")
    zotero = tmp_path / "tabassam823-zotero-export" / "Exported Items" / "Exported Items.bib"
    code, report = _run(capsys, "import", str(zotero))
    assert code == 0 and report["added"] == 16 and report["files_ingested"] == 2


def _letters(text: str) -> str:
    """ASCII letters only, accents dropped (truth.json keeps the .bib's raw LaTeX)."""
    import unicodedata

    folded = unicodedata.normalize("NFKD", text).casefold()
    return "".join(c for c in folded if "a" <= c <= "z")


def _every_work_is_its_own_entry(capsys: pytest.CaptureFixture[str], bib, truth: dict) -> None:
    """42 entries, 42 works, and each entry's work shows that entry's title, authors, year
    and DOI: as the reader parsed the entry, and (year, DOI, first author) as truth.json
    computed them without it. Two entries of this file link one PDF (the second's PDF
    prints the first's DOI); neither may carry the other's record."""
    from prioris.refman.latex import decode
    from prioris.refman.references import read_references

    items, errors = read_references(bib)
    assert errors == [] and len(items) == len(truth["entries"]) == 42
    code, listed = _run(capsys, "list", "--limit", "100")
    assert code == 0 and len(listed["works"]) == 42  # works added = works in the library
    by_key = {e["key"]: e for e in truth["entries"]}
    entry_dois = {e["doi"].lower() for e in truth["entries"] if e["doi"]}
    seen_ids = set()
    for item in items:
        code, shown = _run(capsys, "show", f"bibtex:{item.key}")
        assert code == 0, item.key
        record = shown["record"]
        seen_ids.add(record["id"])
        expected = item.record
        # the entry's fields win; what it lacks its own PDF may fill (a printed year)
        assert record["title"] == expected["title"], item.key
        if expected.get("authors"):
            assert record["authors"] == list(expected["authors"]), item.key
        entry = by_key[item.key]
        if entry["year"]:
            assert record["year"] == expected["year"] == int(entry["year"]), item.key
        if entry["doi"]:
            assert record["doi"] == entry["doi"].lower(), item.key
        else:  # its own PDF may print one; never another entry's (a PDF linked by mistake)
            assert record["doi"] not in entry_dois, item.key
        if entry["author"]:
            assert expected.get("authors"), item.key
            first = decode(entry["author"].split(" and ")[0].split(",")[0]).strip("{} ")
            assert _letters(first.split()[-1]) in _letters(record["authors"][0]), item.key
    assert len(seen_ids) == 42  # one work an entry


def test_a_changed_entry_updates_its_work_and_a_malformed_one_fails_alone(capsys, tmp_path):
    start_library()
    make_text_pdf(
        tmp_path / "files" / "12" / "kelp.pdf",
        "Kelp forests",
        ["Sea urchins graze kelp forests bare when otters are gone."],
    )
    bib = tmp_path / "refs.bib"
    entry = (
        "@article{lind2020kelp,\n  title = {Kelp forests and {Sea} Urchins},\n"
        '  author = {Lind, Mara and Schr{\\"o}der, Jan},\n  journal = {Marine Ecology},\n'
        "  year = {2020},\n  file = {Full Text PDF:files/12/kelp.pdf:application/pdf},\n}\n"
    )
    broken = "@article{broken2021,\n  title = {Unclosed,\n  year = 2021\n\n"
    bib.write_text(entry + "\n" + broken + "@misc{ok2022, title = {Fine}, year = {2022}}\n")
    code, report = _run(capsys, "import", str(bib))
    assert code == 1  # an entry failed
    assert report["added"] == 2 and report["files_ingested"] == 1
    assert len(report["failed"]) == 1 and report["failed"][0]["line"] == 9
    assert main(["show", "bibtex:lind2020kelp", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["record"]["authors"] == ["Mara Lind", "Jan Schröder"]
    assert shown["record"]["origins"]["title"] == "bibtex"
    bib.write_text(
        entry.replace("{2020}", "{2021}") + "@misc{ok2022, title = {Fine}, year = {2022}}\n"
    )
    code, report = _run(capsys, "import", str(bib))
    assert code == 0
    assert (report["added"], report["updated"], report["unchanged"]) == (0, 1, 1)
    assert main(["show", "bibtex:lind2020kelp", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["record"]["year"] == 2021


def test_ris_with_a_file_link_and_the_format_told_from_the_content(capsys, tmp_path):
    start_library()
    make_text_pdf(
        tmp_path / "pdfs" / "mangrove.pdf",
        "Mangrove carbon",
        ["Mangrove soils hold carbon for millennia."],
    )
    ris = tmp_path / "export.txt"  # no telling extension: the content says RIS
    ris.write_text(
        "TY  - JOUR\nID  - mangrove18\nAU  - Okafor, Ngozi\nTI  - Mangrove carbon stocks\n"
        "PY  - 2018\nJO  - Coastal Science\nDO  - 10.5555/mangrove\nL1  - pdfs/mangrove.pdf\n"
        "ER  - \n"
    )
    code, report = _run(capsys, "import", str(ris))
    assert code == 0 and report["format"] == "ris"
    assert report["added"] == 1 and report["files_ingested"] == 1
    assert main(["search", "millennia", "--mode", "fts", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and hits[0]["title"] == "Mangrove carbon stocks"


def test_a_jsonl_file_still_imports_as_records(capsys, tmp_path):
    start_library()
    records = tmp_path / "records.jsonl"
    records.write_text('{"_id": "r1", "title": "A record", "text": "Plain text."}\n')
    code, report = _run(capsys, "import", str(records))
    assert code == 0 and report["ingested"][0]["id"] == "r1"
