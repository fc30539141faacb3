"""The Zotero reader on hostile databases: a small library built from Zotero's own schema
(tests/refman/zotero_factory.py), then its rows changed to odd values of any SQLite type
(control characters, NUL, huge strings, bad dates, bad JSON in annotation positions,
numbers where text belongs, cycles between collections, rows deleted) or its bytes flipped,
dropped and truncated.

What is promised (src/prioris/refman/zotero/reader.py): the reader returns a library whose
items have the types every consumer relies on, or raises a PriorisError with a stable code
(a damaged or foreign file, an unsupported schema); it never raises anything else, never
hangs, and never writes the data directory.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fuzz.mutations import mutated_bytes, outcome
from prioris.errors import PriorisError
from prioris.refman.zotero import ZoteroLibrary, ZoteroSnapshot, read_library
from refman.zotero_factory import (
    add_annotation,
    add_attachment,
    add_collection,
    add_item,
    add_note,
    make_zotero_dir,
    open_db,
    trash,
)

from conftest import shared_path

_SEEDS: dict[str, Path] = {}


def _seed() -> Path:
    """A small Zotero data directory (built once per run): every kind of row the reader
    reads, so that each mutation lands on something it uses."""
    schema_dir = shared_path("fixtures", "zotero", "schema")
    cached = _SEEDS.get(str(schema_dir))
    if cached is not None and cached.exists():
        return cached
    root = Path(tempfile.mkdtemp(prefix="prioris-fuzz-zotero-"))
    atexit.register(shutil.rmtree, root, True)
    data_dir = make_zotero_dir(root, schema_dir)
    with open_db(data_dir) as db:
        add_collection(db, "COLA0001", "Top")
        add_collection(db, "COLB0001", "Child", "COLA0001")
        add_item(
            db,
            "ITEM0001",
            "conferencePaper",
            {
                "title": "A paper",
                "date": "2019-06-15 June 15, 2019",
                "proceedingsTitle": "Proc",
                "DOI": "10.1/x",
                "extra": "arXiv: 2401.01234\nPMID: 123",
                "url": "https://arxiv.org/abs/2401.01234",
            },
            creators=[("Ada", "Lovelace", "author"), ("", "Org", "editor", 1)],
            collections=["COLB0001"],
            tags=["t1", ("auto", 1)],
        )
        add_item(db, "ITEM0002", "book", {"title": "A book", "extra": "DOI: 10.2/y"})
        add_item(db, "ITEM0003", "webpage", {"title": "Gone"})
        trash(db, "ITEM0003")
        add_attachment(db, data_dir, "ATTA0001", "ITEM0001", file_name="a; b\u00a0c.pdf")
        add_attachment(db, data_dir, "ATTA0002", "ITEM0002", link_mode=2, path="attachments:x.pdf")
        add_attachment(db, data_dir, "ATTA0003", None, file_name="alone.pdf")
        add_note(db, "NOTE0001", "ITEM0001", "<p>a <b>note</b></p>")
        add_annotation(db, "ANNO0001", "ATTA0001", text="highlight", comment="c", page_index=2)
        add_annotation(db, "ANNO0002", "ATTA0001", kind=2, text=None, comment="<b>x</b>")
        db.execute("VACUUM")
    _SEEDS[str(schema_dir)] = data_dir
    return data_dir


ODD_VALUES = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=24),
    st.text(max_size=30),
    st.sampled_from(
        [
            "",
            "\x00",
            "a\x00b",
            "\ud800",
            "x" * 200_000,
            "0000-00-00 ",
            "2024-13-45 bad",
            "9999-99-99 9999",
            "{not json",
            '{"pageIndex": 1e999}',
            '{"pageIndex": "3"}',
            '{"pageIndex": 99999999999999999999}',
            "[" * 5000,
            "storage:",
            "storage:../../../etc/passwd",
            "storage:/abs.pdf",
            "storage:C:\\x.pdf",
            "attachments:",
            "attachments:../up.pdf",
            "/",
            "../",
            "10.",
            "DOI: 10.1/\x00",
            "<script>x</script><p>&#0;&#xD800;",
            "\u202e\ufffe",
        ]
    ),
)

# (table, column) pairs the reader reads; a mutation sets one row's column to an odd value
COLUMNS = [
    ("itemDataValues", "value"),
    ("items", "key"),
    ("items", "version"),
    ("items", "dateModified"),
    ("items", "itemTypeID"),
    ("items", "libraryID"),
    ("creators", "firstName"),
    ("creators", "lastName"),
    ("creators", "fieldMode"),
    ("itemCreators", "orderIndex"),
    ("itemCreators", "creatorTypeID"),
    ("itemAttachments", "path"),
    ("itemAttachments", "linkMode"),
    ("itemAttachments", "contentType"),
    ("itemAttachments", "parentItemID"),
    ("itemNotes", "note"),
    ("itemNotes", "parentItemID"),
    ("itemAnnotations", "type"),
    ("itemAnnotations", "text"),
    ("itemAnnotations", "comment"),
    ("itemAnnotations", "color"),
    ("itemAnnotations", "pageLabel"),
    ("itemAnnotations", "sortIndex"),
    ("itemAnnotations", "position"),
    ("itemAnnotations", "parentItemID"),
    ("collections", "collectionName"),
    ("collections", "parentCollectionID"),
    ("collectionItems", "collectionID"),
    ("tags", "name"),
    ("itemTags", "type"),
    ("fieldsCombined", "fieldName"),
    ("itemTypesCombined", "typeName"),
    ("creatorTypes", "creatorType"),
    ("libraries", "type"),
    ("version", "version"),
    ("deletedItems", "itemID"),
]
DELETABLE = ["items", "itemData", "libraries", "version", "itemTypesCombined", "fieldsCombined"]


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _check(library: ZoteroLibrary) -> None:
    """The types every consumer (the sync, JSON output) relies on."""
    for item in library.items:
        assert isinstance(item.key, str) and item.key
        assert isinstance(item.version, str) and item.version
        json.dumps(item.record)  # JSON-serialisable
        for name in ("title", "venue", "published", "doi", "arxiv", "abstract", "extra"):
            value = item.record.get(name)
            assert value is None or (isinstance(value, str) and value), (name, value)
            if isinstance(value, str):
                value.encode("utf-8")  # no lone surrogates: SQLite can store it
                assert "\x00" not in value
        year = item.record.get("year")
        assert year is None or (type(year) is int and 1000 <= year <= 2999)
        assert all(isinstance(a, str) and a for a in item.record.get("authors", []))
        assert all(isinstance(c, str) and c for c in item.collections + item.tags)
        for note in item.notes:
            assert isinstance(note.text, str) and isinstance(note.comment, str)
            assert note.page is None or (type(note.page) is int and note.page >= 1)
        for attachment in item.attachments:
            assert (attachment.path is None) == bool(attachment.missing)
    for error in library.errors:
        assert isinstance(error.key, str) and isinstance(error.error, str)


def _read(data_dir: Path) -> ZoteroLibrary | PriorisError:
    before = _hashes(data_dir)
    result = outcome(
        lambda: read_library(
            data_dir,
            base_dir=data_dir / "linked",
            snapshot=lambda d: ZoteroSnapshot(d, attempts=2, sleep=lambda s: None),
        )
    )
    assert _hashes(data_dir) == before  # never writes Zotero's files, whatever they hold
    if not isinstance(result, PriorisError):
        _check(result)
    return result


@given(
    mutations=st.lists(
        st.one_of(
            st.tuples(st.just("set"), st.sampled_from(COLUMNS), st.integers(0, 40), ODD_VALUES),
            st.tuples(st.just("delete"), st.sampled_from(DELETABLE), st.integers(0, 40)),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_odd_rows_give_items_or_a_prioris_error(mutations: list[tuple[Any, ...]]) -> None:
    seed = _seed()
    work = Path(tempfile.mkdtemp(prefix="prioris-fuzz-zotero-run-"))
    try:
        data_dir = work / "Zotero"
        shutil.copytree(seed, data_dir)
        conn = sqlite3.connect(data_dir / "zotero.sqlite", isolation_level=None)
        try:
            for mutation in mutations:
                table = mutation[1][0] if mutation[0] == "set" else mutation[1]
                rowids = [r[0] for r in conn.execute(f"SELECT rowid FROM {table}")]
                if not rowids:
                    continue
                rowid = rowids[mutation[2] % len(rowids)]
                try:
                    if mutation[0] == "set":
                        value = mutation[3]
                        if isinstance(value, str):
                            value = value.encode("utf-8", "surrogatepass").decode(
                                "utf-8", "replace"
                            )
                        conn.execute(
                            f"UPDATE {table} SET {mutation[1][1]} = ? WHERE rowid = ?",
                            (value, rowid),
                        )
                    else:
                        conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
                except (sqlite3.IntegrityError, sqlite3.OperationalError):
                    continue  # a constraint or one of Zotero's triggers refused it
        finally:
            conn.close()
        _read(data_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@given(data=st.data())
def test_damaged_bytes_give_items_or_a_prioris_error(data: st.DataObject) -> None:
    seed = _seed()
    work = Path(tempfile.mkdtemp(prefix="prioris-fuzz-zotero-run-"))
    try:
        data_dir = work / "Zotero"
        shutil.copytree(seed, data_dir)
        db = data_dir / "zotero.sqlite"
        db.write_bytes(data.draw(mutated_bytes(db.read_bytes())))
        if data.draw(st.booleans()):  # a -journal or -wal of junk beside it
            name = data.draw(st.sampled_from(["zotero.sqlite-journal", "zotero.sqlite-wal"]))
            head = data.draw(st.sampled_from([b"", bytes.fromhex("d9d505f920a163d7"), b"\x00"]))
            (data_dir / name).write_bytes(head + data.draw(st.binary(max_size=2048)))
        _read(data_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
