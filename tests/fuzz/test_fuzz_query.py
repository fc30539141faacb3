"""Search on arbitrary queries in every mode and syntax, with arbitrary filters: a response
or one PriorisError, never another exception, and the library file intact."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.strategies import HUGE_INT, ODD, TEXT
from prioris.errors import PriorisError

FTS5_TOKENS = st.sampled_from(
    [
        "AND",
        "OR",
        "NOT",
        "NEAR(",
        "NEAR",
        ")",
        "(",
        '"',
        "*",
        "^",
        "title:",
        "text:",
        "{",
        "}",
        "-",
        "+",
        ",",
        "ice",
        "coral",
        "reef",
        "warming",
        "x",
        "0",
        "é",
        "中",
    ]
)
QUERY = st.one_of(
    TEXT,
    st.lists(st.one_of(FTS5_TOKENS, ODD), min_size=1, max_size=15).map(" ".join),
    st.lists(st.one_of(FTS5_TOKENS, ODD), min_size=1, max_size=15).map("".join),
    st.just("(" * 300 + "ice" + ")" * 300),
    st.just("ice " * 2000),
)


@pytest.fixture
def filled(library):  # type: ignore[no-untyped-def]
    library.import_records(
        [
            {"_id": "reef", "title": "Coral reef warming", "text": "Corals bleach.", "year": 2020},
            {"_id": "ice", "title": "Ice sheets", "text": "Greenland ice melts.", "year": 1999},
            {"_id": "w", "title": "Word soup", "text": "NEAR AND OR NOT title text"},
        ]
    )
    return library


@given(
    query=QUERY,
    mode=st.one_of(st.sampled_from(["fts", "vector", "hybrid"]), TEXT),
    syntax=st.one_of(st.sampled_from(["plain", "fts5"]), TEXT),
    k=st.one_of(st.integers(-3, 1200), HUGE_INT),
    chunks=st.booleans(),
    source=st.one_of(st.none(), st.sampled_from(["import", "file", "arxiv"]), TEXT),
    from_year=st.one_of(st.none(), HUGE_INT),
    to_year=st.one_of(st.none(), HUGE_INT),
    ids=st.one_of(st.none(), st.lists(st.one_of(st.just("reef"), TEXT), max_size=3)),
)
def test_search_answers_or_raises_one_prioris_error(  # type: ignore[no-untyped-def]
    filled, query, mode, syntax, k, chunks, source, from_year, to_year, ids
) -> None:
    try:
        response = filled.search(
            query,
            mode=mode,
            syntax=syntax,
            k=k,
            chunks=chunks,
            source=source,
            from_year=from_year,
            to_year=to_year,
            ids=ids,
        )
    except PriorisError as exc:
        assert exc.code in ("invalid_request", "not_found"), exc
    else:
        assert len(response.hits) <= k
        assert all(hit.id in {"reef", "ice", "w"} for hit in response.hits)
    assert filled.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
