"""The sync that stores reference-manager items (``services/refsync.py``), on both engines.

Items are built here as a reader returns them (:class:`RefItem`), so these tests pin what
the sync does with any reader: added / updated / removed / unchanged counts, provenance
(the manager above the printed page, below the user), files by content, notes as
passages, removal that never deletes what came from elsewhere, and resumption.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from prioris.refman.items import PDF, RefAttachment, RefError, RefItem, RefNote

from pdf_factory import make_text_pdf


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def item(
    key: str,
    title: str,
    *,
    tmp: Path | None = None,
    pdf_title: str | None = None,
    **changes: object,
) -> RefItem:
    """A Zotero-like item; with ``tmp`` and ``pdf_title``, a PDF attachment on disk."""
    attachments: tuple[RefAttachment, ...] = ()
    if tmp is not None and pdf_title is not None:
        path = make_text_pdf(
            tmp / "storage" / f"A{key}" / "paper.pdf",
            pdf_title,
            [f"{pdf_title}. The body of {key} talks about cormorant migration over lakes."],
        )
        attachments = (RefAttachment(key=f"A{key}", content_type=PDF, path=path),)
    record = {
        "title": title,
        "authors": ["Ada Lovelace", "Alan Turing"],
        "year": 2019,
        "venue": "Journal of Tests",
        "type": "article-journal",
    }
    base = RefItem(
        source="zotero",
        key=key,
        record=record,
        version="1",
        collections=("Thesis / Chapter 2",),
        tags=("birds",),
        attachments=attachments,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_first_sync_adds_every_item_with_its_metadata_files_and_labels(library, tmp_path):
    items = [
        item("AAAA1111", "Zotero title wins", tmp=tmp_path, pdf_title="Printed Title Loses"),
        item(
            "BBBB2222",
            "A metadata-only item",
            record={
                "title": "A metadata-only item",
                "abstract": "Herons nest in colonies.",
                "year": 2001,
                "doi": "10.1234/herons",
            },
        ),
        item(
            "CCCC3333",
            "Item whose file is gone",
            attachments=(RefAttachment("ACCCC", PDF, None, missing="file not found: x.pdf"),),
        ),
    ]
    report = library.refsync.sync("zotero", items, complete=True)
    assert (report.added, report.updated, report.removed, report.unchanged) == (3, 0, 0, 0)
    assert report.failed == []
    assert report.files_ingested == 1
    assert report.files_missing == [
        {"key": "CCCC3333", "file": "ACCCC", "reason": "file not found: x.pdf"}
    ]
    first = library.get_work("zotero:AAAA1111")
    assert first.title == "Zotero title wins"
    assert first.origins["title"] == "zotero"
    assert first.authors == ["Ada Lovelace", "Alan Turing"]
    fields = library.work_fields(first.id)
    assert fields["origins"]["title"] == "zotero"
    # the PDF is the work's text: searchable
    hits = library.search("cormorant migration", mode="fts", k=5).hits
    assert hits and hits[0].id == first.id
    # the metadata-only item is found by its abstract, and by its DOI
    second = library.get_work("doi:10.1234/herons")
    assert second.id == library.resolve_work_id("zotero:BBBB2222")
    hits = library.search("herons colonies", mode="fts", k=5).hits
    assert hits and hits[0].id == second.id
    # the item without its file is stored with its metadata
    assert library.get_work("zotero:CCCC3333").title == "Item whose file is gone"


def test_unchanged_sync_changes_nothing_and_an_edit_updates_only_its_work(library, tmp_path):
    items = [
        item("AAAA1111", "First", tmp=tmp_path, pdf_title="First printed"),
        item("BBBB2222", "Second"),
    ]
    library.refsync.sync("zotero", items, complete=True)
    before = library.conn.execute("SELECT id, updated_at FROM works ORDER BY id").fetchall()
    chunks = library.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    report = library.refsync.sync("zotero", items, complete=True)
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, 2)
    assert report.files_ingested == 0
    assert library.conn.execute("SELECT id, updated_at FROM works ORDER BY id").fetchall() == before
    assert library.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == chunks

    edited = [
        items[0],
        dataclasses.replace(
            items[1],
            record={**items[1].record, "title": "Second, corrected in Zotero"},
            version="2",
        ),
    ]
    report = library.refsync.sync("zotero", edited, complete=True)
    assert (report.added, report.updated, report.unchanged) == (0, 1, 1)
    assert library.get_work("zotero:BBBB2222").title == "Second, corrected in Zotero"
    # a metadata-only work's text follows its record
    hits = library.search("corrected", mode="fts", k=5).hits
    assert hits and hits[0].id == library.resolve_work_id("zotero:BBBB2222")


def test_the_users_edit_in_prioris_wins_over_a_later_zotero_edit(library):
    library.refsync.sync("zotero", [item("AAAA1111", "From Zotero")], complete=True)
    work_id = library.resolve_work_id("zotero:AAAA1111")
    library.edit_work(work_id, {"title": "The user's title"})
    changed = item("AAAA1111", "From Zotero, edited", version="2")
    report = library.refsync.sync("zotero", [changed], complete=True)
    assert report.updated == 1
    work = library.get_work(work_id)
    assert work.title == "The user's title"
    assert work.origins["title"] == "user"
    # the Zotero record is kept underneath: undo brings it back
    library.undo_edit(work_id)
    assert library.get_work(work_id).title == "From Zotero, edited"


def test_a_doi_joins_the_item_with_a_work_already_in_the_library(library):
    library.import_records(
        [
            {
                "id": "doi:10.5555/joined",
                "title": "Known already",
                "text": "Stored before Zotero was synced.",
            }
        ]
    )
    known = library.resolve_work_id("doi:10.5555/joined")
    joined = item(
        "DDDD4444",
        "Known already (Zotero)",
        record={"title": "Known already (Zotero)", "doi": "10.5555/JOINED"},
    )
    report = library.refsync.sync("zotero", [joined], complete=True)
    assert report.added == 0 and report.updated == 1
    assert library.resolve_work_id("zotero:DDDD4444") == known
    assert library.get_work(known).title == "Known already (Zotero)"
    assert library.conn.execute("SELECT count(*) FROM works").fetchone()[0] == 1


def test_a_deleted_item_removes_its_work_unless_it_came_from_elsewhere_too(library, tmp_path):
    library.import_records([{"id": "doi:10.5555/kept", "title": "Also imported", "text": "x"}])
    items = [
        item("AAAA1111", "Only in Zotero", tmp=tmp_path, pdf_title="Only in Zotero"),
        item(
            "EEEE5555", "Also elsewhere", record={"title": "Also elsewhere", "doi": "10.5555/kept"}
        ),
        item("FFFF6666", "Stays"),
    ]
    library.refsync.sync("zotero", items, complete=True)
    kept_id = library.resolve_work_id("doi:10.5555/kept")
    only_id = library.resolve_work_id("zotero:AAAA1111")
    report = library.refsync.sync("zotero", [items[2]], complete=True)
    assert (report.removed, report.unchanged) == (2, 1)
    assert report.kept == [{"key": "EEEE5555", "id": kept_id}]
    assert library.conn.execute("SELECT 1 FROM works WHERE id = ?", (only_id,)).fetchone() is None
    kept = library.get_work(kept_id)
    assert kept.title == "Also imported"  # the Zotero record is gone, the import's stays
    assert "zotero:EEEE5555" not in kept.aliases
    assert (
        library.conn.execute(
            "SELECT count(*) FROM refsync_items WHERE scope = 'zotero'"
        ).fetchone()[0]
        == 1
    )
    # an item that failed to read is never taken for a deletion
    report = library.refsync.sync(
        "zotero", [], errors=[RefError("FFFF6666", "unreadable")], complete=True
    )
    assert report.removed == 0
    assert library.get_work("zotero:FFFF6666").title == "Stays"


def test_notes_and_highlights_are_passages_marked_as_the_users_with_their_page(library, tmp_path):
    notes = (
        RefNote(
            kind="highlight",
            text="egrets forage at dawn",
            comment="key finding",
            color="#ffd400",
            page_label="3",
            page=1,
            key="N1",
        ),
        RefNote(kind="note", text="Compare with the heron census of 2001.", key="N2"),
    )
    annotated = item(
        "AAAA1111", "Annotated", tmp=tmp_path, pdf_title="Annotated paper", notes=notes
    )
    library.refsync.sync("zotero", [annotated], complete=True)
    work_id = library.resolve_work_id("zotero:AAAA1111")
    stored = library.notes(work_id)
    assert [(n["section"], n["text"], n["page"]) for n in stored] == [
        ("note", "Compare with the heron census of 2001.", None),
        ("highlight", "egrets forage at dawn", 1),
    ]
    for mode in ("fts", "vector", "hybrid"):
        hits = library.search("egrets forage at dawn", mode=mode, k=10).hits
        marked = [h for h in hits if h.section == "highlight"]
        assert marked, mode
        assert marked[0].id == work_id and marked[0].page_start == 1
    hits = library.search("heron census", mode="fts", k=5).hits
    assert hits[0].section == "note"
    # parsing the text again keeps the notes' passages
    library.ingest_paths([tmp_path / "storage" / "AAAA1111"], force=True)
    hits = library.search("egrets forage", mode="fts", k=5).hits
    assert any(h.section == "highlight" for h in hits)
    # a note removed in Zotero leaves the library
    report = library.refsync.sync(
        "zotero", [dataclasses.replace(annotated, notes=notes[:1])], complete=True
    )
    assert report.updated == 1
    assert [n["key"] for n in library.notes(work_id)] == ["N1"]
    assert not [
        h for h in library.search("heron census", mode="fts", k=5).hits if h.section == "note"
    ]


def test_collections_and_tags_follow_the_item(library):
    library.refsync.sync("zotero", [item("AAAA1111", "Labelled")], complete=True)
    work_id = library.resolve_work_id("zotero:AAAA1111")
    from prioris.storage.labels import labels_of

    assert labels_of(library.conn, work_id) == {
        "collections": ["Thesis / Chapter 2"],
        "tags": ["birds"],
    }
    moved = item("AAAA1111", "Labelled", collections=("Reading list",), tags=("birds", "lakes"))
    assert library.refsync.sync("zotero", [moved], complete=True).updated == 1
    assert labels_of(library.conn, work_id) == {
        "collections": ["Reading list"],
        "tags": ["birds", "lakes"],
    }
    found = library.search("Labelled", mode="fts", k=5, collections=["Reading list"]).hits
    assert found and found[0].id == work_id


def test_a_sync_killed_midway_resumes_without_duplicates(library, tmp_path, monkeypatch):
    items = [
        item(f"K{n:07d}", f"Paper {n}", tmp=tmp_path, pdf_title=f"Paper {n}") for n in range(4)
    ]
    calls = {"n": 0}
    real = library.refsync.ingest_pdf

    def dies_on_the_third(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(library.refsync, "ingest_pdf", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        library.refsync.sync("zotero", items, complete=True)
    monkeypatch.setattr(library.refsync, "ingest_pdf", real)
    report = library.refsync.sync("zotero", items, complete=True)
    assert report.added + report.updated + report.unchanged == 4
    assert report.unchanged == 2 and report.failed == []
    assert library.conn.execute("SELECT count(*) FROM works").fetchone()[0] == 4
    assert library.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 4


def test_a_changed_file_is_ingested_again_and_a_touched_one_is_not(library, tmp_path):
    first = item("AAAA1111", "Versioned", tmp=tmp_path, pdf_title="Version one")
    library.refsync.sync("zotero", [first], complete=True)
    path = first.attachments[0].path
    assert path is not None
    path.touch()  # same bytes, new time: hashed, not parsed again
    report = library.refsync.sync("zotero", [first], complete=True)
    assert report.files_ingested == 0 and report.updated == 1
    assert library.refsync.sync("zotero", [first], complete=True).unchanged == 1
    make_text_pdf(path, "Version two", ["Now the body speaks of kingfishers instead."])
    report = library.refsync.sync("zotero", [first], complete=True)
    assert report.files_ingested == 1
    assert library.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 2


def test_two_syncs_at_once_store_each_item_once(settings, tmp_path):
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    items = [item(f"T{n:07d}", f"Together {n}") for n in range(12)]
    libraries = [Library.open(settings, embedder=FakeEmbedder()) for _ in range(2)]
    reports: list[object] = []
    try:
        threads = [
            threading.Thread(
                target=lambda lib=lib: reports.append(lib.refsync.sync("zotero", items))
            )
            for lib in libraries
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        count = libraries[0].conn.execute("SELECT count(*) FROM works").fetchone()[0]
    finally:
        for lib in libraries:
            lib.close()
    assert count == 12
    assert all(not r.failed for r in reports)  # type: ignore[attr-defined]


def test_a_resync_keeps_the_collections_and_tags_the_user_added(library):
    """What the user adds in Prioris lives beside Zotero's labels: a re-sync replaces
    Zotero's only, and an item gone from Zotero leaves its work when the user labelled it."""
    first = [item("AAAA1111", "Kept by the user"), item("BBBB2222", "Not labelled here")]
    library.refsync.sync("zotero", first, complete=True)
    work_id = library.resolve_work_id("zotero:AAAA1111")
    other = library.resolve_work_id("zotero:BBBB2222")
    library.create_collection("Mine")
    library.add_to_collection("Mine", ["zotero:AAAA1111"])
    library.add_to_collection("Thesis / Chapter 2", ["zotero:AAAA1111"])  # Zotero's, too
    library.add_tag("starred", ["zotero:AAAA1111"])
    moved = item("AAAA1111", "Kept by the user", collections=("Reading list",), tags=("lakes",))
    assert library.refsync.sync("zotero", [moved, first[1]], complete=True).updated == 1
    assert library.labels(work_id) == {
        "collections": ["Mine", "Reading list", "Thesis / Chapter 2"],
        "tags": ["lakes", "starred"],
    }
    origins = {c["path"]: c["origins"] for c in library.list_collections()}
    assert origins["Thesis / Chapter 2"] == ["user", "zotero"]  # the other item's, Zotero's
    assert origins["Reading list"] == ["zotero"]
    # both items leave Zotero: the labelled one's work stays, with the user's labels only
    report = library.refsync.sync("zotero", [], complete=True)
    assert report.removed == 2
    assert library.get_work(work_id).id == work_id
    assert library.labels(work_id) == {
        "collections": ["Mine", "Thesis / Chapter 2"],
        "tags": ["starred"],
    }
    with pytest.raises(Exception, match="no work"):
        library.get_work(other)
    origins = {c["path"]: c["origins"] for c in library.list_collections()}
    assert origins == {"Mine": ["user"], "Thesis": ["user"], "Thesis / Chapter 2": ["user"]}
