"""The Zotero data-directory reader on real Zotero databases and on ones built from Zotero's
own schema: every regular item with its metadata, files, notes, collections and tags; a
running Zotero's WAL, a held lock, a half-written journal; schema versions refused; and
Zotero's files byte-identical after every read."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from prioris.errors import ConfigurationError, ParseError
from prioris.identifiers import normalise_doi
from prioris.refman.items import RefItem
from prioris.refman.zotero import ZoteroLibrary, ZoteroSnapshot, read_library
from prioris.refman.zotero import snapshot as snapshot_module
from prioris.refman.zotero.reader import build_record, parse_date
from refman.zotero_factory import (
    add_annotation,
    add_attachment,
    add_collection,
    add_group_library,
    add_item,
    add_many,
    add_note,
    connect,
    edit_field,
    erase,
    make_zotero_dir,
    move,
    open_db,
    restore,
    set_schema_version,
    trash,
    trash_collection,
)
from work_bounds import calls, cpu_growth

from conftest import shared_path

FIXTURES = (
    "hsteinshiromoto-bibliography",
    "san7o-research-papers",
    "tasmimmedha-hidms-metadata-only",
)


# -- helpers ----------------------------------------------------------------------------
def _hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (what must not change when we read it)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _by_key(library: ZoteroLibrary) -> dict[str, RefItem]:
    return {item.key: item for item in library.items}


def _no_sleep(calls: list[float]) -> Any:
    def sleep(seconds: float) -> None:
        calls.append(seconds)

    return sleep


@pytest.fixture
def schema_dir() -> Path:
    return shared_path("fixtures", "zotero", "schema")


@pytest.fixture
def zdir(tmp_path: Path, schema_dir: Path) -> Path:
    return make_zotero_dir(tmp_path, schema_dir)


# -- the real data directories ------------------------------------------------------------
@pytest.mark.parametrize("name", FIXTURES)
def test_real_library_matches_its_truth_item_by_item(name: str, tmp_path: Path) -> None:
    source = shared_path("fixtures", "zotero", name)
    data_dir = tmp_path / name
    shutil.copytree(source, data_dir)
    truth = json.loads((data_dir / "truth.json").read_text(encoding="utf-8"))
    before = _hashes(data_dir)

    library = read_library(data_dir)

    assert _hashes(data_dir) == before  # not one byte of Zotero's files changed
    assert sorted(os.listdir(data_dir)) == sorted(os.listdir(source))  # no -journal, no -wal
    assert library.errors == ()
    assert library.schema.userdata == truth["schema_versions"]["userdata"]
    items = _by_key(library)
    assert sorted(items) == sorted(t["key"] for t in truth["items"])
    assert len(items) == truth["counts"]["regular_items"]
    regular_trash = {d["key"] for d in truth["deleted_items"]} - {
        d["key"] for d in truth["deleted_items"] if d["itemType"] in ("note", "attachment")
    }
    assert set(library.trashed) == regular_trash
    assert [a.key for a in library.standalone] == [
        a["key"] for a in truth["standalone_attachments"]
    ]
    for expected in truth["items"]:
        item = items[expected["key"]]
        record = item.record
        assert item.source == "zotero"
        title = " ".join(expected["title"].split()) if expected["title"] else None
        assert record.get("title") == title, expected["key"]  # one line: spaces collapsed
        assert record.get("year") == expected["year"], expected["key"]
        doi = normalise_doi(expected["DOI"] or "") or normalise_doi(expected["doi_in_extra"] or "")
        assert record.get("doi") == doi, expected["key"]
        names = [
            c["lastName"] if c["fieldMode"] == 1 else f"{c['firstName']} {c['lastName']}".strip()
            for c in expected["creators"]
        ]
        assert [c["name"] for c in record.get("creators", [])] == names
        assert [c["role"] for c in record.get("creators", [])] == [
            c["creatorType"] for c in expected["creators"]
        ]
        assert sorted(p.split(" / ")[-1] for p in item.collections) == sorted(
            expected["collections"]
        )
        assert set(item.tags) == {t["tag"] for t in expected["tags"]}
        assert set(item.extra["automatic_tags"]) == {
            t["tag"] for t in expected["tags"] if t["type"] == 1
        }
        files = {a.key: a for a in item.attachments}
        assert sorted(files) == sorted(a["key"] for a in expected["attachments"])
        for attachment in expected["attachments"]:
            got = files[attachment["key"]]
            assert (got.path is not None) == attachment["exists"], attachment
            assert bool(got.missing) == (not attachment["exists"])
            if attachment["exists"]:
                assert got.path == data_dir / attachment["file"]
                assert got.content_type == attachment["contentType"]


def test_zotero6_fixture_details(tmp_path: Path) -> None:
    """Books' DOI in Extra, arXiv ids, PMIDs, venues, annotations with pages, nested paths,
    and a snapshot whose parent is in the trash skipped with it."""
    data_dir = tmp_path / "h"
    shutil.copytree(shared_path("fixtures", "zotero", "hsteinshiromoto-bibliography"), data_dir)
    items = _by_key(read_library(data_dir))
    book = items["A5A8PGIP"].record
    assert book["type"] == "book" and book["doi"] == "10.1007/978-0-387-84858-7"
    assert items["DGWB2C6B"].record["arxiv"] == "1606.02360"  # archiveID
    assert items["N6DLSC8Z"].record["arxiv"] == "1503.03900"  # "arXiv: 1503.03900" in Extra
    conference = items["3PV4J6RG"].record
    assert conference["type"] == "paper-conference"
    assert conference["venue"] == "2016 IEEE 55th Conference on Decision and Control (CDC)"
    assert conference["published"] == "2016-12"
    assert items["9C27WM2G"].record["publisher"] == "Université Grenoble Alpes"  # university
    software = items["UZCI8MWB"]
    assert software.record["type"] == "software"
    assert software.record["authors"]  # programmers are its primary creators
    assert [n.kind for n in software.notes] == ["note"]
    assert software.notes[0].text.startswith("Other\nIf you use this software")
    assert items["WV53G4KS"].attachments[0].content_type == "text/html"

    data_dir = tmp_path / "s"
    shutil.copytree(shared_path("fixtures", "zotero", "san7o-research-papers"), data_dir)
    library = read_library(data_dir)
    items = _by_key(library)
    assert items["N8XB3VSZ"].record["pmid"] == "25489464"
    assert items["N8XB3VSZ"].record["pmcid"] == "PMC4255510"
    assert items["7B2NZTTN"].collections == ("Computer Science / Distributed Systems",)
    annotations = [n for item in library.items for n in item.notes if n.kind != "note"]
    assert len(annotations) == 7
    first = items["YDQMNNXT"].notes[0]
    assert first.kind == "highlight" and first.page == 1 and first.page_label == "107"
    assert first.text.startswith("Our abstraction is inspired")
    assert first.color == "#ffd400" and first.attachment_key == "L5VFETMG"
    keys = {a.key for item in library.items for a in item.attachments}
    keys |= {a.key for a in library.standalone}
    assert "WZYXIF2K" not in keys  # the snapshot of a webpage in the trash
    linked = next(a for a in items["U947JP6I"].attachments if a.key == "HCCKJQEK")
    assert linked.path is None and linked.missing.startswith("linked URL, no file")
    assert library.standalone[0].path == data_dir / "storage" / "Y82DIS32" / "paxos-simple.pdf"


def test_zotero9_fixture_group_library_trashed_collections_and_junk(tmp_path: Path) -> None:
    data_dir = tmp_path / "t"
    shutil.copytree(shared_path("fixtures", "zotero", "tasmimmedha-hidms-metadata-only"), data_dir)
    library = read_library(data_dir)
    items = _by_key(library)
    assert [(o.type, o.name) for o in library.other_libraries] == [("group", "HIDMS")]
    assert "title" not in items["WAVTAIHA"].record  # an item without a title is still read
    assert "doi" not in items["LS8HFZWQ"].record  # "e Applications of ..." is no DOI
    assert items["WAVTAIHA"].collections == (
        "HIDMS Benchmark Analysis / 00 Screening / Benchmark 02 / Matrix A",
    )
    every_path = " ".join(p for item in library.items for p in item.collections)
    assert "LLM" not in every_path and "SLM" not in every_path  # trashed collections
    missing = items["DZU7E2HE"].attachments[0]
    assert missing.path is None and missing.missing.startswith("file not found")


# -- items built with Zotero's schema -----------------------------------------------------
def test_fields_of_each_item_type(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_item(
            db,
            "CONF0001",
            "conferencePaper",
            {
                "title": "  A  paper\n title ",
                "proceedingsTitle": "Proc. of Things",
                "date": "2019-06-15 June 15, 2019",
                "pages": "1-10",
                "publisher": "ACM",
                "DOI": "https://doi.org/10.1145/ABC.123",
                "abstractNote": "Line one.\nLine two.",
                "language": "en",
                "url": "https://example.org/x",
            },
            creators=[("Ada", "Lovelace", "author"), ("", "ACME Corp", "author", 1)],
        )
        add_item(
            db,
            "CHAP0001",
            "bookSection",
            {"title": "Chapter", "bookTitle": "The Book", "date": "2018-00-00 2018"},
            creators=[("Ed", "Itor", "editor"), ("Au", "Thor", "author")],
        )
        add_item(db, "THES0001", "thesis", {"title": "T", "university": "Uni"})
        add_item(db, "REPT0001", "report", {"title": "R", "institution": "Lab"})
        add_item(
            db,
            "BOOK0001",
            "book",
            {"title": "B", "extra": "Citation Key: b2020\nDOI: 10.1007/978-3-030-00001-1"},
            creators=[("Ed", "Only", "editor")],
        )
        add_item(db, "JUNK0001", "journalArticle", {"title": "J", "DOI": "not a doi at all"})
        add_item(
            db,
            "PREP0001",
            "preprint",
            {"title": "P", "DOI": "10.48550/arXiv.2401.01234", "repository": "arXiv"},
        )
        add_item(db, "WEBP0001", "webpage", {"title": "W", "websiteTitle": "Site"})
        add_item(db, "BLOG0001", "blogPost", {"title": "Blog", "blogTitle": "My Blog"})
        add_item(db, "NODT0001", "journalArticle", {"title": "N", "date": "0000-00-00 spring"})
        add_note(db, "NOTE0001", None, "<p>standalone</p>")
    library = read_library(zdir)
    items = _by_key(library)
    assert sorted(items) == sorted(
        [
            *("CONF0001", "CHAP0001", "THES0001", "REPT0001", "BOOK0001", "JUNK0001"),
            *("PREP0001", "WEBP0001", "BLOG0001", "NODT0001"),
        ]
    )
    conf = items["CONF0001"].record
    assert conf == {
        "type": "paper-conference",
        "title": "A paper title",
        "creators": [
            {"name": "Ada Lovelace", "role": "author", "family": "Lovelace", "given": "Ada"},
            {"name": "ACME Corp", "role": "author", "literal": "ACME Corp"},
        ],
        "authors": ["Ada Lovelace", "ACME Corp"],
        # the names as Zotero splits them, for citations (a one-field name is a literal)
        "author_parts": [{"family": "Lovelace", "given": "Ada"}, {"literal": "ACME Corp"}],
        "year": 2019,
        "published": "2019-06-15",
        "venue": "Proc. of Things",
        "pages": "1-10",
        "publisher": "ACM",
        "doi": "10.1145/abc.123",
        "abstract": "Line one.\nLine two.",
        "language": "en",
        "url": "https://example.org/x",
    }
    chapter = items["CHAP0001"].record
    assert chapter["type"] == "chapter" and chapter["venue"] == "The Book"
    assert chapter["authors"] == ["Au Thor"]  # the author, not the editor
    assert [c["role"] for c in chapter["creators"]] == ["editor", "author"]
    assert items["THES0001"].record["publisher"] == "Uni"
    assert items["REPT0001"].record == {"type": "report", "title": "R", "publisher": "Lab"}
    book = items["BOOK0001"].record
    assert book["doi"] == "10.1007/978-3-030-00001-1"
    assert book["authors"] == ["Ed Only"]  # no author: every creator
    assert items["BOOK0001"].extra["citation_key"] == "b2020"  # Better BibTeX's, in Extra
    assert "citation_key" not in items["JUNK0001"].extra
    assert "doi" not in items["JUNK0001"].record
    assert items["PREP0001"].record["arxiv"] == "2401.01234"
    assert items["PREP0001"].record["type"] == "preprint"
    assert items["WEBP0001"].record["venue"] == "Site"
    assert items["BLOG0001"].record["venue"] == "My Blog"
    assert "year" not in items["NODT0001"].record
    assert library.skipped == {"standalone notes": 1}


@pytest.mark.parametrize(
    ("stored", "year", "published"),
    [
        ("2017-00-00 2017", 2017, "2017"),
        ("2016-12-00 12/2016", 2016, "2016-12"),
        ("2022-07-21 July 21, 2022", 2022, "2022-07-21"),
        ("2021-02-30 Feb 30", 2021, "2021-02"),  # no such day
        ("0000-00-00 sometime", None, None),
        ("0000-00-00 circa 1850", 1850, "1850"),
        ("May 2001", 2001, "2001"),  # not Zotero's form: the year only
        ("", None, None),
        ("9999-01-01 9999", None, None),
    ],
)
def test_dates(stored: str, year: int | None, published: str | None) -> None:
    assert parse_date(stored) == (year, published)


@pytest.mark.parametrize(
    ("fields", "doi", "arxiv"),
    [
        (
            {"url": "https://dl.acm.org/doi/10.1145/3519270.3538430"},
            "10.1145/3519270.3538430",
            None,
        ),
        ({"url": "https://doi.org/10.1000/ABC%2F1"}, "10.1000/abc/1", None),
        ({"url": "https://example.com/10.1234/not-said-to-be-a-doi"}, None, None),
        ({"url": "https://arxiv.org/abs/2401.01234v2"}, None, "2401.01234v2"),
        (
            {"DOI": "10.1000/a", "extra": "DOI: 10.2000/b", "url": "https://doi.org/10.3000/c"},
            "10.1000/a",
            None,
        ),
        ({"DOI": "junk", "extra": "doi: 10.2000/B"}, "10.2000/b", None),
        ({"extra": "PMID: not-a-number\nPMCID: 12"}, None, None),
        ({"archiveID": "arXiv:hep-th/9901001"}, None, "hep-th/9901001"),
    ],
)
def test_identifiers_and_where_they_come_from(
    fields: dict[str, str], doi: str | None, arxiv: str | None
) -> None:
    record = build_record("journalArticle", fields, [])
    assert record.get("doi") == doi
    assert record.get("arxiv") == arxiv
    assert "pmid" not in record and "pmcid" not in record


def test_attachments_of_every_kind(zdir: Path, tmp_path: Path) -> None:
    base = tmp_path / "linked-base"
    (base / "papers").mkdir(parents=True)
    (base / "papers" / "rel.pdf").write_bytes(b"%PDF-1.4 relative")
    absolute = tmp_path / "elsewhere" / "abs.pdf"
    absolute.parent.mkdir()
    absolute.write_bytes(b"%PDF-1.4 absolute")
    odd_name = "Smith; Jones\u00a0- 2020 - A title.pdf"
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", "journalArticle", {"title": "With files"})
        add_attachment(db, zdir, "STOR0001", "ITEM0001", file_name=odd_name)
        add_attachment(db, zdir, "IMPF0001", "ITEM0001", link_mode=0, file_name="x.pdf")
        add_attachment(db, zdir, "GONE0001", "ITEM0001", file_name="gone.pdf", content=None)
        add_attachment(
            db,
            zdir,
            "LFSP0001",
            "ITEM0001",
            file_name="big.pdf",
            content=b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n",
        )
        add_attachment(db, zdir, "LINK0001", "ITEM0001", link_mode=2, path=str(absolute))
        add_attachment(
            db, zdir, "LINK0002", "ITEM0001", link_mode=2, path="attachments:papers/rel.pdf"
        )
        add_attachment(
            db,
            zdir,
            "URL00001",
            "ITEM0001",
            link_mode=3,
            content_type="text/html",
            url="https://x.org",
        )
        add_attachment(
            db,
            zdir,
            "SNAP0001",
            "ITEM0001",
            file_name="index.html",
            content=b"<html></html>",
            content_type="text/html",
        )
        add_attachment(
            db, zdir, "EVIL0001", "ITEM0001", link_mode=2, path="attachments:../../etc/passwd"
        )
        db.execute(
            "UPDATE itemAttachments SET path = 'storage:../../../outside.pdf' WHERE itemID = "
            "(SELECT itemID FROM items WHERE key = 'IMPF0001')"
        )
        add_attachment(db, zdir, "NFCD0001", "ITEM0001", file_name="Erdo\u030bs.pdf")  # NFD on disk
        db.execute(  # the database holds the NFC name, as Zotero on another system wrote it
            "UPDATE itemAttachments SET path = 'storage:Erd\u0151s.pdf' WHERE itemID = "
            "(SELECT itemID FROM items WHERE key = 'NFCD0001')"
        )
        add_attachment(db, zdir, "TRSH0001", "ITEM0001", file_name="trashed.pdf")
        trash(db, "TRSH0001")
        add_attachment(db, zdir, "ALON0001", None, file_name="standalone.pdf")
        add_item(db, "ITEM0002", "journalArticle", {"title": "In the trash"})
        add_attachment(db, zdir, "CHLD0002", "ITEM0002", file_name="child.pdf")
        trash(db, "ITEM0002")

    without_base = {a.key: a for a in read_library(zdir).items[0].attachments}
    library = read_library(zdir, base_dir=base)
    files = {a.key: a for a in library.items[0].attachments}
    assert sorted(files) == sorted(
        [
            *("STOR0001", "IMPF0001", "GONE0001", "LFSP0001", "LINK0001", "LINK0002"),
            *("URL00001", "SNAP0001", "EVIL0001", "NFCD0001"),
        ]
    )
    assert files["STOR0001"].path == zdir / "storage" / "STOR0001" / odd_name
    assert files["STOR0001"].missing == "" and files["STOR0001"].content_type == "application/pdf"
    assert files["IMPF0001"].path is None and "unsafe" in files["IMPF0001"].missing
    assert files["GONE0001"].path is None and files["GONE0001"].missing.startswith("file not found")
    assert files["LFSP0001"].path is None and "Git LFS pointer" in files["LFSP0001"].missing
    assert files["LINK0001"].path == absolute
    assert files["LINK0002"].path == base / "papers" / "rel.pdf"
    assert without_base["LINK0002"].path is None
    assert "base directory" in without_base["LINK0002"].missing
    assert files["URL00001"].missing == "linked URL, no file: https://x.org"
    assert files["SNAP0001"].content_type == "text/html" and files["SNAP0001"].path
    assert files["EVIL0001"].path is None and "unsafe" in files["EVIL0001"].missing
    assert files["NFCD0001"].path == zdir / "storage" / "NFCD0001" / "Erdo\u030bs.pdf"
    assert [a.key for a in library.standalone] == ["ALON0001"]
    assert library.trashed == ("ITEM0002",)


def test_notes_and_annotations(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", "journalArticle", {"title": "Annotated"})
        add_attachment(db, zdir, "ATTA0001", "ITEM0001")
        add_note(
            db,
            "NOTE0001",
            "ITEM0001",
            '<div class="zotero-note znv1"><h1>Summary</h1><p>First&nbsp;point &amp; more'
            "</p><ul><li>one</li><li>two</li></ul></div>",
        )
        add_note(db, "NOTE0002", "ITEM0001", '<div class="zotero-note znv1"></div>')  # empty
        add_annotation(db, "ANNO0003", "ATTA0001", kind=5, text="underlined", page_index=9)
        add_annotation(
            db,
            "ANNO0001",
            "ATTA0001",
            kind=1,
            text="key sentence",
            comment="why",
            page_index=0,
            page_label="iv",
            color="#ff6666",
        )
        add_annotation(
            db, "ANNO0002", "ATTA0001", kind=2, text=None, comment="a note", page_index=4
        )
        add_annotation(db, "ANNO0004", "ATTA0001", kind=3, text=None, page_index=2)
        add_annotation(db, "ANNO0005", "ATTA0001", kind=4, text=None, position="{not json")
        add_annotation(
            db, "ANNO0006", "ATTA0001", kind=6, text="typed", position='{"pageIndex": -3}'
        )
        add_annotation(db, "ANNO0007", "ATTA0001", text="trashed highlight", page_index=1)
        trash(db, "ANNO0007")
    item = read_library(zdir).items[0]
    notes = {n.key: n for n in item.notes}
    assert item.notes[0].key == "NOTE0001"  # notes first, then annotations by reading order
    assert notes["NOTE0001"].text == "Summary\nFirst point & more\n- one\n- two"
    assert "NOTE0002" not in notes and "ANNO0007" not in notes
    assert [n.key for n in item.notes[1:]] == [  # sortIndex: page, then place on it
        *("ANNO0001", "ANNO0005", "ANNO0006", "ANNO0004", "ANNO0002", "ANNO0003"),
    ]
    highlight = notes["ANNO0001"]
    assert (highlight.kind, highlight.text, highlight.comment) == (
        "highlight",
        "key sentence",
        "why",
    )
    assert (highlight.page, highlight.page_label, highlight.color) == (1, "iv", "#ff6666")
    assert highlight.attachment_key == "ATTA0001"
    assert notes["ANNO0002"].kind == "comment" and notes["ANNO0002"].comment == "a note"
    assert notes["ANNO0003"].kind == "underline" and notes["ANNO0003"].page == 10
    assert notes["ANNO0004"].kind == "image"
    assert notes["ANNO0005"].kind == "ink" and notes["ANNO0005"].page is None  # bad JSON
    assert notes["ANNO0006"].kind == "text" and notes["ANNO0006"].page is None


def test_collections_nested_trashed_and_duplicate_names(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_collection(db, "TOPC0001", "Thesis")
        add_collection(db, "CHAP0002", "Chapter 2", "TOPC0001")
        add_collection(db, "DEEP0003", "Related", "CHAP0002")
        add_collection(db, "DUPL0001", "Related")  # same name, another place
        add_collection(db, "GONE0001", "Old stuff")
        add_collection(db, "GONE0002", "Below old", "GONE0001")
        add_item(
            db,
            "ITEM0001",
            fields={"title": "x"},
            collections=["DEEP0003", "DUPL0001", "GONE0002", "TOPC0001"],
            tags=["b-tag", ("a-auto", 1)],
        )
        add_group_library(db, 2, "Lab group")
        add_collection(db, "GRPC0001", "Group coll", library_id=2)
        add_item(db, "GRPI0001", fields={"title": "group"}, library_id=2)
        trash_collection(db, "GONE0001")
    library = read_library(zdir)
    (item,) = library.items
    assert item.collections == ("Related", "Thesis", "Thesis / Chapter 2 / Related")
    assert item.tags == ("a-auto", "b-tag") and item.extra["automatic_tags"] == ["a-auto"]
    assert [(o.library_id, o.type, o.name, o.items) for o in library.other_libraries] == [
        (2, "group", "Lab group", 1)
    ]
    group = read_library(zdir, library_id=2)
    assert [i.key for i in group.items] == ["GRPI0001"]


# -- changes between two reads ------------------------------------------------------------
def test_edit_move_note_trash_and_erase_change_what_is_read(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_collection(db, "COLA0001", "A")
        add_collection(db, "COLB0001", "B")
        add_item(db, "ITEM0001", fields={"title": "One"}, collections=["COLA0001"])
        add_item(db, "ITEM0002", fields={"title": "Two"})
        add_item(db, "ITEM0003", fields={"title": "Three"})
    first = _by_key(read_library(zdir))
    again = _by_key(read_library(zdir))
    assert {k: i.version for k, i in first.items()} == {k: i.version for k, i in again.items()}

    with open_db(zdir) as db:
        edit_field(db, "ITEM0001", "title", "One, edited")
        move(db, "ITEM0002", None, "COLB0001")
        add_note(db, "NOTE0001", "ITEM0003", "<p>new note</p>")  # parent row untouched
        add_item(db, "ITEM0004", fields={"title": "Four"})
    second = _by_key(read_library(zdir))
    assert second["ITEM0001"].record["title"] == "One, edited"
    assert second["ITEM0002"].collections == ("B",)
    assert [n.text for n in second["ITEM0003"].notes] == ["new note"]
    assert all(second[k].version != first[k].version for k in first)
    assert "ITEM0004" in second

    with open_db(zdir) as db:
        move(db, "ITEM0001", "COLA0001", "COLB0001")
        trash(db, "ITEM0002")
        erase(db, "ITEM0003")
    third = read_library(zdir)
    items = _by_key(third)
    assert items["ITEM0001"].collections == ("B",)
    assert sorted(items) == ["ITEM0001", "ITEM0004"]
    assert third.trashed == ("ITEM0002",)
    assert items["ITEM0004"].version == second["ITEM0004"].version
    assert items["ITEM0004"].extra["library_id"] == 1

    with open_db(zdir) as db:
        restore(db, "ITEM0002")
    assert "ITEM0002" in _by_key(read_library(zdir))


def test_a_file_that_appears_changes_the_version(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", fields={"title": "x"})
        add_attachment(db, zdir, "ATTA0001", "ITEM0001", content=None)
    before = read_library(zdir).items[0]
    assert before.attachments[0].path is None
    (zdir / "storage" / "ATTA0001").mkdir()
    (zdir / "storage" / "ATTA0001" / "paper.pdf").write_bytes(b"%PDF-1.4 synced later")
    after = read_library(zdir).items[0]
    assert after.attachments[0].path is not None and after.version != before.version


# -- a running Zotero -----------------------------------------------------------------------
def test_wal_of_a_running_zotero_is_read(tmp_path: Path, schema_dir: Path) -> None:
    zdir = make_zotero_dir(tmp_path, schema_dir, journal_mode="wal")
    zotero = connect(zdir)  # Zotero, running: WAL mode, nothing checkpointed
    try:
        zotero.execute("PRAGMA wal_autocheckpoint = 0")
        add_item(zotero, "ITEM0001", fields={"title": "Before"})
        add_item(zotero, "ITEM0002", fields={"title": "Only in the WAL"})
        edit_field(zotero, "ITEM0001", "title", "Edited in the WAL")
        wal = zdir / "zotero.sqlite-wal"
        assert wal.stat().st_size > 0
        before = _hashes(zdir)
        immutable = sqlite3.connect(f"file:{zdir / 'zotero.sqlite'}?immutable=1", uri=True)
        seen_immutable = immutable.execute("SELECT count(*) FROM items").fetchone()[0]
        immutable.close()
        assert seen_immutable == 0  # what immutable=1 sees: the WAL's items are missed

        items = _by_key(read_library(zdir))
        assert items["ITEM0002"].record["title"] == "Only in the WAL"
        assert items["ITEM0001"].record["title"] == "Edited in the WAL"
        assert _hashes(zdir) == before
        assert not (zdir / "zotero.sqlite-journal").exists()
    finally:
        zotero.close()


@pytest.mark.parametrize("journal_mode", ["delete", "wal"])
def test_an_exclusive_lock_is_never_waited_on(
    tmp_path: Path, schema_dir: Path, journal_mode: str
) -> None:
    zdir = make_zotero_dir(tmp_path, schema_dir, journal_mode=journal_mode)
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", fields={"title": "Committed"})
    zotero = connect(zdir)
    sleeps: list[float] = []
    try:
        zotero.execute("PRAGMA locking_mode = EXCLUSIVE")
        zotero.execute("BEGIN EXCLUSIVE")
        add_item(zotero, "ITEM0002", fields={"title": "Not committed"})
        blocked = sqlite3.connect(zdir / "zotero.sqlite", timeout=0)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            blocked.execute("SELECT count(*) FROM items").fetchone()  # what others meet
        blocked.close()

        result: list[ZoteroLibrary] = []
        thread = threading.Thread(
            target=lambda: result.append(
                read_library(zdir, snapshot=lambda d: ZoteroSnapshot(d, sleep=_no_sleep(sleeps)))
            ),
            daemon=True,
        )
        thread.start()
        thread.join(120)  # only against a hang: a reader that waits on the lock waits forever
        assert not thread.is_alive(), "the snapshot waited on Zotero's lock"
        assert sleeps == []  # taken at the first attempt: no retry, no wait
        assert [i.key for i in result[0].items] == ["ITEM0001"]  # the committed state
    finally:
        zotero.execute("ROLLBACK")
        zotero.close()


_CRASH = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size = 1")  # spill pages to the database before the commit
conn.execute("BEGIN")
for i in range(300):
    conn.execute("INSERT INTO settings (setting, key, value) VALUES ('crash', ?, ?)",
                 (str(i), 'x' * 500))
conn.execute("UPDATE itemDataValues SET value = 'HALF-WRITTEN' WHERE value = 'Committed'")
os._exit(0)  # killed mid-transaction: the -journal stays hot, the database half-written
"""


