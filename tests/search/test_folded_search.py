"""Folded full-text search: an accented name is found by its plain spelling and back, the
same on SQLite (FTS5's ``remove_diacritics 2``, and the postings sidecar that reads FTS5's
own terms) and PostgreSQL (``prioris_fold`` in the generated ``tsvector`` and the query;
migration postgres/0005_folded_fts.sql)."""

from __future__ import annotations

import re
import sqlite3
import unicodedata

import pytest

from prioris.resources import resource_path


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


RECORDS = [
    {
        "_id": "oguz",
        "title": "Dense passage retrieval for open-domain question answering",
        "year": 2020,
        "source": "import",
        # the text layer's spacing accents, as a PDF gives them: composed on the way in
        "text": "Written by Barlas O\u02d8guz and Fran\u00e7ois Gy\u00a8ongyi about retrieval.",
    },
    {
        "_id": "plain",
        "title": "Sparse retrieval baselines",
        "year": 2019,
        "source": "import",
        "text": "Jose Muller compared BM25 with learned sparse models at Malmo.",
    },
]


@pytest.fixture
def filled(library):  # type: ignore[no-untyped-def]
    summary = library.import_records(RECORDS)
    assert len(summary.ingested) == len(RECORDS)
    return library


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Oguz", "oguz"),  # plain finds the composed letter
        ("O\u011fuz", "oguz"),
        ("Francois", "oguz"),
        ("Gyongyi", "oguz"),
        ("Gy\u00f6ngyi", "oguz"),
        ("Jos\u00e9 M\u00fcller", "plain"),  # accented finds the plain text
        ("Malm\u00f6", "plain"),
    ],
)
def test_fts_folds_diacritics_both_ways(filled, query: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    hits = filled.search(query, mode="fts", k=5).hits
    assert [h.id for h in hits][:1] == [expected], (query, [h.id for h in hits])


def test_stored_text_is_composed(filled) -> None:  # type: ignore[no-untyped-def]
    row = filled.conn.execute("SELECT markdown FROM works WHERE id = ?", ("oguz",)).fetchone()
    markdown = row[0]
    assert "Barlas O\u011fuz" in markdown and "Gy\u00f6ngyi" in markdown
    assert "\u02d8" not in markdown and "\u00a8" not in markdown


def test_fts5_syntax_and_phrases_fold_too(filled) -> None:  # type: ignore[no-untyped-def]
    hits = filled.search('"Barlas Oguz"', mode="fts", syntax="fts5", k=5).hits
    assert [h.id for h in hits][:1] == ["oguz"]
    hits = filled.search("M\u00fcll*", mode="fts", syntax="fts5", k=5).hits
    assert [h.id for h in hits][:1] == ["plain"]


def _postgres_fold_table() -> dict[str, str]:
    sql = (resource_path("prioris.migrations", "postgres") / "0005_folded_fts.sql").read_text(
        encoding="utf-8"
    )
    found = re.search(r"translate\(t,\s*'([^']*)',\s*'([^']*)'\)", sql)
    assert found is not None
    source, target = found.groups()
    assert len(source) == len(target)
    return dict(zip(source, target, strict=True))


def test_postgres_fold_agrees_with_fts5_letter_by_letter() -> None:
    """Every letter the PostgreSQL fold maps is folded to the same letter by FTS5, and
    every Latin letter with diacritics FTS5 folds is in the PostgreSQL fold."""
    table = _postgres_fold_table()
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, row)")
    for code in [*range(0xC0, 0x250), *range(0x1E00, 0x1F00)]:
        letter = chr(code)
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t VALUES (?)", (f"q{letter}q",))
        term = conn.execute("SELECT term FROM v").fetchone()[0]
        base = unicodedata.normalize("NFD", letter)[0]
        fts5_folds = base.isascii() and base != letter and term == f"q{base.lower()}q"
        assert (letter in table) == fts5_folds, letter
        if letter in table:
            assert table[letter] == base, letter


def test_the_postings_sidecar_folds_as_fts5_does(data_dir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """On SQLite a large library answers from the BM25 sidecar, whose terms are FTS5's own:
    it finds the accented name by its plain spelling too, with FTS5's scores. (SQLite's
    alone: the sidecar belongs to that engine.)"""
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.engines.sqlite.postings_rank import PostingsRanker
    from prioris.library import Library

    filled = Library.open(load_settings(), embedder=FakeEmbedder())
    filled.import_records(RECORDS)
    from prioris.engines.sqlite.search import fts_search
    from prioris.search.protocols import SearchFilters
    from prioris.search.query import plain_to_fts5

    backend = filled.searcher.backend
    ranker = PostingsRanker(
        lambda: filled.storage.connect(migrate=False),
        tmp_path / "library.sqlite.bm25",
        min_rows=1,
        background=False,
    )
    backend.postings = ranker
    for query in ("Oguz", "O\u011fuz", "Gyongyi", "Malm\u00f6"):
        expression = plain_to_fts5(query)
        assert expression is not None
        for _ in range(3):  # the first queries build the sidecar, the next reads it
            got = backend.fts(expression, SearchFilters(), 5, title_weight=1.0)
        full = fts_search(backend.conn, expression, SearchFilters(), 5, title_weight=1.0)
        assert [(c.chunk_id, pytest.approx(c.score)) for c in got] == [
            (c.chunk_id, c.score) for c in full
        ]
        assert got, query
    assert ranker.answered >= 4  # the sidecar answered each query at least once
    filled.close()
