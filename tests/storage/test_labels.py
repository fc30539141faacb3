"""Collections and tags (storage/labels.py): kept per source, matched case-insensitively,
subcollections included, tags narrowing; the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from prioris.errors import NotFoundError
from prioris.storage import labels as label_store
from prioris.storage.chunks import delete_chunks_of


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


def label(
    library: Any,
    work_id: str,
    source: str,
    collections: Sequence[str] = (),
    tags: Sequence[str] = (),
) -> bool:
    """set_labels in a transaction of its own, as the sync will call it."""
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        try:
            changed = label_store.set_labels(
                library.conn, work_id, source, collections=collections, tags=tags
            )
            library.conn.execute("COMMIT")
        except BaseException:
            library.conn.execute("ROLLBACK")
            raise
    return changed


@pytest.fixture
def stocked(library):  # type: ignore[no-untyped-def]
    library.import_records(
        [{"_id": w, "title": f"Paper {w}", "text": f"words of {w}"} for w in "abcde"]
    )
    label(library, "a", "zotero", ["Thesis", "Thesis / Chapter 2"], ["ML", "to-read"])
    label(library, "b", "zotero", ["Thesis / Chapter 2 / Figures"], ["ml"])
    label(library, "c", "zotero", ["Reading / Chapter 2"], ["Ökologie", "to-read"])
    label(library, "d", "bibtex", ["Other"], ["ÖKOLOGIE"])
    return library


def works_in(library: Any, **filters: Sequence[str]) -> set[str] | None:
    with library.lock:
        return label_store.works_in(library.conn, **filters)


def test_set_labels_replaces_one_source_and_reports_changes(stocked) -> None:  # type: ignore[no-untyped-def]
    lib = stocked
    assert label(lib, "a", "bibtex", ["Imported"], ["from-bib"]) is True
    assert label(lib, "a", "bibtex", ["Imported"], ["from-bib"]) is False  # unchanged
    assert label(lib, "a", "bibtex", [" Imported ", "Imported", ""], ["from-bib"]) is False
    with lib.lock:
        got = label_store.labels_of(lib.conn, "a")
    assert got == {
        "collections": ["Imported", "Thesis", "Thesis / Chapter 2"],
        "tags": ["from-bib", "ML", "to-read"],
    }
    assert label(lib, "a", "zotero", ["Thesis"], []) is True  # zotero's replaced, bibtex stays
    with lib.lock:
        assert label_store.labels_of(lib.conn, "a") == {
            "collections": ["Imported", "Thesis"],
            "tags": ["from-bib"],
        }
        label_store.remove_labels(lib.conn, "a", "bibtex")
        assert label_store.labels_of(lib.conn, "a") == {"collections": ["Thesis"], "tags": []}
        assert label_store.labels_of(lib.conn, "e") == {"collections": [], "tags": []}
    with pytest.raises(NotFoundError):
        label(lib, "nope", "zotero", ["X"], [])


def test_labels_of_many_dedups_case_insensitively_in_one_answer(stocked) -> None:  # type: ignore[no-untyped-def]
    label(stocked, "a", "bibtex", ["thesis"], ["ml", "Ml"])
    with stocked.lock:
        many = label_store.labels_of_many(stocked.conn, ["a", "b", "e", "a"])
    assert list(many) == ["a", "b", "e"]
    assert many["a"]["collections"] == ["Thesis", "Thesis / Chapter 2"]  # first spelling
    assert many["a"]["tags"] == ["ML", "to-read"]
    assert many["b"] == {"collections": ["Thesis / Chapter 2 / Figures"], "tags": ["ml"]}
    assert many["e"] == {"collections": [], "tags": []}


def test_collection_matches_path_last_segments_and_subcollections(stocked) -> None:  # type: ignore[no-untyped-def]
    lib = stocked
    assert works_in(lib) is None  # no filter
    assert works_in(lib, collections=["Thesis"]) == {"a", "b"}  # subcollections included
    assert works_in(lib, collections=["thesis / chapter 2"]) == {"a", "b"}
    assert works_in(lib, collections=["Thesis/Chapter 2/figures"]) == {"b"}  # spacing
    # the last segment: both "Chapter 2" collections, and the one below one of them
    assert works_in(lib, collections=["CHAPTER 2"]) == {"a", "b", "c"}
    assert works_in(lib, collections=["Figures"]) == {"b"}
    assert works_in(lib, collections=["Chapter"]) == set()  # whole segments only
    assert works_in(lib, collections=["Other", "Figures"]) == {"b", "d"}  # any of them
    assert works_in(lib, collections=["No such"]) == set()  # nothing, not an error


def test_tags_narrow_and_fold_unicode_case(stocked) -> None:  # type: ignore[no-untyped-def]
    lib = stocked
    assert works_in(lib, tags=["ml"]) == {"a", "b"}
    assert works_in(lib, tags=["ökologie"]) == {"c", "d"}  # Unicode folding on both engines
    assert works_in(lib, tags=["to-read", "ML"]) == {"a"}  # all of them
    assert works_in(lib, tags=["to-read", "unknown"]) == set()
    assert works_in(lib, collections=["Chapter 2"], tags=["to-read"]) == {"a", "c"}
    assert works_in(lib, collections=["Thesis"], tags=["Ökologie"]) == set()


def test_counts_for_facets(stocked) -> None:  # type: ignore[no-untyped-def]
    with stocked.lock:
        collections = label_store.collection_counts(stocked.conn)
        tags = label_store.tag_counts(stocked.conn)
    assert collections == [
        ("Other", 1),
        ("Reading", 1),  # a parent with no work of its own
        ("Reading / Chapter 2", 1),
        ("Thesis", 2),
        ("Thesis / Chapter 2", 2),
        ("Thesis / Chapter 2 / Figures", 1),
    ]
    assert tags == [("ML", 2), ("to-read", 2), ("ÖKOLOGIE", 2)]
    label(stocked, "a", "bibtex", [], ["ml"])  # a second spelling on a work that has one
    with stocked.lock:
        assert label_store.tag_counts(stocked.conn)[0] == ("ML", 2)  # a counted once


def test_unmatched_names_get_a_hint(stocked) -> None:  # type: ignore[no-untyped-def]
    with stocked.lock:
        missing = label_store.unmatched(
            stocked.conn, collections=["Thesis", "Thesys"], tags=["to-reed", "ml"]
        )
        segment = label_store.unmatched(stocked.conn, collections=["Figure"])  # a last part
    assert segment["collections"] == ["no collection 'Figure'; did you mean 'Figures'?"]
    assert missing == {
        "collections": ["no collection 'Thesys'; did you mean 'Thesis'?"],
        "tags": ["no tag 'to-reed'; did you mean 'to-read'?"],
    }


def test_deleting_a_work_drops_its_labels(stocked) -> None:  # type: ignore[no-untyped-def]
    stocked.delete(["a"])
    q = stocked.conn.execute
    assert q("SELECT count(*) FROM work_collections WHERE work_id = 'a'").fetchone()[0] == 0
    assert q("SELECT count(*) FROM work_tags WHERE work_id = 'a'").fetchone()[0] == 0
    assert works_in(stocked, collections=["Thesis"]) == {"b"}


def test_the_cascade_drops_labels_with_the_works_row(stocked) -> None:  # type: ignore[no-untyped-def]
    """Whoever deletes the works row alone (a future path) leaves no label behind."""
    with stocked.lock:
        conn = stocked.conn
        conn.execute("BEGIN IMMEDIATE")
        delete_chunks_of(conn, "b")
        for table in ("aliases", "pages", "documents", "work_records"):
            conn.execute(f"DELETE FROM {table} WHERE work_id = 'b'")
        conn.execute("DELETE FROM works WHERE id = 'b'")
        conn.execute("COMMIT")
        assert conn.execute("SELECT count(*) FROM work_tags WHERE work_id = 'b'").fetchone()[0] == 0
        assert (
            conn.execute("SELECT count(*) FROM work_collections WHERE work_id = 'b'").fetchone()[0]
            == 0
        )