def test_a_hot_journal_is_rolled_back_in_the_copy_only(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", fields={"title": "Committed"})
    committed = (zdir / "zotero.sqlite").read_bytes()
    subprocess.run([sys.executable, "-c", _CRASH, str(zdir / "zotero.sqlite")], check=True)
    assert (zdir / "zotero.sqlite").read_bytes() != committed  # pages written, not committed
    journal = zdir / "zotero.sqlite-journal"
    assert snapshot_module.journal_is_hot(journal)
    before = _hashes(zdir)
    sleeps: list[float] = []
    snap = ZoteroSnapshot(zdir, sleep=_no_sleep(sleeps))
    library = read_library(zdir, snapshot=lambda d: snap)
    assert library.items[0].record["title"] == "Committed"  # the last committed state
    assert snap.rolled_back_journal and snap.retries == 2 and len(sleeps) == 2
    assert _hashes(zdir) == before  # the hot journal is still there, untouched


@pytest.mark.parametrize("content", [b"", b"\x00" * 512])
def test_a_stale_journal_is_not_hot(zdir: Path, content: bytes) -> None:
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", fields={"title": "x"})
    (zdir / "zotero.sqlite-journal").write_bytes(content)  # a leftover committed to a repo
    (zdir / "zotero.sqlite.bak").write_bytes(b"not read")
    sleeps: list[float] = []
    snap = ZoteroSnapshot(zdir, sleep=_no_sleep(sleeps))
    assert len(read_library(zdir, snapshot=lambda d: snap).items) == 1
    assert sleeps == [] and not snap.rolled_back_journal


def test_a_torn_copy_is_retried(zdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_db(zdir) as db:
        add_item(db, "ITEM0001", fields={"title": "x"})
    real_copy = snapshot_module._copy
    writes = {"left": 2}

    def copy_while_zotero_writes(source: Path, target: Path, max_bytes: int) -> None:
        real_copy(source, target, max_bytes)
        if writes["left"] and source.name == "zotero.sqlite":
            writes["left"] -= 1
            stat = source.stat()
            os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))

    monkeypatch.setattr(snapshot_module, "_copy", copy_while_zotero_writes)
    sleeps: list[float] = []
    snap = ZoteroSnapshot(zdir, sleep=_no_sleep(sleeps))
    assert len(read_library(zdir, snapshot=lambda d: snap).items) == 1
    assert snap.retries == 2 and sleeps == [0.05, 0.1]

    writes["left"] = 99
    sleeps.clear()
    with pytest.raises(ParseError, match=r"consistent copy .* 3 attempts"):
        read_library(
            zdir, snapshot=lambda d: ZoteroSnapshot(d, attempts=3, sleep=_no_sleep(sleeps))
        )
    assert len(sleeps) == 2


