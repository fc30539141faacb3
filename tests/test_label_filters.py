"""Filtering by collection and tag through the Library: search in every mode, list,
browse and export, on SQLite and on PostgreSQL (the rules are storage/labels.py's)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prioris.errors import InvalidRequestError
from prioris.search.protocols import SearchFilters
from prioris.storage import labels as label_store

MODES = ("fts", "vector", "hybrid")


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


def set_labels(library: Any, work_id: str, source: str, collections: list[str], tags: list[str]):  # type: ignore[no-untyped-def]
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        label_store.set_labels(library.conn, work_id, source, collections=collections, tags=tags)
        library.conn.execute("COMMIT")


@pytest.fixture
def stocked(library):  # type: ignore[no-untyped-def]
    """Five coral papers; a and b in Thesis (b in a subcollection), c in Reading."""
    library.import_records(
        [
            {
                "_id": w,
                "title": f"Coral reef paper {w}",
                "text": f"Coral reefs bleach in warm water, study {w}.",
                "year": year,
            }
            for w, year in (("a", 2020), ("b", None), ("c", 2021), ("d", None), ("e", 2019))
        ]
    )
    set_labels(library, "a", "zotero", ["Thesis"], ["Reef", "to-read"])
    set_labels(library, "b", "zotero", ["Thesis / Chapter 2"], ["reef"])
    set_labels(library, "c", "zotero", ["Reading"], ["to-read"])
    set_labels(library, "d", "bibtex", [], ["Reef"])
    return library


def ids(response: Any) -> set[str]:
    return {hit.id for hit in response.hits}


@pytest.mark.parametrize("mode", MODES)
def test_search_in_every_mode_keeps_the_collection_and_tags(stocked, mode: str) -> None:  # type: ignore[no-untyped-def]
    lib = stocked
    assert ids(lib.search("coral reefs", mode=mode, k=10)) == set("abcde")
    assert ids(lib.search("coral reefs", mode=mode, collections=["thesis"])) == {"a", "b"}
    assert ids(lib.search("coral reefs", mode=mode, collections="Chapter 2")) == {"b"}
    assert ids(lib.search("coral reefs", mode=mode, tags=["REEF"])) == {"a", "b", "d"}
    assert ids(lib.search("coral reefs", mode=mode, tags=["reef", "to-read"])) == {"a"}
    both = lib.search("coral reefs", mode=mode, collections=["Thesis", "Reading"], tags="to-read")
    assert ids(both) == {"a", "c"}
    chunks = lib.search("coral reefs", mode=mode, chunks=True, collections=["Thesis"])
    assert ids(chunks) == {"a", "b"}
    # ids and labels together: both apply
    assert ids(lib.search("coral reefs", mode=mode, ids=["a", "c"], tags=["reef"])) == {"a"}
    # a name nothing has: no hits, not an error, not "no filter"
    assert lib.search("coral reefs", mode=mode, collections=["Nowhere"]).hits == []
    assert lib.search("coral reefs", mode=mode, tags=["reef", "nowhere"]).hits == []


@pytest.mark.parametrize("mode", MODES)
def test_left_out_no_year_counts_within_the_labels(stocked, mode: str) -> None:  # type: ignore[no-untyped-def]
    """b and d have no year; a year filter with the tag "reef" leaves out both, with the
    collection Thesis only b."""
    lib = stocked
    tagged = lib.search("coral reefs", mode=mode, from_year=2000, tags=["reef"])
    assert ids(tagged) == {"a"} and tagged.left_out_no_year == 2
    thesis = lib.search("coral reefs", mode=mode, from_year=2000, collections=["Thesis"])
    assert ids(thesis) == {"a"} and thesis.left_out_no_year == 1
    undated = lib.search(
        "coral reefs", mode=mode, from_year=2000, collections=["Thesis"], include_undated=True
    )
    assert ids(undated) == {"a", "b"}


def test_the_filter_reaches_engines_as_work_ids_only(stocked) -> None:  # type: ignore[no-untyped-def]
    seen: list[SearchFilters] = []
    backend = stocked.searcher.backend
    real = backend.fts

    def spy(expression: str, filters: SearchFilters, limit: int, **kw: Any) -> Any:
        seen.append(filters)
        return real(expression, filters, limit, **kw)

    backend.fts = spy
    stocked.search("coral", mode="fts", collections=["Thesis"])
    assert seen[0].work_ids == ("a", "b") and not seen[0].has_labels


def test_bad_filter_names_are_refused(stocked) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRequestError, match="at most 50 tags"):
        stocked.search("coral", tags=[f"t{i}" for i in range(51)])
    with pytest.raises(InvalidRequestError, match="at most 1000 characters"):
        stocked.list_works(collections=["x" * 1001])
    with pytest.raises(InvalidRequestError, match="must be a string"):
        stocked.search("coral", collections=[3])
    # blank names are no filter at all
    assert ids(stocked.search("coral reefs", mode="fts", tags=["", "  "])) == set("abcde")


def test_list_and_browse_filter_and_carry_labels(stocked) -> None:  # type: ignore[no-untyped-def]
    lib = stocked
    listed = lib.list_works(collections=["Thesis"])
    assert sorted(r["id"] for r in listed) == ["a", "b"]
    row = next(r for r in listed if r["id"] == "a")
    assert row["collections"] == ["Thesis"] and row["tags"] == ["Reef", "to-read"]
    assert [r["id"] for r in lib.list_works(tags=["reef", "to-read"])] == ["a"]
    assert lib.list_works(collections=["none"]) == []
    assert len(lib.list_works(tags=["reef"], limit=2)) == 2
    page = lib.browse(sort="title", descending=False, tags=["reef"], limit=2, offset=1)
    assert page["total"] == 3 and [w["id"] for w in page["works"]] == ["b", "d"]
    assert page["works"][0]["collections"] == ["Thesis / Chapter 2"]
    assert lib.browse(text="paper c", collections=["Reading"])["total"] == 1
    assert lib.browse(text="paper c", collections=["Thesis"])["total"] == 0
    assert lib.labels("a") == {"collections": ["Thesis"], "tags": ["Reef", "to-read"]}
    assert lib.collection_counts() == [("Reading", 1), ("Thesis", 2), ("Thesis / Chapter 2", 1)]
    assert lib.tag_counts() == [("Reef", 3), ("to-read", 2)]
    assert lib.unmatched_labels(["Thesis", "Thesys"], ["reef"]) == [
        "no collection 'Thesys'; did you mean 'Thesis'?"
    ]


def test_export_filters_and_jsonl_records_carry_labels(stocked) -> None:  # type: ignore[no-untyped-def]
    lib = stocked
    records = [json.loads(line) for line in lib.export(None, "jsonl").splitlines()]
    assert {r["id"] for r in records} == set("abcde")
    by_id = {r["id"]: r for r in records}
    assert by_id["e"]["collections"] == [] and by_id["e"]["tags"] == []  # always there
    assert by_id["b"]["collections"] == ["Thesis / Chapter 2"] and by_id["b"]["tags"] == ["reef"]
    thesis = lib.export(None, "jsonl", collections=["thesis"])
    assert sorted(json.loads(line)["id"] for line in thesis.splitlines()) == ["a", "b"]
    bib = lib.export(None, "bibtex", tags=["to-read"])
    assert bib.count("@") == 2 and "paper a" in bib and "paper c" in bib
    chosen = lib.export(["a", "c", "e"], "ris", tags=["reef"])
    assert chosen.count("TY  -") == 1 and "paper a" in chosen
    assert lib.export(None, "csl-json", collections=["nowhere"]).strip() == "[]"
