"""An import never mixes two papers (issue 40).

Two reference-manager entries that name one file, or one DOI, are two works, each with its
own record (title, authors, year, DOI); the file stays with one of them and the report
warns naming both keys; the counts match the library; a second import or sync keeps it so.
The data is made here (a .bib, RefItems as a Zotero reader gives them, a Zotero data
directory from Zotero's schema when ../shared has it); the real Better BibTeX export is
checked in ``test_import_references.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import prioris.embedding
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main
from prioris.refman.items import PDF, RefAttachment, RefItem

from conftest import shared_path, start_library
from pdf_factory import make_text_pdf


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """The sync's tests run on both engines (SQLite, and PostgreSQL when available)."""
    return backend_settings


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    main([*args, "--json"])
    return json.loads(capsys.readouterr().out)


def _works(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    return _cli(capsys, "list", "--limit", "100")["works"]


BIB = """@article{ngata2019eels,
  title = {Eel migration in braided rivers},
  author = {Ngata, Aroha and Lee, Min},
  year = {2019},
  doi = {10.5555/eels.2019},
  journal = {Freshwater Notes},
  file = {Full Text:shared/eels.pdf:application/pdf}
}

@article{okoro2021lichen,
  title = {Lichen crusts on desert soils},
  author = {Okoro, Chidi},
  year = {2021},
  doi = {10.5555/lichen.2021},
  journal = {Arid Lands},
  file = {Full Text:shared/eels.pdf:application/pdf}
}

@article{varga2017moss,
  title = {Moss carpets and frost heave},
  author = {Varga, Ilona},
  year = {2017},
  journal = {Polar Botany},
  file = {Full Text:own/printed.pdf:application/pdf}
}
"""
ENTRIES = {
    "ngata2019eels": ("Eel migration in braided rivers", ["Aroha Ngata", "Min Lee"], 2019),
    "okoro2021lichen": ("Lichen crusts on desert soils", ["Chidi Okoro"], 2021),
    "varga2017moss": ("Moss carpets and frost heave", ["Ilona Varga"], 2017),
}
DOIS = {"ngata2019eels": "10.5555/eels.2019", "okoro2021lichen": "10.5555/lichen.2021"}


@pytest.fixture
def _fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    monkeypatch.setenv("PRIORIS_MCP_OCR", "never")


def _check_own_records(capsys: pytest.CaptureFixture[str]) -> None:
    """Every entry's work shows that entry's title, authors, year and DOI, and the
    BibTeX export writes them."""
    for key, (title, authors, year) in ENTRIES.items():
        shown = _cli(capsys, "show", f"bibtex:{key}")
        record = shown["record"]
        assert (record["title"], record["authors"], record["year"]) == (title, authors, year)
        assert record.get("doi") == DOIS.get(key), key
        assert main(["export", f"bibtex:{key}", "--format", "bibtex"]) == 0
        exported = capsys.readouterr().out
        assert exported.startswith(f"@article{{{key},") and str(year) in exported
        assert authors[0].split()[-1] in exported


@pytest.mark.usefixtures("_fake_model")
def test_two_entries_linking_one_pdf_are_two_works_each_with_its_own_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    start_library()
    make_text_pdf(
        tmp_path / "shared" / "eels.pdf",
        "Eel migration in braided rivers",
        ["Glass eels follow the braided channels upstream at night."],
    )
    # a PDF that prints another entry's DOI: its entry must not join that entry's work
    make_text_pdf(
        tmp_path / "own" / "printed.pdf",
        "Moss carpets and frost heave",
        ["doi:10.5555/eels.2019 Moss carpets lift with frost heave in polar soils."],
    )
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    report = _cli(capsys, "import", str(bib))
    assert report["failed"] == []
    assert report["added"] == 3 == len(_works(capsys))  # works added = works in the library
    warned = [w for w in report["warnings"] if w.get("file")]
    assert len(warned) == 1
    assert {warned[0]["key"], warned[0]["other"]} == {"ngata2019eels", "okoro2021lichen"}
    _check_own_records(capsys)
    # the file is attached to one of the two, its text found under that one only
    hits = _cli(capsys, "search", "glass eels braided channels", "--mode", "fts")["hits"]
    assert [h["id"] for h in hits].count("bibtex:ngata2019eels") == 1
    assert "bibtex:okoro2021lichen" not in [h["id"] for h in hits]
    # importing again changes nothing, and merges nothing later
    again = _cli(capsys, "import", str(bib))
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 3)
    # an edited entry updates its own work only, and the two stay apart
    bib.write_text(BIB.replace("{2021}", "{2022}"), encoding="utf-8")
    edited = _cli(capsys, "import", str(bib))
    assert (edited["added"], edited["updated"]) == (0, 1)
    assert len(_works(capsys)) == 3
    assert _cli(capsys, "show", "bibtex:okoro2021lichen")["record"]["year"] == 2022
    assert _cli(capsys, "show", "bibtex:ngata2019eels")["record"]["year"] == 2019