def test_a_damaged_database_is_a_clear_error(zdir: Path) -> None:
    with open_db(zdir) as db:
        add_many(db, 50)
    data = bytearray((zdir / "zotero.sqlite").read_bytes())
    page = 4096
    for offset in range(page * 5, len(data) - page, page * 3):
        data[offset + 10 : offset + 400] = os.urandom(390)
    (zdir / "zotero.sqlite").write_bytes(bytes(data))
    sleeps: list[float] = []
    with pytest.raises((ParseError, ConfigurationError)) as caught:
        read_library(zdir, snapshot=lambda d: ZoteroSnapshot(d, sleep=_no_sleep(sleeps)))
    assert "zotero.sqlite" in caught.value.message


def test_the_private_copy_is_removed(zdir: Path, tmp_path: Path) -> None:
    temp_root = tmp_path / "snapshots"
    temp_root.mkdir()
    with ZoteroSnapshot(zdir, temp_root=temp_root) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0
        assert len(list(temp_root.iterdir())) == 1
    assert list(temp_root.iterdir()) == []
    with pytest.raises(ZeroDivisionError), ZoteroSnapshot(zdir, temp_root=temp_root):
        raise ZeroDivisionError
    assert list(temp_root.iterdir()) == []


# -- what is refused ------------------------------------------------------------------------
@pytest.mark.parametrize(("version", "word"), [(111, "older"), (77, "older"), (130, "newer")])
def test_unsupported_schema_versions_are_refused(zdir: Path, version: int, word: str) -> None:
    with open_db(zdir) as db:
        set_schema_version(db, version)
    with pytest.raises(ConfigurationError) as caught:
        read_library(zdir)
    assert caught.value.code == "configuration_error"
    assert f"userdata {version}, {word}" in caught.value.message
    assert "120-129" in caught.value.message


