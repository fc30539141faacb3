"""Back matter is searchable but a work's other passages are shown first (both engines)."""

from __future__ import annotations

import pytest

from prioris.models import Page, Work
from prioris.storage.backend import index_of


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


# The acknowledgements repeat the title's words (as a Funding or thanks paragraph that
# names the project does), so by score alone they are the paper's best passage.
PAPER = """# Sparse attention

## Abstract

Sliding windows keep the cost of attention linear in the input length, and we measure
how far a window must reach for question answering over whole books of text.

## 1 Method

Each token attends to its neighbours within a window of fixed width; a few global
tokens see the whole input. We train on books and evaluate on long questions.

## Acknowledgements

We thank the sparse attention group for sparse attention discussions on attention.

## References

[1] A. Author. Dense retrieval for everything. 2017.

[2] B. Author and C. Author. Windows over books. 2019.

[3] D. Author. Attention in context. 2020."""

OTHER = """# Coral reefs under heat stress

## Results

Marine heatwaves bleach corals; reefs lose cover when water stays hot for weeks."""


@pytest.fixture
def papers(library):  # type: ignore[no-untyped-def]
    for work_id, title, markdown in (
        ("sparse", "Sparse attention", PAPER),
        ("reefs", "Coral reefs under heat stress", OTHER),
    ):
        work = Work(id=work_id, title=title, source="import")
        library.pipeline.store(library.pipeline.prepare_pages(work, [Page(1, markdown)]))
    return library


def sections_of(library, work_id: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    rows = library.conn.execute(
        f"SELECT section, {index_of(library.conn).text_sql('text')} FROM chunks "
        "WHERE work_id = ? ORDER BY ordinal",
        (work_id,),
    ).fetchall()
    return {section: text for section, text in rows}


def test_chunks_are_stored_with_their_sections(papers) -> None:  # type: ignore[no-untyped-def]
    found = sections_of(papers, "sparse")
    assert set(found) == {"abstract", "body", "acknowledgements", "references"}
    assert "Dense retrieval for everything" in found["references"]


def test_the_acknowledgements_are_the_best_by_score_but_not_shown(papers) -> None:  # type: ignore[no-untyped-def]
    raw = papers.searcher.backend.fts('"sparse" "attention"', _no_filters(), 10, title_weight=1.0)
    labels = papers.searcher.backend.sections([c.chunk_id for c in raw])
    assert labels[raw[0].chunk_id] == "acknowledgements"  # what was shown before

    hits = papers.search("sparse attention", mode="fts", k=5).hits
    assert hits[0].id == "sparse" and hits[0].section in ("abstract", "body")
    assert hits[0].score == pytest.approx(raw[0].score, rel=1e-5)  # the work's rank holds

    passages = papers.search("sparse attention", mode="fts", k=10, chunks=True).hits
    order = [hit.section for hit in passages if hit.id == "sparse"]
    assert order.index("acknowledgements") > max(
        i for i, s in enumerate(order) if s in ("abstract", "body")
    )
    assert passages[0].score == pytest.approx(raw[0].score, rel=1e-5)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_vector_modes_show_a_body_passage(papers, mode: str) -> None:  # type: ignore[no-untyped-def]
    hits = papers.search("sparse attention group discussions", mode=mode, k=2).hits
    assert hits[0].id == "sparse"
    assert hits[0].section not in ("acknowledgements", "references", "funding", "author_info")
    passages = papers.search("sparse attention group discussions", mode=mode, k=10, chunks=True)
    own = [hit.section for hit in passages.hits if hit.id == "sparse"]
    assert own[0] in ("abstract", "body")
    assert own.index("acknowledgements") > own.index(own[0])


def test_a_cited_title_is_still_found_in_the_references(papers) -> None:  # type: ignore[no-untyped-def]
    hits = papers.search("dense retrieval everything", mode="fts", k=5, chunks=True).hits
    assert hits and hits[0].id == "sparse" and hits[0].section == "references"
    works = papers.search("dense retrieval everything", mode="fts", k=5).hits
    assert [hit.id for hit in works] == ["sparse"]  # the only place these words are
    assert works[0].section == "references"  # nothing better of this work matched


def _no_filters():  # type: ignore[no-untyped-def]
    from prioris.search.protocols import SearchFilters

    return SearchFilters()
