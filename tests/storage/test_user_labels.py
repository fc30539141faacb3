"""Collections and tags made in Prioris (storage/user_labels.py through the Library): made,
renamed, deleted, works put in and taken out, beside a reference manager's labels that a
re-sync replaces without touching the user's; the search and list filters find them; a
library made before them migrates with its labels kept as imported. SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.library import Library
from prioris.storage import labels as label_store
from prioris.storage.transaction import immediate


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


def sync(
    library: Any, work_id: str, source: str, collections: Sequence[str], tags: Sequence[str]
) -> None:
    """A reference manager's labels written as its (re-)sync writes them."""
    with library.lock, immediate(library.conn):
        label_store.set_labels(library.conn, work_id, source, collections=collections, tags=tags)


@pytest.fixture
def stocked(library):  # type: ignore[no-untyped-def]
    library.import_records(
        [
            {"_id": w, "title": f"Lichen paper {w}", "text": f"lichens on bark and stone {w}"}
            for w in "abcd"
        ]
    )
    sync(library, "a", "zotero", ["Thesis", "Thesis / Chapter 2"], ["ML"])
    sync(library, "b", "zotero", ["Reading / Chapter 2"], [])
    return library


def rows(library: Any, table: str) -> set[tuple[str, str, str]]:
    column = "path" if table == "work_collections" else "tag"
    with library.lock:
        return {
            tuple(r) for r in library.conn.execute(f"SELECT work_id, source, {column} FROM {table}")
        }


def by_path(library: Any) -> dict[str, dict[str, Any]]:
    return {c["path"]: c for c in library.list_collections()}


def test_create_add_remove_beside_imported_labels_and_a_resync(stocked: Library) -> None:
    lib = stocked
    assert lib.create_collection("Field work") == {"collection": "Field work", "created": True}
    made = lib.create_collection(" Spring  2024 ", parent="field WORK")
    assert made["collection"] == "Field work / Spring 2024"
    assert by_path(lib)["Field work / Spring 2024"] == {
        "path": "Field work / Spring 2024",
        "works": 0,
        "origins": ["user"],
        "made_here": True,
    }
    with pytest.raises(InvalidRequestError, match="exists already"):
        lib.create_collection("field work / spring 2024")
    with pytest.raises(InvalidRequestError, match="exists already"):
        lib.create_collection("thesis")  # Zotero's is a collection too
    with pytest.raises(NotFoundError, match="no collection 'Nowhere'"):
        lib.create_collection("X", parent="Nowhere")
    with pytest.raises(InvalidRequestError, match="empty"):
        lib.create_collection(" / ")

    # ids in any form the library resolves; an unknown one changes nothing
    with pytest.raises(NotFoundError):
        lib.add_to_collection("Spring 2024", ["a", "zz"])
    assert by_path(lib)["Field work / Spring 2024"]["works"] == 0
    added = lib.add_to_collection("Spring 2024", ["a", "b", "a"])
    assert added == {"collection": "Field work / Spring 2024", "added": ["a", "b"], "already": []}
    assert lib.add_to_collection("spring 2024", ["b"])["already"] == ["b"]
    # the user puts a work in Zotero's collection too: a row of their own beside Zotero's
    assert lib.add_to_collection("Thesis", ["a", "c"])["added"] == ["c"]
    assert ("a", "user", "Thesis") in rows(lib, "work_collections")
    # an ambiguous last name is refused, not guessed
    with pytest.raises(InvalidRequestError, match="names 2 collections"):
        lib.add_to_collection("Chapter 2", ["c"])

    # tags: the library's spelling kept, the user's row beside Zotero's
    assert lib.add_tag("ml", ["a", "c"]) == {"tag": "ML", "added": ["c"], "already": ["a"]}
    assert lib.add_tag("to-read", ["c", "d"])["added"] == ["c", "d"]
    assert rows(lib, "work_tags") >= {
        ("a", "user", "ML"),
        ("a", "zotero", "ML"),
        ("c", "user", "ML"),
    }

    # a re-sync of Zotero replaces Zotero's labels only
    sync(lib, "a", "zotero", ["Thesis / Chapter 3"], [])
    assert lib.labels("a") == {
        "collections": ["Field work / Spring 2024", "Thesis", "Thesis / Chapter 3"],
        "tags": ["ML"],
    }
    origins = by_path(lib)
    assert origins["Thesis"]["origins"] == ["user", "zotero"]
    assert origins["Thesis / Chapter 3"]["origins"] == ["zotero"]

    # removing takes the user's rows; what Zotero gave stays and is said
    sync(lib, "d", "zotero", [], ["to-read"])
    removed = lib.remove_tag("TO-READ", ["c", "d", "b"])
    assert removed == {
        "tag": "to-read",
        "removed": ["c", "d"],
        "kept": [{"id": "d", "origins": ["zotero"]}],
        "absent": ["b"],
    }
    assert lib.labels("d")["tags"] == ["to-read"] and lib.labels("c")["tags"] == ["ML"]
    out = lib.remove_from_collection("Thesis / Chapter 3", ["a"])
    assert out["removed"] == [] and out["kept"] == [{"id": "a", "origins": ["zotero"]}]
    assert lib.remove_from_collection("Spring 2024", ["b"])["removed"] == ["b"]
    assert lib.labels("b")["collections"] == ["Reading / Chapter 2"]