def test_what_is_not_a_zotero_database(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no Zotero database"):
        read_library(tmp_path / "nowhere")
    text = tmp_path / "text"
    text.mkdir()
    (text / "zotero.sqlite").write_text("hello, not a database")
    with pytest.raises(ConfigurationError, match="not a SQLite database"):
        read_library(text)
    other = tmp_path / "other"
    other.mkdir()
    conn = sqlite3.connect(other / "zotero.sqlite")
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(ConfigurationError, match="not a Zotero database"):
        read_library(other)
    conn = sqlite3.connect(other / "zotero.sqlite")
    conn.execute("CREATE TABLE version (schema TEXT, version INT)")
    conn.execute("INSERT INTO version VALUES ('userdata', 125)")
    conn.commit()
    conn.close()
    with pytest.raises(ConfigurationError, match="lacks the table"):
        read_library(other)


# -- work done (seconds: bench/bench_zotero_read.py) -------------------------------------
def _read_counting(data_dir: Path) -> tuple[ZoteroLibrary, int, int]:
    """The library, the SQL statements its reading ran and the function calls it made."""
    statements: list[str] = []

    class Traced(ZoteroSnapshot):
        def open(self) -> sqlite3.Connection:
            conn = super().open()
            conn.set_trace_callback(statements.append)
            return conn

    library: list[ZoteroLibrary] = []
    made = calls(lambda: library.append(read_library(data_dir, snapshot=Traced)))
    return library[0], len(statements), made


def test_reading_costs_a_fixed_number_of_queries_and_linear_work(
    tmp_path: Path, schema_dir: Path
) -> None:
    """A thousand items are read with as many SQL statements as ten (no query per item),
    and eight times the items cost about eight times the calls and the CPU (nothing
    quadratic, in Python or inside C)."""
    sizes, folders = {}, {}
    for count in (10, 125, 1000):
        data_dir = folders[count] = make_zotero_dir(tmp_path, schema_dir, name=f"z{count}")
        with open_db(data_dir) as db:
            keys = add_many(db, count)
        library, statements, made = _read_counting(data_dir)
        assert [i.key for i in library.items] == keys
        assert library.items[0].record["authors"] == ["Ada Author0", "Bob Second"]
        sizes[count] = (statements, made)
    assert sizes[1000][0] == sizes[10][0], sizes
    assert sizes[1000][1] / sizes[125][1] < 12, sizes  # linear: about 8
    assert cpu_growth(lambda count: read_library(folders[count]), 125, factor=8) < 24
