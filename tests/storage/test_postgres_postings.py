"""The BM25 postings table of PostgreSQL (migration postgres 0012,
:mod:`prioris.engines.postgres.postings`): plain queries ranked in numpy from the
postings give the SQL path's list and scores at every moment (before a build, after one,
after inserts, deletes, title edits and text edits since), through filters, across two
processes' pools, with a build running beside a writer, and a damaged row is refused."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres import postings as pg_postings
from prioris.engines.postgres import postings_build, postings_snapshot
from prioris.library import Library
from prioris.search.protocols import SearchFilters

_WORDS = (
    "coral reef bleach transect colony sponge alga lagoon atoll kelp urchin turtle "
    "mangrove seagrass plankton krill walrus penguin glacier tundra lichen moss fern spruce"
).split()
QUERIES = [
    '"coral"',
    '"bleach" OR "lagoon"',
    '"sponge" OR "alga" OR "reef"',
    '"kelp" OR "walrus" OR "the"',
    '"turtle" OR "krill" OR "surveys"',
    '"reefs" OR "coral" OR "corals"',
]


def _records(start: int, stop: int, tag: str = "") -> list[dict[str, Any]]:
    records = []
    for i in range(start, stop):
        words = [_WORDS[(i * 5 + j * 7) % len(_WORDS)] for j in range(2 + i % 4)]
        words += [words[0]] * (i % 3)
        title = f"{_WORDS[(i * 11) % len(_WORDS)]} survey {tag}".strip()
        records.append(
            {
                "_id": f"w{i}",
                "title": title,
                "text": " ".join([*words, tag]).strip(),
                "year": 1990 + i % 20,
            }
        )
    return records


def _open(pg_url: str) -> Library:
    library = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    postings = library.searcher.backend.postings
    postings.min_rows, postings._background = 1, False
    return library


def _both(
    library: Library,
    query: str,
    limit: int = 100,
    filters: SearchFilters | None = None,
    title_weight: float = 3.0,
) -> tuple[list[Any], list[Any]]:
    """(postings list, SQL list) of one query; the postings must have answered."""
    backend = library.searcher.backend
    filters = filters or SearchFilters()
    before = backend.postings.answered
    ranked = backend.fts(query, filters, limit, title_weight=title_weight)
    assert backend.postings.answered == before + 1, query
    minimum, backend.postings.min_rows = backend.postings.min_rows, 0
    # the SQL path with statistics counted now (its cache follows vectors_version, which
    # a title or text edit does not move)
    backend._stats_version = -1
    try:
        sql = backend.fts(query, filters, limit, title_weight=title_weight)
    finally:
        backend.postings.min_rows = minimum
    return ranked, sql


def _same(library: Library, limits: tuple[int, ...] = (3, 10, -1), **kw: Any) -> None:
    for query in QUERIES:
        for limit in limits:
            ranked, sql = _both(library, query, limit, **kw)
            assert len(ranked) == len(sql), (query, limit)
            for a, b in zip(ranked, sql, strict=True):
                assert a.score == pytest.approx(b.score, rel=1e-6, abs=1e-9), (query, a, b)
            # the same chunks in the same order up to float ties
            assert [(round(c.score, 6), c.chunk_id, c.work_id) for c in ranked] == [
                (round(c.score, 6), c.chunk_id, c.work_id) for c in sql
            ], (query, limit)


def _execute(pg_url: str, sql: str, params: Any = None) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(sql, params)


def test_postings_rank_as_sql_before_and_after_a_build_and_every_change(pg_url: str) -> None:
    library = _open(pg_url)
    backend = library.searcher.backend
    try:
        library.import_records(_records(0, 40))
        assert backend.fts('"coral"', SearchFilters(), 5, title_weight=3.0)
        assert backend.postings.answered == 0  # no build yet: SQL answered
        result = backend.postings.build_now()
        assert result is not None and result.rows == library.status()["chunks"]
        _same(library)
        _same(library, title_weight=1.0)
        library.import_records(_records(40, 70))  # inserts since the build
        _same(library)
        library.delete(["w3"])  # a deleted work's chunks
        library.delete(["w41"])
        _same(library)
        library.edit_work("w7", {"title": "coral lagoon reef atlas"})
        _same(library)  # a title edit reaches the chunks through the trigger
        _execute(pg_url, "UPDATE chunks SET text = 'walrus walrus kelp' WHERE work_id = 'w8'")
        _execute(pg_url, "DELETE FROM chunks WHERE work_id = 'w9'")  # a re-parse: out, in
        _execute(
            pg_url,
            "INSERT INTO chunks (work_id, ordinal, text, page_start, page_end, char_start, "
            "char_end) VALUES ('w9', 0, 'coral coral turtle', 1, 1, 0, 18)",
        )
        _same(library)
        filters = SearchFilters(from_year=1995, to_year=2001)
        _same(library, filters=filters)
        _same(library, filters=SearchFilters(work_ids=("w1", "w2", "w50")))
        again = backend.postings.build_now()  # a second build: the changes are absorbed
        assert again is not None and again.build_id != result.build_id
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM bm25_changes").fetchone()[0] == 0
        _same(library)
    finally:
        library.close()


def test_postings_match_sqlite_fts5(data_dir: Any, pg_url: str) -> None:
    """The scores SQLite's FTS5 gives, on the same records (as the SQL path's test)."""
    base = load_settings()
    sqlite = Library.open(base, embedder=FakeEmbedder())
    postgres = _open(pg_url)
    try:
        for library in (sqlite, postgres):
            library.import_records(_records(0, 30))
        postgres.searcher.backend.postings.build_now()
        for library in (sqlite, postgres):
            library.import_records(_records(30, 50))
        for query in ('"coral"', '"bleach" OR "lagoon"', '"sponge" OR "alga" OR "reef"'):
            lite = sqlite.searcher.backend.fts(query, SearchFilters(), 100, title_weight=3.0)
            pg = postgres.searcher.backend.fts(query, SearchFilters(), 100, title_weight=3.0)
            lite_scores = {c.work_id: c.score for c in lite}
            pg_scores = {c.work_id: c.score for c in pg}
            assert lite_scores and set(pg_scores) == set(lite_scores), query
            for work_id, score in lite_scores.items():
                assert pg_scores[work_id] == pytest.approx(score, rel=1e-6), (query, work_id)
            assert postgres.searcher.backend.postings.answered > 0
    finally:
        sqlite.close()
        postgres.close()


def test_two_processes_see_each_others_writes_and_builds(pg_url: str) -> None:
    """Two libraries with pools of their own: one's ingest is ranked by the other's next
    query, exactly; one's build is used by the other (its caches follow the build id)."""
    first, second = _open(pg_url), _open(pg_url)
    try:
        first.import_records(_records(0, 30))
        first.searcher.backend.postings.build_now()
        _same(second, limits=(10,))
        first.import_records(_records(30, 45))
        _same(second, limits=(10,))
        built = second.searcher.backend.postings.build_now()
        assert built is not None
        _same(first, limits=(10,))
        assert first.searcher.backend.postings._base.build_id == built.build_id.encode()
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE bm25_postings SET ids = substring(ids FROM 5) || substring(ids FOR 4) "
        "WHERE df > 1",  # ids out of order
        "UPDATE bm25_postings SET ids = int4send(999999) || substring(ids FROM 5)",  # range
        "UPDATE bm25_postings SET tf = tf || '\\x00'::bytea",  # tf of a wrong length
        "UPDATE bm25_postings SET df = df + 1",  # df disagrees with the ids
        "UPDATE bm25_meta SET value = value || '\\x00000001'::bytea WHERE key = 'lengths'",
    ],
)
def test_a_damaged_postings_row_is_refused_and_sql_answers(pg_url: str, damage: str) -> None:
    library = _open(pg_url)
    backend = library.searcher.backend
    try:
        library.import_records(_records(0, 30))
        backend.postings.build_now()
        expected = backend.fts('"coral" OR "reef"', SearchFilters(), 10, title_weight=3.0)
        assert backend.postings.answered == 1
        _execute(pg_url, damage)
        backend.postings._base = None  # as a new process would, having nothing cached
        backend.postings._next_build = float("inf")  # no rebuild repairs it meanwhile
        found = backend.fts('"coral" OR "reef"', SearchFilters(), 10, title_weight=3.0)
        assert backend.postings.answered == 1  # refused: SQL answered
        assert [(c.chunk_id, round(c.score, 9)) for c in found] == [
            (c.chunk_id, round(c.score, 9)) for c in expected
        ]
    finally:
        library.close()


