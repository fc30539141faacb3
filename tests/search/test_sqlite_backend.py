"""The SQLite backend: FTS ranked in two halves gives the one-query list."""

from __future__ import annotations

import pytest

from prioris.engines.sqlite import search as sqlite_backend
from prioris.engines.sqlite.queries import fts_search
from prioris.errors import InvalidRequestError
from prioris.library import Library
from prioris.search.protocols import SearchFilters


@pytest.fixture
def filled(library: Library) -> Library:
    library.import_records(
        [
            {
                "_id": f"w{i}",
                "title": f"Work {i} on {'cells' if i % 4 == 0 else 'stars'}",
                "year": 1990 + i % 30,
                "source": "arxiv" if i % 3 == 0 else "import",
                "text": " ".join(
                    ["cells"] * (i % 5 == 0) * (1 + i % 3) + ["stars"] * (i % 7 == 0) + [f"w{i}"]
                ),
            }
            for i in range(80)
        ]
    )
    return library


@pytest.mark.parametrize(
    "filters", [SearchFilters(), SearchFilters(source="arxiv"), SearchFilters(to_year=2000)]
)
def test_split_fts_equals_one_query(
    filled: Library, filters: SearchFilters, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_backend, "FTS_SPLIT_ROWS", 0)
    backend = filled.searcher.backend
    expression = '"cells" OR "stars"'
    split = backend.fts(expression, filters, 30, title_weight=1.0)
    whole = fts_search(backend.conn, expression, filters, 30, title_weight=1.0)
    assert len(split) == len(whole) >= 8
    assert [c.score for c in split] == pytest.approx([c.score for c in whole])
    ids = {c.chunk_id for c in split}
    assert min(ids) <= 40 < max(ids)  # both halves contributed
    assert split[0].score > 0.1  # real BM25 weights, not near-zero idf ties
    with pytest.raises(InvalidRequestError):
        backend.fts('"unclosed', filters, 5, title_weight=1.0)
