"""The curated record wins (issue 39): a reference manager's fields outrank the printed
page and the PDF's metadata in every merge, on both engines, whatever their script or
length, after import, a re-sync, a reindex, ``ingest --force`` and re-reading references.

The item's title is Chinese; its PDF prints (and names in its Info dictionary) an English
title: the work keeps the Chinese one through every path that writes a work's fields.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from prioris.refman.items import PDF, RefAttachment, RefItem

from pdf_factory import make_text_pdf

CHINESE = "基于深度学习的长江流域鸬鹚迁徙模式研究：二十年观测数据的综合分析"
ENGLISH = "Cormorant Migration"  # the printed page's own (shorter, truncated) title
AUTHORS = ["王小明", "李华"]


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def _pdf(tmp: Path) -> Path:
    return make_text_pdf(
        tmp / "files" / "paper.pdf",
        ENGLISH,
        [f"{ENGLISH}. Cormorants cross the Yangtze basin each spring in large flocks."],
        author="John Printed",
    )


def _assert_curated(library, ref: str, origin: str) -> None:  # type: ignore[no-untyped-def]
    work = library.get_work(ref)
    assert work.title == CHINESE
    assert work.origins["title"] == origin
    assert work.authors == AUTHORS
    assert work.origins["authors"] == origin
    view = library.work_fields(work.id)
    assert view["title"] == CHINESE and view["origins"]["title"] == origin
    # what search, show and an export show is the same record
    hits = library.search("Yangtze cormorants", mode="fts", k=3).hits
    assert hits and hits[0].id == work.id and hits[0].title == CHINESE
    assert CHINESE in library.export([work.id], "bibtex")


def test_a_zotero_items_chinese_title_outlives_the_english_printed_one(library, tmp_path):
    pdf = _pdf(tmp_path)
    zotero = RefItem(
        source="zotero",
        key="ZH000001",
        record={"title": CHINESE, "authors": AUTHORS, "year": 2021, "type": "article-journal"},
        version="1",
        attachments=(RefAttachment(key="AZH1", content_type=PDF, path=pdf),),
    )
    report = library.refsync.sync("zotero", [zotero], complete=True)
    assert report.files_ingested == 1
    _assert_curated(library, "zotero:ZH000001", "zotero")
    # the same sync again, and a later version of the item that changes another field
    library.refsync.sync("zotero", [zotero], complete=True)
    _assert_curated(library, "zotero:ZH000001", "zotero")
    changed = dataclasses.replace(zotero, version="2", record={**zotero.record, "year": 2022})
    library.refsync.sync("zotero", [changed], complete=True)
    _assert_curated(library, "zotero:ZH000001", "zotero")
    # the PDF parsed again, the index rebuilt, the references read again
    library.ingest_paths([pdf], force=True)
    _assert_curated(library, "zotero:ZH000001", "zotero")
    library.reindex()
    library.reread_references()
    _assert_curated(library, "zotero:ZH000001", "zotero")
    # the PDF dropped in alone (as a watched folder would) joins the same work
    library.ingest_paths([pdf])
    _assert_curated(library, "zotero:ZH000001", "zotero")


def test_a_bibtex_entrys_chinese_title_outlives_the_english_printed_one(library, tmp_path):
    pdf = _pdf(tmp_path)
    bib = tmp_path / "library.bib"
    entry = (
        "@article{wang2021,\n"
        f"  title = {{{CHINESE}}},\n"
        f"  author = {{{AUTHORS[0]} and {AUTHORS[1]}}},\n"
        "  year = {2021},\n"
        "  file = {paper.pdf:files/paper.pdf:application/pdf},\n"
        "}\n"
    )
    bib.write_text(entry, encoding="utf-8")
    report = library.import_references(bib)
    assert report["files_ingested"] == 1, report
    _assert_curated(library, "bibtex:wang2021", "bibtex")
    library.import_references(bib)  # re-sync, unchanged
    _assert_curated(library, "bibtex:wang2021", "bibtex")
    bib.write_text(entry.replace("2021}", "2020}"), encoding="utf-8")
    library.import_references(bib)  # re-sync, the entry changed
    _assert_curated(library, "bibtex:wang2021", "bibtex")
    library.ingest_paths([pdf], force=True)
    _assert_curated(library, "bibtex:wang2021", "bibtex")
    library.reindex()
    library.reread_references()
    _assert_curated(library, "bibtex:wang2021", "bibtex")


def test_a_pdf_ingested_before_the_sync_takes_the_managers_record(library, tmp_path):
    """The order of arrival does not matter: a PDF already in the library (its printed
    title stored) takes the reference manager's record once the item is synced."""
    pdf = _pdf(tmp_path)
    library.ingest_paths([pdf])
    zotero = RefItem(
        source="zotero",
        key="ZH000002",
        record={"title": CHINESE, "authors": AUTHORS, "year": 2021},
        version="1",
        attachments=(RefAttachment(key="AZH2", content_type=PDF, path=pdf),),
    )
    library.refsync.sync("zotero", [zotero], complete=True)
    _assert_curated(library, "zotero:ZH000002", "zotero")
    assert len(library.list_works()) == 1
    library.ingest_paths([pdf], force=True)
    _assert_curated(library, "zotero:ZH000002", "zotero")


def test_a_real_zotero_database_keeps_its_chinese_title(library, tmp_path):
    """Through Zotero's own schema and the reader: a journal article with a Chinese title
    (and an English short title) and a PDF printing an English one."""
    from refman.zotero_factory import add_attachment, add_item, make_zotero_dir, open_db

    from conftest import shared_path

    data_dir = make_zotero_dir(tmp_path / "zotero", shared_path("fixtures", "zotero", "schema"))
    with open_db(data_dir) as db:
        add_item(
            db,
            "ITEMZHZH",
            "journalArticle",
            {"title": CHINESE, "shortTitle": "鸬鹚迁徙", "date": "2021", "language": "zh"},
            creators=[("小明", "王", "author"), ("华", "李", "author")],
        )
        add_attachment(db, data_dir, "ATTZHZHZ", "ITEMZHZH", content=_pdf(tmp_path).read_bytes())
    library.zotero_sync(data_dir)
    work = library.get_work("zotero:ITEMZHZH")
    assert work.title == CHINESE and work.origins["title"] == "zotero"
    library.zotero_sync(data_dir)
    library.reindex()
    assert library.get_work("zotero:ITEMZHZH").title == CHINESE