def test_search_and_list_filters_find_the_users_labels(stocked: Library) -> None:
    lib = stocked
    lib.create_collection("Mine")
    assert lib.list_works(collections=["Mine"]) == []
    assert lib.unmatched_labels(collections=["Mine"]) == []  # exists, holds nothing yet
    assert lib.unmatched_labels(collections=["Mien"])  # a misspelling is still said
    lib.add_to_collection("mine", search="lichens", k=2, mode="fts")
    found = lib.list_works(collections=["MINE"])
    assert len(found) == 2 and all("Mine" in w["collections"] for w in found)
    lib.add_tag("Crustose", ["c"])
    for mode in ("fts", "vector", "hybrid"):
        hits = lib.search("lichens bark", mode=mode, k=10, tags=["crustose"]).hits
        assert [h.id for h in hits] == ["c"], mode
        hits = lib.search("lichens bark", mode=mode, k=10, collections=["mine"]).hits
        assert {h.id for h in hits} == {w["id"] for w in found}, mode
    # a work both in Zotero's collection and the user's: the filter takes either
    lib.add_to_collection("Reading / Chapter 2", ["d"])
    assert {w["id"] for w in lib.list_works(collections=["Reading"])} == {"b", "d"}


def test_rename_and_delete_follow_subcollections_and_spare_a_managers(stocked: Library) -> None:
    lib = stocked
    lib.create_collection("Projects / Moss / Plots")
    lib.add_to_collection("Projects / Moss", ["c"])
    lib.add_to_collection("Plots", ["d"])
    lib.import_records(
        [{"_id": "e", "title": "Imported", "text": "x", "collections": ["Projects"]}]
    )
    renamed = lib.rename_collection("moss", "Bryophytes")
    assert renamed == {"collection": "Projects / Moss", "renamed_to": "Projects / Bryophytes"}
    paths = by_path(lib)
    assert "Projects / Moss" not in paths and paths["Projects / Bryophytes / Plots"]["works"] == 1
    assert lib.labels("c")["collections"] == ["Projects / Bryophytes"]
    assert lib.list_works(collections=["Bryophytes"]) and not lib.list_works(collections=["Moss"])
    # a move by path; into itself is refused; onto another is refused
    assert lib.rename_collection("Bryophytes", "Archive / Moss")["renamed_to"] == "Archive / Moss"
    assert lib.labels("d")["collections"] == ["Archive / Moss / Plots"]
    with pytest.raises(InvalidRequestError, match="own subcollection"):
        lib.rename_collection("Archive", "Archive / Moss / Old")
    lib.create_collection("Other", parent="Archive")
    with pytest.raises(InvalidRequestError, match="exists already"):
        lib.rename_collection("Archive / Moss", "other")  # a sibling's name
    with pytest.raises(InvalidRequestError, match="exists already"):
        lib.rename_collection("Archive / Moss", "Projects /")  # a path: moved to the top
    # Zotero's collections are changed in Zotero
    with pytest.raises(InvalidRequestError, match="holds works from zotero"):
        lib.rename_collection("Thesis", "Dissertation")
    with pytest.raises(InvalidRequestError, match="holds works from zotero"):
        lib.delete_collection("Reading")
    # a JSONL import's collection is Prioris's own: it may go
    assert lib.delete_collection("Archive") == {"collection": "Archive", "works": 2}
    assert "Archive / Moss / Plots" not in by_path(lib) and lib.labels("d")["collections"] == []
    assert lib.delete_collection("Projects")["works"] == 1
    assert lib.get_work("e").id == "e"  # the works stay
    assert set(by_path(lib)) == {"Reading", "Reading / Chapter 2", "Thesis", "Thesis / Chapter 2"}


