"""The BM25 postings sidecar: FTS5's ranking from numpy while fresh, FTS5 otherwise."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import numpy as np
import pytest

from prioris.engines.sqlite import postings, postings_delta, postings_snapshot
from prioris.engines.sqlite.postings_rank import PostingsRanker
from prioris.engines.sqlite.queries import fts_search
from prioris.library import Library
from prioris.search.protocols import ChunkScore, SearchFilters
from prioris.search.query import plain_to_fts5

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "running", "runs"]
WEIGHTS = [60, 30, 15, 6, 3, 2, 1, 4, 4]


@pytest.fixture
def library_of_words(library: Library) -> Library:
    """300 works: words from in most chunks to in a few, some in titles and headings, and
    one word written 200 times in a chunk (a frequency past one byte)."""
    rng = random.Random(7)

    def words(k: int) -> str:
        return " ".join(rng.choices(WORDS, WEIGHTS, k=k))

    records = [
        {"_id": f"w{i}", "title": f"Work {i} {words(2)}", "text": words(30)} for i in range(300)
    ]
    records.append({"_id": "dense", "title": "Dense", "text": "zeta " * 200 + "alpha"})
    library.import_records(records)
    conn = library.conn  # headings, set as a PDF's sections would (re-indexed like ingest)
    rows = conn.execute(
        "SELECT c.id, prioris_text(c.text), w.title, c.heading FROM chunks c "
        "JOIN works w ON w.id = c.work_id"
    ).fetchall()
    conn.execute("BEGIN IMMEDIATE")
    for chunk_id, text, title, heading in rows[::3]:
        new = f"Section {words(2)}"
        conn.execute(
            "INSERT INTO chunks_fts(chunks_fts, rowid, text, title, heading) "
            "VALUES ('delete', ?, ?, ?, ?)",
            (chunk_id, text, title, heading),
        )
        conn.execute("UPDATE chunks SET heading = ? WHERE id = ?", (new, chunk_id))
        conn.execute(
            "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
            (chunk_id, text, title, new),
        )
    conn.execute("COMMIT")
    library.searcher.backend.postings.min_rows = 1
    return library


def _sidecar(library: Library) -> Path:
    path = library.searcher.backend.postings.path
    assert path is not None
    return Path(path)


def _build(library: Library) -> postings.BuildResult:
    conn = library.storage.connect(migrate=False)
    try:
        result = postings.build(conn, _sidecar(library))
    finally:
        conn.close()
    assert result is not None
    return result


def _same_ranking(got: list[ChunkScore], full: list[ChunkScore]) -> None:
    """Same scores rank by rank; same chunks except in a tie at the cut."""
    assert [c.score for c in got] == pytest.approx([c.score for c in full], rel=1e-9)
    cut = full[-1].score * (1 + 1e-9) if full else 0
    assert {c.chunk_id for c in got if c.score > cut} == {c.chunk_id for c in full if c.score > cut}
    owners = {c.chunk_id: c.work_id for c in full}
    assert all(owners[c.chunk_id] == c.work_id for c in got if c.chunk_id in owners)


def _fts(library: Library, query: str, limit: int, title_weight: float = 1.0) -> list[ChunkScore]:
    expression = plain_to_fts5(query)
    assert expression is not None
    return library.searcher.backend.fts(
        expression, SearchFilters(), limit, title_weight=title_weight
    )


def _fts5(library: Library, query: str, limit: int, title_weight: float = 1.0) -> list[ChunkScore]:
    expression = plain_to_fts5(query)
    assert expression is not None
    conn = library.searcher.backend.conn
    return fts_search(conn, expression, SearchFilters(), limit, title_weight=title_weight)


def test_the_freshness_key_moves_on_every_write_but_fts5s_cookie_does_not(
    library_of_words: Library,
) -> None:
    """The structure record's first 4 bytes are FTS5's configuration cookie: a content
    change leaves them alone, which is why the key is the whole structure and averages
    records (whose write counter and totals every write moves)."""
    conn = library_of_words.conn
    keys = [postings.freshness_key(conn)]
    library_of_words.import_records([{"_id": "new", "title": "New", "text": "alpha beta"}])
    keys.append(postings.freshness_key(conn))
    library_of_words.delete(["w3"])
    keys.append(postings.freshness_key(conn))
    conn.execute("UPDATE works SET title = 'Renamed kappa' WHERE id = 'w4'")
    keys.append(postings.freshness_key(conn))
    assert None not in keys and len(set(keys)) == 4
    cookies = {key[4:8] for key in keys if key is not None}
    assert cookies == {b"\x00\x00\x00\x00"}  # the "cookie" alone would call all of them fresh


def test_postings_rank_as_fts5_does(library_of_words: Library) -> None:
    assert library_of_words.conn.execute(
        "SELECT count(*) FROM chunks WHERE heading LIKE '%Section %'"
    ).fetchone()[0]
    result = _build(library_of_words)
    assert result.terms > len(WORDS) and result.pairs > 300
    ranker = library_of_words.searcher.backend.postings
    rng = random.Random(11)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 5))) for _ in range(40)]
    queries += ["section alpha", "work kappa", "part omega", "zeta", "alpha zeta"]
    queries += ["kappa nonexistentword", "nonexistentword", "running runs"]  # one stem twice
    for query in queries:
        for limit, title_weight in ((10, 1.0), (40, 2.5), (-1, 0.7)):
            before = ranker.answered
            got = _fts(library_of_words, query, limit, title_weight)
            assert ranker.answered == before + 1, query  # the postings answered
            _same_ranking(got, _fts5(library_of_words, query, limit, title_weight))


def test_phrases_filters_and_fts5_syntax_stay_with_fts5(library_of_words: Library) -> None:
    _build(library_of_words)
    backend = library_of_words.searcher.backend
    backend.fts('"alpha" OR "alpha-beta"', SearchFilters(), 10, title_weight=1.0)  # a phrase
    backend.fts("alpha AND beta", SearchFilters(), 10, title_weight=1.0)
    backend.fts('"alpha" OR "beta"', SearchFilters(work_ids=("w1", "w2")), 10, title_weight=1.0)
    assert backend.postings.answered == 0


def test_a_deletion_or_a_title_change_makes_it_stale_until_rebuilt(
    library_of_words: Library,
) -> None:
    _build(library_of_words)
    ranker = library_of_words.searcher.backend.postings
    ranker._background = False  # the rebuild runs in the query here
    assert _fts(library_of_words, "kappa", 1000)
    answered = ranker.answered
    library_of_words.delete(["dense"])
    got = _fts(library_of_words, "zeta alpha", 1000)  # stale: FTS5 answers, rebuilds
    assert ranker.answered == answered and "dense" not in {c.work_id for c in got}
    _same_ranking(_fts(library_of_words, "zeta alpha", 1000), got)  # rebuilt: it answers
    assert ranker.answered == answered + 1

    library_of_words.conn.execute("UPDATE works SET title = 'Zeta zeta' WHERE id = 'w5'")
    assert ranker._next_build > 0  # no new build sooner than the last one took...
    ranker._next_build = 0.0  # ...which this test does not wait for
    assert (
        ranker.rank(library_of_words.searcher.backend.conn, '"zeta"', 5, title_weight=1.0, rows=9)
        is None
    )
    got = _fts(library_of_words, "zeta", 5)  # rebuilt: w5's chunks lead on their title
    assert ranker.answered == answered + 2 and got[0].work_id == "w5"
    _same_ranking(got, _fts5(library_of_words, "zeta", 5))


def test_a_corrupt_or_damaged_sidecar_is_ignored_and_replaced(
    library_of_words: Library,
) -> None:
    ranker = library_of_words.searcher.backend.postings
    ranker._background = False
    _sidecar(library_of_words).write_bytes(b"not a database at all" * 100)
    expected = _fts5(library_of_words, "alpha kappa", 10)
    assert _fts(library_of_words, "alpha kappa", 10) == expected  # first query: no build
    assert ranker.answered == 0
    _same_ranking(_fts(library_of_words, "alpha kappa", 10), expected)  # rebuilt in it
    assert ranker.answered == 0
    _same_ranking(_fts(library_of_words, "alpha kappa", 10), expected)
    assert ranker.answered == 1

    conn = postings.sqlite3.connect(str(_sidecar(library_of_words)))
    conn.execute("UPDATE postings SET tf = x'01' WHERE term = 'kappa'")  # a truncated blob
    conn.commit()
    conn.close()
    ranker._drop()
    ranker._examined = None
    ranker._next_build = 0.0
    assert _fts(library_of_words, "alpha kappa", 10) == expected  # FTS5 again, then rebuilt
    _same_ranking(_fts(library_of_words, "alpha kappa", 10), expected)
    assert ranker.answered == 2


def test_concurrent_builders_leave_one_whole_snapshot(library_of_words: Library) -> None:
    results: list[postings.BuildResult] = []

    def build() -> None:
        results.append(_build(library_of_words))

    threads = [threading.Thread(target=build) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 3
    assert [p.name for p in _sidecar(library_of_words).parent.iterdir() if ".tmp" in p.name] == []
    _same_ranking(
        _fts(library_of_words, "alpha omega", 20), _fts5(library_of_words, "alpha omega", 20)
    )
    assert library_of_words.searcher.backend.postings.answered == 1


def test_built_in_a_background_thread_from_the_second_query_on(
    library_of_words: Library,
) -> None:
    """A one-shot process (a single CLI search) never builds; a serving process does, in a
    thread, and benchmarks can wait for it."""
    ranker = library_of_words.searcher.backend.postings
    library_of_words.search("alpha kappa", mode="fts", k=5)
    assert not _sidecar(library_of_words).exists()
    assert ranker.wait_until_built(timeout=0.01)  # nothing running
    started = threading.Event()
    real_build = postings.build

    def slow_build(*args: object) -> postings.BuildResult | None:
        started.set()
        assert threading.current_thread().name == "prioris-postings"
        return real_build(*args)  # type: ignore[arg-type]

    import prioris.engines.sqlite.postings_rank as rank_module

    rank_module.postings.build = slow_build  # type: ignore[assignment]
    try:
        library_of_words.search("alpha kappa", mode="hybrid", k=5)
        assert started.wait(10)
        assert ranker.wait_until_built(60)
    finally:
        rank_module.postings.build = real_build  # type: ignore[assignment]
    assert ranker.last_build is not None and _sidecar(library_of_words).exists()
    library_of_words.search("alpha kappa", mode="fts", k=5)
    assert ranker.answered == 1


def test_small_libraries_and_a_zero_threshold_never_build(library_of_words: Library) -> None:
    ranker = library_of_words.searcher.backend.postings
    ranker._background = False
    for minimum in (10_000, 0):
        ranker.min_rows = minimum
        for _ in range(3):
            _fts(library_of_words, "alpha kappa", 10)
        assert not _sidecar(library_of_words).exists()


def test_the_setting_reaches_the_backend_and_the_sidecar_sits_beside_the_library(
    settings, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from prioris.embedding.fake import FakeEmbedder

    with Library.open(
        settings.with_overrides(postings_min_chunks=7), embedder=FakeEmbedder()
    ) as lib:
        ranker = lib.searcher.backend.postings
        assert ranker.min_rows == 7
        assert ranker.path == Path(f"{settings.db_path}.bm25")


def test_postings_of_a_term_merge_a_chunk_split_across_batches() -> None:
    import numpy as np

    def part(pairs: list[tuple[int, int]]) -> np.ndarray:  # (chunk id, column) instances
        return np.array([doc * 4 + col for doc, col in pairs], dtype=np.int64)

    parts = iter([part([(1, 0), (2, 1), (2, 0)]), part([(2, 2), (5, 0), (5, 0)])])
    ids, base, title = postings.term_postings(parts)
    assert ids.tolist() == [1, 2, 5]
    assert base.tolist() == [2, 3, 4]  # 2 x text + heading
    assert title.tolist() == [0, 1, 0]


def test_varints_as_sqlite_writes_them() -> None:
    assert postings.varints(bytes([0x05, 0x81, 0x00, 0x7F])) == [5, 128, 127]
    assert postings.varints(bytes([0xFF] * 8 + [0x01])) == [(1 << 64) - 255]


def test_a_build_that_cannot_write_pauses_and_fts5_answers(
    library_of_words: Library, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    backend = library_of_words.searcher.backend
    ranker = PostingsRanker(
        lambda: library_of_words.storage.connect(migrate=False),
        tmp_path / "no such folder" / "library.sqlite.bm25",
        min_rows=1,
        background=False,
    )
    backend.postings = ranker
    expected = _fts5(library_of_words, "alpha kappa", 10)
    for _ in range(3):
        assert _fts(library_of_words, "alpha kappa", 10) == expected
    assert ranker.answered == 0 and ranker.last_build is None
    assert "not built" in caplog.text and caplog.text.count("not built") == 1  # then paused
    assert "not built (unable to open database file)" in caplog.text  # says why


def test_a_query_never_waits_for_a_build_under_way(library_of_words: Library) -> None:
    ranker = library_of_words.searcher.backend.postings
    assert ranker._building.acquire(timeout=60)  # a build under way (or one just started)
    try:
        done = threading.Event()

        def refresh() -> None:
            ranker._refresh()
            done.set()

        threading.Thread(target=refresh, daemon=True).start()
        assert done.wait(10), "a query waited for the running build"
    finally:
        ranker._building.release()


def test_a_one_shot_cli_search_never_builds(
    settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    from prioris.embedding.fake import FakeEmbedder
    from prioris.interfaces.cli import main

    with Library.open(settings, embedder=FakeEmbedder()) as lib:
        lib.import_records([{"_id": f"w{i}", "title": "T", "text": "alpha beta"} for i in range(5)])
    monkeypatch.setenv("PRIORIS_MCP_POSTINGS_MIN_CHUNKS", "1")
    for _ in range(2):  # two processes, one search each
        assert main(["search", "alpha beta", "--mode", "fts", "--json"]) == 0
    assert '"hits"' in capsys.readouterr().out
    assert not Path(f"{settings.db_path}.bm25").exists()


def _tamper(library: Library, sql: str, params: tuple = ()) -> None:  # type: ignore[type-arg]
    conn = postings.sqlite3.connect(str(_sidecar(library)))
    conn.execute(sql, params)
    conn.commit()
    conn.close()
    ranker = library.searcher.backend.postings
    ranker._drop()
    ranker._examined = None
    ranker._next_build = 9e18  # no rebuild during the check: the damaged file stays


def _fresh_sidecar(library: Library) -> PostingsRanker:
    ranker = library.searcher.backend.postings
    ranker._background = False
    _build(library)
    ranker._drop()
    ranker._examined = None
    _fts(library, "alpha kappa", 10)
    assert ranker.answered >= 1
    return ranker


def _gaps(width: int, first: int, gaps: np.ndarray) -> bytes:
    """An ids blob as the sidecar stores it: width byte, first id, the gaps."""
    return bytes((width,)) + first.to_bytes(4, "little", signed=True) + gaps.tobytes()


@pytest.mark.parametrize(
    ("damage", "params"),
    [
        # ids stored as gaps (bm25_arrays.encode_ids): gaps that run past the lengths
        (
            "UPDATE postings SET ids = ? WHERE term = 'kappa'",
            (_gaps(2, 1, np.array([60_000, 60_000], dtype="<u2")), 3),
        ),
        # a gap of zero (the same chunk twice: would silently change the ranking)
        (
            "UPDATE postings SET ids = ? WHERE term = 'kappa'",
            (_gaps(1, 5, np.array([0, 4], dtype="u1")), 3),
        ),
        # a width no build writes, and a body cut in the middle of a gap
        ("UPDATE postings SET ids = ? WHERE term = 'kappa'", (_gaps(3, 0, np.zeros(0)), 1)),
        (
            "UPDATE postings SET ids = ? WHERE term = 'kappa'",
            (_gaps(2, 0, np.array([1], dtype="<u2"))[:-1], 2),
        ),
        ("UPDATE postings SET ids = ? WHERE term = 'kappa'", (_gaps(1, -4, np.zeros(0)), 1)),
        ("UPDATE meta SET value = 'no_such_tokenizer' WHERE key = 'tokenizer'", ()),
        # a lengths array far larger than the library's chunks
        ("UPDATE meta SET value = zeroblob(40000000) WHERE key = 'lengths'", ()),
        ("UPDATE meta SET value = 999999 WHERE key = 'rows'", ()),
        # a title position before the list (numpy would read it from the end: a wrong
        # chunk's title count, silently) and title counts of another length
        (
            "UPDATE postings SET title_at = ?, title_tf = ? WHERE term = 'kappa'",
            (np.array([-1], dtype="<i4").tobytes(), np.array([60000], dtype="<u2").tobytes()),
        ),
        (
            "UPDATE postings SET title_at = ?, title_tf = x'' WHERE term = 'kappa'",
            (np.array([0], dtype="<i4").tobytes(),),
        ),
    ],
)
def test_a_sidecar_that_disagrees_with_the_library_is_never_trusted(
    library_of_words: Library,
    damage: str,
    params: tuple,  # type: ignore[type-arg]
) -> None:
    ranker = _fresh_sidecar(library_of_words)
    answered = ranker.answered
    if "ids" in damage:  # keep the tf blob's length consistent with the new ids
        raw, count = params
        damage = damage.replace(
            "SET ids = ?", "SET ids = ?, tf = ?, title_at = x'', title_tf = x''"
        )
        params = (raw, bytes([1] * count))
    _tamper(library_of_words, damage, params)
    expected = _fts5(library_of_words, "alpha kappa", 10)
    for _ in range(2):
        _same_ranking(_fts(library_of_words, "alpha kappa", 10), expected)  # FTS5 answers
    assert ranker.answered == answered


def test_a_fifo_or_a_symlink_out_of_the_folder_is_not_the_sidecar(
    library_of_words: Library, tmp_path: Path
) -> None:
    import os

    ranker = library_of_words.searcher.backend.postings
    ranker._background = False
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = _sidecar(library_of_words)
    _build(library_of_words)
    (elsewhere / "cache.bm25").write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere / "cache.bm25")
    ranker._drop()
    ranker._examined = None
    ranker._next_build = 9e18
    expected = _fts5(library_of_words, "alpha kappa", 10)
    _same_ranking(_fts(library_of_words, "alpha kappa", 10), expected)
    assert ranker.answered == 0
    path.unlink()
    os.mkfifo(path)
    ranker._examined = None
    done = threading.Event()

    def search() -> None:
        _fts(library_of_words, "alpha kappa", 10)
        done.set()

    threading.Thread(target=search, daemon=True).start()
    assert done.wait(20), "a FIFO at the sidecar's path hung the search"
    assert ranker.answered == 0


def test_a_build_committed_in_many_small_transactions_is_the_same(
    library_of_words: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sidecar is written in transactions of bounded size (a million-chunk library
    would otherwise hold its whole write in one journal): one per term here."""
    monkeypatch.setattr(postings, "COMMIT_BYTES", 0)
    ranker = _fresh_sidecar(library_of_words)
    answered = ranker.answered
    for query in ("alpha kappa", "kappa", "alpha"):
        _same_ranking(_fts(library_of_words, query, 10), _fts5(library_of_words, query, 10))
    assert ranker.answered == answered + 3


