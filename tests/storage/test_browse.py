"""Browsing the library: sorting, filtering and paging works, with their counts."""

from __future__ import annotations

import pytest

from prioris.errors import InvalidRequestError, NotFoundError


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


@pytest.fixture
def stocked(library):  # type: ignore[no-untyped-def]
    library.import_records(
        [
            {"_id": "b", "title": "beta waves", "text": "sleep", "year": 2019, "authors": "A Lee"},
            {"_id": "a", "title": "Alpha rhythm", "text": "eeg", "year": 2021, "source": "arxiv"},
            {"_id": "c", "title": "gamma 100%_done", "text": "x"},
        ]
    )
    return library


def test_sorts_by_title_year_and_added(stocked) -> None:  # type: ignore[no-untyped-def]
    titles = [w["title"] for w in stocked.browse(sort="title", descending=False)["works"]]
    assert titles == ["Alpha rhythm", "beta waves", "gamma 100%_done"]  # case-insensitive
    years = [w["year"] for w in stocked.browse(sort="year")["works"]]
    assert years == [2021, 2019, None]  # no year last
    years = [w["year"] for w in stocked.browse(sort="year", descending=False)["works"]]
    assert years == [2019, 2021, None]  # last either way
    with pytest.raises(InvalidRequestError, match="unknown sort"):
        stocked.browse(sort="colour")


def test_filters_by_text_and_source_and_pages(stocked) -> None:  # type: ignore[no-untyped-def]
    assert [w["id"] for w in stocked.browse(text="a lee")["works"]] == ["b"]
    assert [w["id"] for w in stocked.browse(text="100%_")["works"]] == ["c"]  # literal % and _
    assert stocked.browse(text="%")["total"] == 1
    assert [w["id"] for w in stocked.browse(source="arxiv")["works"]] == ["a"]
    page = stocked.browse(sort="title", descending=False, limit=2, offset=2)
    assert page["total"] == 3 and [w["id"] for w in page["works"]] == ["c"]
    row = stocked.browse(text="alpha")["works"][0]
    assert (row["pages"], row["ocr_pages"], row["chunks"], row["formats"]) == (1, 0, 1, ["text"])


def test_pages_chunks_and_year_counts(stocked) -> None:  # type: ignore[no-untyped-def]
    pages = stocked.pages("a")
    assert pages == [{"number": 1, "char_start": 0, "char_end": pages[0]["char_end"], "ocr": False}]
    hit = stocked.search("alpha rhythm", mode="fts").hits[0]
    chunk = stocked.chunk(hit.chunk_id)
    assert chunk["work_id"] == "a" and chunk["char_start"] == hit.offset
    with pytest.raises(NotFoundError):
        stocked.chunk(999_999)
    counts = {(r["year"], r["source"]): r["count"] for r in stocked.year_source_counts()}
    assert counts == {(2019, "import"): 1, (2021, "arxiv"): 1, (None, "import"): 1}
    with pytest.raises(NotFoundError, match="no stored PDF"):
        stocked.page_image("a", 1)
