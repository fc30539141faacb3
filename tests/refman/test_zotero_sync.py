"""``zotero sync`` end to end: real Zotero data directories and databases built from
Zotero's own schema, changed through SQL the way Zotero writes (an addition, an edit, a
move, a trash, an erase), through the Library, the CLI, MCP and the web app.

Zotero's files must be byte-identical after every run; the counts must say what changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from pathlib import Path

import pytest

from prioris.errors import ConfigurationError, NotFoundError
from refman.zotero_factory import (
    add_annotation,
    add_attachment,
    add_collection,
    add_item,
    add_many,
    add_note,
    edit_field,
    erase,
    make_zotero_dir,
    move,
    open_db,
    set_schema_version,
    trash,
)

from conftest import shared_path
from pdf_factory import make_text_pdf


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def schema_dir() -> Path:
    return shared_path("fixtures", "zotero", "schema")


def _pdf_bytes(tmp: Path, title: str, body: str) -> bytes:
    return make_text_pdf(tmp / f"{abs(hash(title))}.pdf", title, [body]).read_bytes()


@pytest.fixture
def zotero(tmp_path: Path, schema_dir: Path) -> Path:
    """A Zotero library: two collections (one nested), three items (one with a PDF and an
    annotation, one with a child note, one metadata-only with its DOI in Extra)."""
    data_dir = make_zotero_dir(tmp_path, schema_dir)
    with open_db(data_dir) as db:
        add_collection(db, "COLLAAAA", "Thesis")
        add_collection(db, "COLLBBBB", "Chapter 2", parent="COLLAAAA")
        add_item(
            db,
            "ITEMAAAA",
            "journalArticle",
            {
                "title": "Wading birds of the delta",
                "date": "2019-03-00 March 2019",
                "publicationTitle": "Journal of Birds",
                "DOI": "10.1234/birds.1",
                "volume": "12",
                "pages": "1-20",
            },
            creators=[("Ada", "Lovelace", "author"), ("Bob", "Editor", "editor")],
            collections=["COLLBBBB"],
            tags=["birds", "delta"],
        )
        add_attachment(
            db,
            data_dir,
            "ATTAAAAA",
            "ITEMAAAA",
            file_name="birds.pdf",
            content=_pdf_bytes(
                tmp_path,
                "Wading birds (printed)",
                "Egrets and herons feed in the shallow delta water.",
            ),
        )
        add_annotation(
            db,
            "ANNOAAAA",
            "ATTAAAAA",
            text="herons feed in shallow water",
            comment="central claim",
            page_index=0,
            page_label="1",
        )
        add_item(
            db,
            "ITEMBBBB",
            "conferencePaper",
            {"title": "Counting gulls with drones", "date": "2021"},
            creators=[("Cy", "Counter", "author")],
            collections=["COLLAAAA"],
        )
        add_note(db, "NOTEBBBB", "ITEMBBBB", "<p>Read this with <b>the census</b> data.</p>")
        add_item(
            db,
            "ITEMCCCC",
            "book",
            {"title": "A Field Guide", "date": "2015", "extra": "DOI: 10.5555/guide.2015"},
        )
    return data_dir


def test_a_zotero_library_syncs_with_metadata_files_notes_and_labels(library, zotero):
    before = _hashes(zotero)
    report = library.zotero_sync(zotero)
    assert _hashes(zotero) == before  # not one byte of Zotero's files changed
    assert (report["added"], report["updated"], report["removed"], report["unchanged"]) == (
        3,
        0,
        0,
        0,
    )
    assert report["failed"] == [] and report["files_ingested"] == 1
    assert report["zotero"]["schema"]["userdata"] == 129
    birds = library.get_work("zotero:ITEMAAAA")
    assert birds.title == "Wading birds of the delta"  # Zotero's, not the printed one
    assert birds.authors == ["Ada Lovelace"]
    assert (birds.year, birds.venue, birds.volume, birds.pages) == (
        2019,
        "Journal of Birds",
        "12",
        "1-20",
    )
    assert library.resolve_work_id("doi:10.1234/birds.1") == birds.id
    assert library.resolve_work_id("doi:10.5555/guide.2015") == library.resolve_work_id(
        "zotero:ITEMCCCC"
    )
    hits = library.search("shallow delta water", mode="fts", k=3).hits
    assert hits and hits[0].id == birds.id
    notes = library.notes(birds.id)
    assert [(n["section"], n["text"], n["comment"], n["page"]) for n in notes] == [
        ("highlight", "herons feed in shallow water", "central claim", 1)
    ]
    gulls = library.resolve_work_id("zotero:ITEMBBBB")
    assert "the census" in library.notes(gulls)[0]["text"]
    # collections with their path; a parent's filter takes its subcollections in
    in_thesis = library.search("birds gulls", mode="fts", k=10, collections=["Thesis"]).hits
    assert {h.id for h in in_thesis} == {birds.id, gulls}
    in_chapter = library.search("birds gulls", mode="fts", k=10, collections=["Chapter 2"]).hits
    assert {h.id for h in in_chapter} == {birds.id}
    tagged = library.search("birds", mode="fts", k=10, tags=["delta"])
    assert {h.id for h in tagged.hits} == {birds.id}


def test_resync_follows_additions_edits_moves_trash_and_erasure(library, zotero, tmp_path):
    library.zotero_sync(zotero)
    with open_db(zotero) as db:
        add_item(db, "ITEMDDDD", "journalArticle", {"title": "New arrival", "date": "2024"})
        edit_field(db, "ITEMBBBB", "title", "Counting gulls with drones, revised")
        move(db, "ITEMCCCC", None, "COLLAAAA")
        trash(db, "ITEMAAAA")
    before = _hashes(zotero)
    report = library.zotero_sync(zotero)
    assert _hashes(zotero) == before
    assert (report["added"], report["updated"], report["removed"], report["unchanged"]) == (
        1,
        2,
        1,
        0,
    )
    assert library.get_work("zotero:ITEMBBBB").title == "Counting gulls with drones, revised"
    guide = library.resolve_work_id("zotero:ITEMCCCC")
    found = library.search("field guide", mode="fts", k=5, collections=["Thesis"]).hits
    assert [h.id for h in found] == [guide]
    assert (
        library.conn.execute("SELECT count(*) FROM works WHERE id = 'zotero:ITEMAAAA'").fetchone()[
            0
        ]
        == 0
    )  # trashed: its work (only from Zotero) is gone, with its PDF
    assert library.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
    with open_db(zotero) as db:
        erase(db, "ITEMDDDD")
    report = library.zotero_sync(zotero)
    assert (report["added"], report["updated"], report["removed"], report["unchanged"]) == (
        0,
        0,
        1,
        2,
    )


def test_a_work_fetched_or_ingested_otherwise_outlives_its_zotero_item(library, zotero, tmp_path):
    pdf = make_text_pdf(
        tmp_path / "own.pdf",
        "Counting gulls with drones",
        ["Gulls were counted from drones over three summers."],
    )
    own = library.ingest_file(pdf)
    with open_db(zotero) as db:
        edit_field(db, "ITEMBBBB", "DOI", "10.7777/gulls")
    library.edit_work(own.id, {"doi": "10.7777/gulls"})
    library.zotero_sync(zotero)
    assert library.resolve_work_id("zotero:ITEMBBBB") == own.id
    with open_db(zotero) as db:
        trash(db, "ITEMBBBB")
    report = library.zotero_sync(zotero)
    assert report["removed"] == 1 and report["kept"] == [{"key": "ITEMBBBB", "id": own.id}]
    work = library.get_work(own.id)
    assert "zotero:ITEMBBBB" not in work.aliases
    assert library.notes(own.id) == []


def test_a_running_zotero_with_a_wal_file_and_a_lock_is_read_without_waiting(
    library, tmp_path, schema_dir
):
    import sqlite3

    data_dir = make_zotero_dir(tmp_path, schema_dir, journal_mode="wal")
    with open_db(data_dir) as db:
        add_item(db, "ITEMWWWW", "journalArticle", {"title": "Before"})
    running = sqlite3.connect(data_dir / "zotero.sqlite", isolation_level=None)
    running.execute("PRAGMA wal_autocheckpoint = 0")
    add_item(running, "ITEMXXXX", "journalArticle", {"title": "Only in the WAL"})
    assert (data_dir / "zotero.sqlite-wal").stat().st_size > 0
    running.execute("BEGIN EXCLUSIVE")  # Zotero holds the database
    reports: list[dict] = []
    try:
        # in a thread only so that a reader waiting on Zotero's lock (it would wait forever)
        # fails here instead of hanging the suite
        syncing = threading.Thread(target=lambda: reports.append(library.zotero_sync(data_dir)))
        syncing.start()
        syncing.join(300)
        assert not syncing.is_alive(), "the sync waited on Zotero's lock"
    finally:
        running.execute("ROLLBACK")
        running.close()
    assert reports[0]["added"] == 2
    assert library.get_work("zotero:ITEMXXXX").title == "Only in the WAL"


def test_an_unsupported_zotero_is_a_configuration_error_naming_its_version(
    library, zotero, tmp_path
):
    with open_db(zotero) as db:
        set_schema_version(db, 77)
    with pytest.raises(ConfigurationError, match="77"):
        library.zotero_sync(zotero)
    with pytest.raises(ConfigurationError):
        library.zotero_sync(tmp_path / "no-zotero-here")


@pytest.mark.parametrize(
    "name",
    ["hsteinshiromoto-bibliography", "san7o-research-papers", "tasmimmedha-hidms-metadata-only"],
)
def test_real_zotero_libraries_sync_every_regular_item(library, tmp_path, name):
    data_dir = tmp_path / name
    shutil.copytree(shared_path("fixtures", "zotero", name), data_dir)
    truth = json.loads((data_dir / "truth.json").read_text(encoding="utf-8"))
    before = _hashes(data_dir)
    report = library.zotero_sync(data_dir, ocr_mode="never")
    assert _hashes(data_dir) == before
    keys = {item["key"] for item in truth["items"]}
    assert report["failed"] == []
    for key in keys:  # every regular item is a work with Zotero's title
        work = library.get_work(f"zotero:{key}")
        title = next(i for i in truth["items"] if i["key"] == key).get("title") or ""
        if title:
            assert work.title == " ".join(title.split())
    for deleted in truth["deleted_items"]:  # in the trash: not imported
        with pytest.raises(NotFoundError):
            library.get_work(f"zotero:{deleted['key']}")
    again = library.zotero_sync(data_dir, ocr_mode="never")
    assert again["unchanged"] == report["added"] + report["updated"]
    assert (again["added"], again["updated"], again["removed"]) == (0, 0, 0)


def test_an_unchanged_sync_of_many_items_writes_nothing(library, tmp_path, schema_dir):
    """(Its time is measured by bench/bench_zotero_sync.py, docs/benchmarks.md.)"""
    data_dir = make_zotero_dir(tmp_path, schema_dir)
    with open_db(data_dir) as db:
        add_many(db, 200)
    assert library.zotero_sync(data_dir)["added"] == 200
    state = "SELECT item_key, synced_at FROM refsync_items ORDER BY item_key"
    works = "SELECT id, updated_at FROM works ORDER BY id"
    before = (library.conn.execute(state).fetchall(), library.conn.execute(works).fetchall())
    again = library.zotero_sync(data_dir)
    assert again["unchanged"] == 200
    after = (library.conn.execute(state).fetchall(), library.conn.execute(works).fetchall())
    assert after == before


def test_watch_with_zotero_resyncs_a_real_library_when_its_database_changes(
    library, zotero, tmp_path
):
    """``prioris watch DIR --zotero`` end to end over a real Zotero database: the first sync
    at start, another after Zotero writes (events and clock are the test's)."""
    import threading

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    clock = {"now": 1000.0}
    actions = []

    def changes(stop: threading.Event):  # type: ignore[no-untyped-def]
        yield set()  # watching; the first sync runs
        with open_db(zotero) as db:  # Zotero writes an item while we watch
            add_item(db, "ITEMEEEE", "journalArticle", {"title": "Arrived while watching"})
        clock["now"] += 1
        yield set()
        clock["now"] += 6  # quiet for longer than the debounce
        yield set()

    library.watch(
        [inbox],
        stop=threading.Event(),
        on_action=actions.append,
        zotero=True,
        zotero_dir=zotero,
        changes=changes,
        clock=lambda: clock["now"],
    )
    assert [a.action for a in actions if a.action == "synced"] == ["synced", "synced"]
    assert library.get_work("zotero:ITEMEEEE").title == "Arrived while watching"
    assert library.get_work("zotero:ITEMAAAA").title == "Wading birds of the delta"


@pytest.mark.slow
def test_a_sync_killed_with_sigkill_resumes_to_the_same_library(tmp_path, schema_dir):
    """``kill -9`` in the middle of a first sync (the real CLI, the real model), then the
    same command again: every item once, the counts add up, nothing half-stored."""
    import os
    import subprocess
    import sys

    from kill_midway import kill_after

    data_dir = make_zotero_dir(tmp_path, schema_dir)
    with open_db(data_dir) as db:
        keys = add_many(db, 60)
    lib_dir = tmp_path / "lib"
    env = {**os.environ, "PRIORIS_MCP_DATA_DIR": str(lib_dir), "PRIORIS_MCP_ENRICH": "off"}
    command = [
        sys.executable,
        "-m",
        "prioris",
        "zotero",
        "sync",
        "--zotero-dir",
        str(data_dir),
        "--json",
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kill_after(process, lib_dir / "library.sqlite", 5, timeout=300)
    done = subprocess.run(command, env=env, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode()
    report = json.loads(done.stdout)
    assert report["failed"] == []
    assert report["added"] + report["updated"] + report["unchanged"] == 60
    assert report["unchanged"] >= 1  # what the killed run finished is not done again
    from prioris.engines.sqlite.connection import connect

    conn = connect(lib_dir / "library.sqlite", migrate=False)
    try:
        assert conn.execute("SELECT count(*) FROM works").fetchone()[0] == 60
        synced = conn.execute("SELECT count(*) FROM refsync_items").fetchone()[0]
        assert synced == 60
        stale = conn.execute("SELECT count(*) FROM chunks WHERE embedding_model IS NULL")
        assert stale.fetchone()[0] == 0
    finally:
        conn.close()
    assert all(k.startswith("B") for k in keys)


def test_a_still_missing_file_is_listed_on_every_sync(library, zotero):
    """Not only on the sync that first met the item: an unchanged item whose PDF is still
    missing (not synced yet, on another disk) is listed again each time, until it comes."""
    with open_db(zotero) as db:
        add_attachment(db, zotero, "ATTMISS1", "ITEMCCCC", file_name="guide.pdf", content=None)
    expected = {"key": "ITEMCCCC", "file": "ATTMISS1", "reason": "file not found"}
    first = library.zotero_sync(zotero)
    assert [m | {"reason": m["reason"][:14]} for m in first["files_missing"]] == [expected]
    for _ in range(2):
        again = library.zotero_sync(zotero)
        assert again["unchanged"] == 3 and again["added"] == again["updated"] == 0
        assert again["files_missing"] == first["files_missing"]
    # the file arrives: ingested, and no longer listed
    (zotero / "storage" / "ATTMISS1").mkdir(parents=True)
    shutil.copy(
        make_text_pdf(zotero.parent / "guide.pdf", "A Field Guide", ["Birds of the coast."]),
        zotero / "storage" / "ATTMISS1" / "guide.pdf",
    )
    arrived = library.zotero_sync(zotero)
    assert arrived["files_missing"] == [] and arrived["files_ingested"] == 1
    assert library.zotero_sync(zotero)["files_missing"] == []


def test_a_kept_work_gives_back_every_field_zotero_gave_it(library, zotero, tmp_path):
    """docs/usage.md, Re-sync: a work that also came from elsewhere stays when its item is
    trashed, and only what Zotero gave it is taken back: its record (so its fields are
    merged again from the sources left: here what the PDF printed), alias, notes,
    collections and tags."""
    pdf = make_text_pdf(
        tmp_path / "own.pdf",
        "Counting gulls with drones",
        ["Gulls were counted from drones over three summers."],
    )
    own = library.ingest_file(pdf)
    printed = library.get_work(own.id)
    with open_db(zotero) as db:
        edit_field(db, "ITEMBBBB", "DOI", "10.7777/gulls")
        edit_field(db, "ITEMBBBB", "title", "Gull census by drone: Zotero's title")
        edit_field(db, "ITEMBBBB", "publicationTitle", "Proceedings of Gull Counting")
        edit_field(db, "ITEMBBBB", "volume", "42")
    library.edit_work(own.id, {"doi": "10.7777/gulls"})
    library.zotero_sync(zotero)
    joined = library.get_work(own.id)
    assert joined.title == "Gull census by drone: Zotero's title"  # the manager's record won
    assert joined.venue == "Proceedings of Gull Counting" and joined.volume == "42"
    assert "zotero" in library.metadata_records(own.id)
    with open_db(zotero) as db:
        trash(db, "ITEMBBBB")
    report = library.zotero_sync(zotero)
    assert report["kept"] == [{"key": "ITEMBBBB", "id": own.id}]
    kept = library.get_work(own.id)
    assert "zotero" not in library.metadata_records(own.id)
    assert kept.title == printed.title  # merged again without Zotero's record
    assert not kept.venue and not kept.volume
    assert kept.authors == printed.authors and kept.year == printed.year
    assert "zotero:ITEMBBBB" not in kept.aliases and library.notes(own.id) == []
    fields = library.work_fields(own.id)
    assert "zotero" not in set(fields["origins"].values()), fields["origins"]
    assert fields["doi"] == "10.7777/gulls" and fields["origins"]["doi"] == "user"  # yours


def test_a_file_the_ingest_refused_is_listed_again_while_it_is_unchanged(library, zotero):
    with open_db(zotero) as db:
        add_attachment(db, zotero, "ATTBROKE", "ITEMCCCC", file_name="guide.pdf", content=b"junk")
    first = library.zotero_sync(zotero)["files_missing"]
    assert [(m["key"], m["file"]) for m in first] == [("ITEMCCCC", "ATTBROKE")]
    assert first[0]["reason"]  # the ingest's own reason
    again = library.zotero_sync(zotero)
    assert again["unchanged"] == 3 and again["files_missing"] == first