def test_jsonl_import_labels_are_replaced_by_a_reimport_and_keep_the_users(
    library: Library,
) -> None:
    record = {
        "_id": "w",
        "title": "Tundra",
        "text": "tundra soils",
        "collections": ["Arctic/Soils"],
    }
    summary = library.import_records([{**record, "tags": "permafrost"}])
    assert not summary.failed
    assert library.labels("w") == {"collections": ["Arctic / Soils"], "tags": ["permafrost"]}
    library.add_tag("mine", ["w"])
    library.import_records(
        [{**record, "collections": ["Arctic"]}]
    )  # same text: skipped, relabelled
    assert library.labels("w") == {"collections": ["Arctic"], "tags": ["mine", "permafrost"]}
    library.import_records([{**record, "collections": [], "tags": []}])
    assert library.labels("w") == {"collections": [], "tags": ["mine"]}
    bad = library.import_records([{**record, "_id": "v", "tags": [3]}])
    assert bad.failed and "tags" in str(bad.failed[0])


def test_the_ways_to_name_works(stocked: Library) -> None:
    with pytest.raises(InvalidRequestError, match="one of the two"):
        stocked.add_tag("x")
    with pytest.raises(InvalidRequestError, match="one of the two"):
        stocked.add_tag("x", ["a"], search="lichens")
    with pytest.raises(InvalidRequestError, match="k must be"):
        stocked.add_tag("x", search="lichens", k=0)
    with pytest.raises(InvalidRequestError, match="control"):
        stocked.add_tag("x\x07y", ["a"])
    assert stocked.add_tag("x", "a")["added"] == ["a"]  # one id as a string


def test_a_library_made_before_migrates_with_its_labels_imported(settings: Any) -> None:
    with Library.open(settings, embedder=FakeEmbedder()) as lib:
        lib.import_records([{"_id": "a", "title": "Old", "text": "old words"}])
        sync(lib, "a", "bibtex", ["Old shelf"], ["kept"])
        latest = lib.conn.execute(
            "SELECT version FROM schema_migrations WHERE name LIKE '%_user_collections.sql'"
        ).fetchone()[0]
        with lib.lock, immediate(lib.conn):  # as it was before the migration
            lib.conn.execute("DROP TABLE user_collections")
            # the later migrations too (a library of that release had none of them)
            lib.conn.execute("DROP TABLE openalex_account_requests")
            lib.conn.execute("DROP INDEX openalex_cache_fetched")
            lib.conn.execute("DROP TABLE feed_tokens")
            for table in ("alerts", "alert_results", "alert_triage"):
                lib.conn.execute(f"DROP TABLE {table}")
            if lib.storage.kind == "postgresql":  # PostgreSQL's 0019 (shards)
                lib.conn.execute("DROP TRIGGER works_shard_outbox ON works")
                lib.conn.execute("DROP FUNCTION prioris_shard_outbox()")
                lib.conn.execute("DROP TABLE shard_outbox")
            lib.conn.execute("DELETE FROM schema_migrations WHERE version >= ?", (latest,))
    with Library.open(settings, embedder=FakeEmbedder()) as lib:
        assert lib.list_collections() == [
            {"path": "Old shelf", "works": 1, "origins": ["bibtex"], "made_here": False}
        ]
        assert lib.labels("a") == {"collections": ["Old shelf"], "tags": ["kept"]}
        lib.add_tag("new", ["a"])
        sync(lib, "a", "bibtex", ["Old shelf"], [])  # the BibTeX file re-imported
        assert lib.labels("a") == {"collections": ["Old shelf"], "tags": ["new"]}


def test_migrate_to_carries_the_collections_made_here(pg_url: str, tmp_path: Any) -> None:
    from prioris.config import load_settings
    from prioris.library import migrate_library

    source = load_settings({}).with_library(tmp_path / "source.sqlite")
    with Library.open(source, embedder=FakeEmbedder()) as lib:
        lib.import_records([{"_id": "a", "title": "Peat", "text": "peat bogs"}])
        lib.create_collection("Empty / Still empty")
        lib.create_collection("Bogs")
        lib.add_to_collection("Bogs", ["a"])
        lib.add_tag("wet", ["a"])
        before = lib.list_collections()
    migrate_library(source, pg_url)
    migrate_library(source, pg_url)  # resumed: nothing twice
    with Library.open(load_settings({}).with_library(pg_url), embedder=FakeEmbedder()) as copy:
        assert copy.list_collections() == before
        assert copy.labels("a") == {"collections": ["Bogs"], "tags": ["wet"]}
        copy.remove_tag("wet", ["a"])  # still the user's own on the other engine
        assert copy.labels("a")["tags"] == []