def test_a_build_beside_a_writer_keeps_exactly_the_later_changes(pg_url: str) -> None:
    """A writer commits while the build's snapshot is open: its chunks stay in
    bm25_changes (the build did not see them), and the ranking stays exact."""
    library = _open(pg_url)
    backend = library.searcher.backend
    try:
        library.import_records(_records(0, 30))
        backend.postings.build_now()  # tracking on
        library.import_records(_records(30, 35))  # before the next build's snapshot
        gate, release = threading.Event(), threading.Event()
        original = postings_build._TERMS_SQL

        def slow_build() -> None:
            raw = psycopg.connect(pg_url, autocommit=True)
            try:
                real_execute = raw.execute

                def execute(sql: Any, params: Any = None) -> Any:
                    result = real_execute(sql, params)
                    if sql == original:  # the snapshot is open: let the writer in
                        gate.set()
                        release.wait(30)
                    return result

                raw.execute = execute  # type: ignore[method-assign]
                pg_postings.build(raw)
            finally:
                raw.close()

        thread = threading.Thread(target=slow_build)
        thread.start()
        assert gate.wait(30)
        library.import_records(_records(35, 40))  # committed after the snapshot
        with psycopg.connect(pg_url) as conn:
            late = {
                r[0]
                for r in conn.execute(
                    "SELECT id FROM chunks WHERE work_id = ANY(%s)",
                    ([f"w{i}" for i in range(35, 40)],),
                )
            }
        release.set()
        thread.join(30)
        with psycopg.connect(pg_url) as conn:
            kept = {r[0] for r in conn.execute("SELECT chunk_id FROM bm25_changes")}
        assert kept == late
        _same(library, limits=(10, -1))
    finally:
        library.close()