def test_common_terms_are_read_once_per_snapshot_and_the_cache_stays_bounded(
    library_of_words: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A term's decoded arrays are kept (common words recur across queries) while they
    fit the budget, least recently used out first; a new snapshot starts empty, so a
    rebuilt sidecar is never answered from the old one's arrays."""
    monkeypatch.setattr(postings_snapshot, "TERM_CACHE_MIN_BYTES", 1)
    _build(library_of_words)
    ranker = library_of_words.searcher.backend.postings
    full = _fts(library_of_words, "alpha zeta", 10)
    snapshot = ranker._snapshot
    assert snapshot is not None
    reads: list[str] = []
    snapshot.conn.set_trace_callback(reads.append)
    assert _fts(library_of_words, "alpha zeta", 10) == full  # from the kept arrays
    assert not [sql for sql in reads if "FROM postings" in sql]
    sizes = [postings_snapshot._size(found) for found in snapshot.terms._found.values()]
    assert len(sizes) == 2
    monkeypatch.setattr(postings_snapshot, "TERM_CACHE_BYTES", max(sizes) + 1)
    _fts(library_of_words, "kappa", 10)  # a third term: the least recent ones make room
    assert "kappa" in snapshot.terms._found
    assert snapshot.terms._bytes <= max(sizes) + 1
    assert sum(postings_snapshot._size(f) for f in snapshot.terms._found.values()) == (
        snapshot.terms._bytes
    )
    library_of_words.import_records([{"_id": "late", "title": "Late", "text": "alpha"}])
    _build(library_of_words)
    _same_ranking(
        _fts(library_of_words, "alpha zeta", 10), _fts5(library_of_words, "alpha zeta", 10)
    )
    assert ranker._snapshot is not snapshot and not ranker._snapshot.terms._found.keys() - {
        "alpha",
        "zeta",
    }


def _appends(library: Library, start: int, count: int, seed: int) -> None:
    """Works added after the sidecar was built: new words, known ones, title words."""
    rng = random.Random(seed)
    library.import_records(
        [
            {
                "_id": f"n{i}",
                "title": f"Added {rng.choice(WORDS)} omicron",
                "text": " ".join(rng.choices([*WORDS, "omicron", "upsilon"], k=25)),
            }
            for i in range(start, start + count)
        ]
    )


QUERIES = ["alpha kappa", "omicron", "upsilon sigma", "running delta", "zeta", "beta gamma"]


def test_passages_added_since_the_build_are_ranked_with_it_as_fts5_does(
    library_of_words: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library that has only grown: the sidecar's postings plus the added passages,
    indexed in memory, give FTS5's scores (idf and average length of the whole library)."""
    monkeypatch.setattr(postings_delta, "BATCH", 7)  # several batches per catch-up
    ranker = _fresh_sidecar(library_of_words)
    ranker._next_build = 9e18  # no rebuild: the overlay alone answers
    for round_, count in enumerate((30, 1, 45)):  # catches up append after append
        _appends(library_of_words, 1000 * round_, count, seed=round_)
        overlaid = ranker.overlaid
        for query in QUERIES:
            for title_weight in (1.0, 4.0):
                expected = _fts5(library_of_words, query, 40, title_weight)
                _same_ranking(_fts(library_of_words, query, 40, title_weight), expected)
        assert ranker.overlaid == overlaid + 2 * len(QUERIES)  # none left to FTS5
    hits = _fts(library_of_words, "omicron", 400)
    assert {c.work_id for c in hits} >= {f"n{i}" for i in range(30)}
    assert ranker._delta is not None and ranker._delta.rows == 76


def test_a_deletion_title_change_or_too_many_added_leave_it_to_fts5(
    library_of_words: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranker = _fresh_sidecar(library_of_words)
    ranker._next_build = 9e18
    conn = library_of_words.searcher.backend.conn

    def served(query: str) -> bool:
        before = ranker.overlaid
        _same_ranking(_fts(library_of_words, query, 20), _fts5(library_of_words, query, 20))
        return ranker.overlaid > before

    _appends(library_of_words, 0, 5, seed=1)
    assert served("omicron alpha")
    library_of_words.conn.execute("UPDATE works SET title = 'Omicron omicron' WHERE id = 'w7'")
    assert not served("omicron alpha")  # w7's passages indexed again in place
    assert ranker.rank(conn, '"omicron"', 5, title_weight=1.0, rows=10**6) is None

    ranker._drop()  # a sidecar built now, then a deletion
    ranker._examined = None
    _build(library_of_words)
    _appends(library_of_words, 100, 3, seed=2)
    assert served("omicron")
    library_of_words.delete(["n100"])
    assert not served("omicron")

    _build(library_of_words)
    ranker._drop()
    ranker._examined = None
    monkeypatch.setattr(postings_delta, "MAX_ROWS", 4)
    _appends(library_of_words, 200, 2, seed=3)
    assert served("omicron")
    _appends(library_of_words, 300, 3, seed=4)  # 5 added since the build: past 4
    assert not served("omicron")


def test_a_stale_sidecar_found_at_start_serves_the_passages_it_covers(
    library_of_words: Library,
) -> None:
    """A process opening a library that grew since its sidecar was written (by another
    process) loads the sidecar and the added passages, rather than waiting for a rebuild."""
    _build(library_of_words)
    _appends(library_of_words, 0, 12, seed=5)
    ranker = library_of_words.searcher.backend.postings
    ranker._drop()
    ranker._examined = None
    ranker._next_build = 9e18
    for query in QUERIES:
        _same_ranking(_fts(library_of_words, query, 30), _fts5(library_of_words, query, 30))
    assert ranker.overlaid == len(QUERIES)