@pytest.mark.usefixtures("_fake_model")
def test_a_doi_claimed_by_two_entries_keeps_both_records_and_warns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    start_library()
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{first2020, title = {Tidal marsh carbon}, author = {Amadi, Ife},"
        " year = {2020}, doi = {10.5555/same}}\n"
        "@article{second2018, title = {Seagrass meadows at night}, author = {Berg, Lars},"
        " year = {2018}, doi = {https://doi.org/10.5555/SAME}}\n",
        encoding="utf-8",
    )
    assert main(["import", str(bib)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("2 added, 0 updated")
    warned = [line for line in out if line.startswith("warning")]
    assert len(warned) == 1  # one line naming both keys and the DOI
    assert all(word in warned[0] for word in ("second2018", "first2020", "doi:10.5555/same"))
    assert len(_works(capsys)) == 2
    first = _cli(capsys, "show", "bibtex:first2020")["record"]
    second = _cli(capsys, "show", "bibtex:second2018")["record"]
    assert (first["title"], first["authors"], first["year"]) == (
        "Tidal marsh carbon",
        ["Ife Amadi"],
        2020,
    )
    assert (second["title"], second["authors"], second["year"]) == (
        "Seagrass meadows at night",
        ["Lars Berg"],
        2018,
    )
    # an identifier names one work: the first entry's; the second keeps the DOI in its own
    # stored record (its source), not as an identifier that would find it
    assert (first["doi"], second["doi"]) == ("10.5555/same", None)
    assert _stored_records("bibtex:second2018")["bibtex"]["doi"] == "10.5555/same"
    # the DOI names the entry that had it first; a second import merges nothing
    assert _cli(capsys, "show", "doi:10.5555/same")["record"]["title"] == "Tidal marsh carbon"
    again = _cli(capsys, "import", str(bib))
    assert (again["added"], again["unchanged"]) == (0, 2)
    assert len(_works(capsys)) == 2


def _stored_records(work_id: str) -> dict:
    from prioris.config import load_settings
    from prioris.library import Library
    from prioris.storage import records as record_store

    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        return record_store.records_of(library.conn, work_id)


def _zotero_item(key: str, title: str, author: str, year: int, pdf: Path, doi: str) -> RefItem:
    return RefItem(
        source="zotero",
        key=key,
        record={"title": title, "authors": [author], "year": year, "doi": doi},
        version="1",
        attachments=(RefAttachment(key=f"A{key}", content_type=PDF, path=pdf),),
    )


def test_zotero_items_sharing_an_attachment_stay_two_works_through_resyncs(
    library, tmp_path: Path
) -> None:
    pdf = make_text_pdf(
        tmp_path / "one.pdf", "Peat bog methane", ["Sphagnum peat releases methane in summer."]
    )
    copy = tmp_path / "copy" / "one.pdf"
    copy.parent.mkdir()
    shutil.copyfile(pdf, copy)  # two attachments, one file's bytes (Zotero keeps copies)
    items = [
        _zotero_item("PEAT0001", "Peat bog methane", "Ana Silva", 2015, pdf, "10.5555/peat"),
        _zotero_item("FERN0002", "Fern spores in caves", "Bo Chen", 2011, copy, "10.5555/fern"),
        _zotero_item("MOSS0003", "Moss on roofs", "Cy Dorn", 2009, pdf, "10.5555/moss"),
    ]
    report = library.refsync.sync("zotero", items, complete=True)
    assert report.failed == []
    assert report.added == 3 == library.conn.execute("SELECT count(*) FROM works").fetchone()[0]
    assert report.files_ingested == 1
    assert sorted((w["key"], w["other"]) for w in report.warnings) == [
        ("FERN0002", "PEAT0001"),
        ("MOSS0003", "PEAT0001"),
    ]
    for entry in items:
        work = library.get_work(f"zotero:{entry.key}")
        fields = library.work_fields(work.id)
        assert work.id == f"zotero:{entry.key}"
        assert (work.title, work.authors, work.year) == (
            entry.record["title"],
            entry.record["authors"],
            entry.record["year"],
        )
        assert fields["doi"] == entry.record["doi"]
    for _ in range(2):  # re-syncs neither merge them nor count anything new
        again = library.refsync.sync("zotero", items, complete=True)
        assert (again.added, again.updated, again.unchanged) == (0, 0, 3)
    assert library.conn.execute("SELECT count(*) FROM works").fetchone()[0] == 3


def test_a_new_item_still_joins_a_pdf_ingested_on_its_own(library, tmp_path: Path) -> None:
    """The same paper brought in twice (a PDF ingested first, then its Zotero item) is
    one work: joining is refused only between two entries of one manager."""
    pdf = make_text_pdf(
        tmp_path / "kelp.pdf", "Kelp forests at dusk", ["Urchins graze kelp at dusk."]
    )
    alone = library.ingest_paths([pdf]).ingested[0]
    report = library.refsync.sync(
        "zotero",
        [_zotero_item("KELP0001", "Kelp forests at dusk", "Di Fox", 2020, pdf, "10.5555/kelp")],
    )
    assert (report.added, report.updated, report.warnings) == (0, 1, [])
    assert library.resolve_work_id("zotero:KELP0001") == alone.id
    assert library.conn.execute("SELECT count(*) FROM works").fetchone()[0] == 1


def test_a_zotero_library_with_one_file_in_two_items_syncs_to_two_works(
    library, tmp_path: Path
) -> None:
    from refman.zotero_factory import add_attachment, add_item, make_zotero_dir, open_db

    schema_dir = shared_path("fixtures", "zotero", "schema")
    data_dir = make_zotero_dir(tmp_path, schema_dir)
    content = make_text_pdf(
        tmp_path / "dunes.pdf", "Dune grasses", ["Marram grass binds moving dunes."]
    ).read_bytes()
    with open_db(data_dir) as db:
        for key, title, last, date in (
            ("ITEMDUNE", "Dune grasses", "Marsh", "2016"),
            ("ITEMSALT", "Salt spray and shrubs", "Pike", "2003"),
        ):
            add_item(
                db,
                key,
                "journalArticle",
                {"title": title, "date": date, "DOI": f"10.5555/{key.lower()}"},
                creators=[("Kim", last, "author")],
            )
            add_attachment(db, data_dir, f"A{key[4:]}", key, file_name="p.pdf", content=content)
    report = library.zotero_sync(data_dir)
    assert report["failed"] == [] and report["added"] == 2
    assert library.conn.execute("SELECT count(*) FROM works").fetchone()[0] == 2
    assert [(w["key"], w["other"]) for w in report["warnings"]] == [("ITEMSALT", "ITEMDUNE")]
    salt = library.get_work("zotero:ITEMSALT")
    assert (salt.title, salt.authors, salt.year) == ("Salt spray and shrubs", ["Kim Pike"], 2003)
    assert library.work_fields(salt.id)["doi"] == "10.5555/itemsalt"
    again = library.zotero_sync(data_dir)
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 2)