def test_a_library_never_built_records_no_changes(pg_url: str) -> None:
    library = _open(pg_url)
    try:
        library.import_records(_records(0, 10))
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM bm25_changes").fetchone()[0] == 0
    finally:
        library.close()


def test_a_searching_process_builds_in_the_background(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No build: the second query starts one in a thread; changes past the share start
    another, which absorbs them."""
    monkeypatch.setattr(postings_snapshot, "CHANGES_MIN", 0)
    monkeypatch.setattr(postings_snapshot, "CHANGES_SHARE", 0.0)
    library = Library.open(load_settings().with_library(pg_url), embedder=FakeEmbedder())
    backend = library.searcher.backend
    postings = backend.postings
    postings.min_rows = 1
    try:
        library.import_records(_records(0, 30))
        for _ in range(2):
            backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert postings.wait_until_built(60)
        assert postings.last_build is not None and postings.answered == 0
        first = postings.last_build.build_id
        _same(library, limits=(10,))
        library.import_records(_records(30, 45, tag="arctic"))
        postings._next_build = 0.0  # the last build was quick: no pause to wait out
        backend.fts('"coral"', SearchFilters(), 10, title_weight=3.0)
        assert postings.wait_until_built(60)
        assert postings.last_build.build_id != first
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM bm25_changes").fetchone()[0] == 0
        _same(library, limits=(10,))
    finally:
        library.close()


def test_the_sql_path_takes_exact_statistics_from_the_postings(pg_url: str) -> None:
    """A phrase or AND query stays in SQL, with the postings' statistics: the scores of
    statistics counted now, after writes a remembered count would have missed."""
    library = _open(pg_url)
    backend = library.searcher.backend
    try:
        library.import_records(_records(0, 30))
        backend.postings.build_now()
        library.import_records(_records(30, 50))
        library.delete(["w5"])
        library.edit_work("w6", {"title": "coral coral reef"})
        for query in ("coral reef", '"coral reef"', "coral NOT kelp"):
            before = backend.postings.answered
            found = backend.fts(query, SearchFilters(), 50, title_weight=3.0)
            assert backend.postings.answered == before
            minimum, backend.postings.min_rows = backend.postings.min_rows, 0
            backend._stats_version = -1
            try:
                counted = backend.fts(query, SearchFilters(), 50, title_weight=3.0)
            finally:
                backend.postings.min_rows = minimum
            assert [c.chunk_id for c in found] == [c.chunk_id for c in counted], query
            for a, b in zip(found, counted, strict=True):
                assert a.score == pytest.approx(b.score, rel=1e-9), query
    finally:
        library.close()


def test_reindex_postings_rebuilds_from_the_cli(
    pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from prioris.interfaces.cli.app import main

    library = _open(pg_url)
    try:
        library.import_records(_records(0, 20))
    finally:
        library.close()
    assert main(["--db", pg_url, "reindex", "--postings", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["postings"]["built"] and out["postings"]["rows"] > 0
    assert main(["--db", pg_url, "reindex", "--postings"]) == 0
    assert "rebuilt the BM25 postings of" in capsys.readouterr().out


def test_a_word_joined_by_an_underscore_is_ranked_from_the_postings(pg_url: str) -> None:
    """ "coral_reef" is two words to PostgreSQL's parser: a user's query holding it is
    ranked from the postings (a phrase fell back to SQL, seconds at a million passages)
    and finds the same works as the two words."""
    library = _open(pg_url)
    try:
        library.import_records(_records(0, 30))
        library.searcher.backend.postings.build_now()
        before = library.searcher.backend.postings.answered
        joined = library.search("coral_reef", mode="fts", k=10).hits
        assert library.searcher.backend.postings.answered == before + 1
        apart = library.search("coral reef", mode="fts", k=10).hits
        assert joined and [h.id for h in joined] == [h.id for h in apart]
    finally:
        library.close()
