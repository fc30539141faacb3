"""The postings sidecar's paths a small library never takes by itself: a very frequent
term read in batches (past ``LARGE_TERM`` instances), instances out of chunk order.

Each is forced here on a real FTS5 index and compared with the ordinary path, whose
snapshot tests/search/test_postings.py checks against FTS5's own ranking.
"""

from __future__ import annotations

import os
import sqlite3 as stdlib_sqlite3
from pathlib import Path

import numpy as np
import pytest

from prioris.engines.sqlite import postings
from prioris.library import Library


@pytest.fixture
def library_of_terms(library: Library) -> Library:
    texts = [
        "alpha beta alpha gamma",
        "beta beta delta",
        "alpha delta delta delta omega",
        "gamma alpha",
        "omega omega omega alpha beta",
    ]
    library.import_records(
        [{"_id": f"w{i}", "title": f"Alpha {i}", "text": text} for i, text in enumerate(texts)]
    )
    return library


def _snapshot(library: Library, target: Path) -> tuple[list[tuple], dict]:
    conn = library.storage.connect(migrate=False)
    try:
        assert postings.build(conn, target) is not None
    finally:
        conn.close()
    out = stdlib_sqlite3.connect(target)
    try:
        rows = out.execute("SELECT * FROM postings ORDER BY term").fetchall()
        meta = dict(out.execute("SELECT key, value FROM meta").fetchall())
    finally:
        out.close()
    return rows, meta


def test_a_term_read_in_batches_gives_the_same_snapshot(
    library_of_terms: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A term past ``LARGE_TERM`` instances is read in batches of rows, not one string:
    the same postings, also when a chunk's instances straddle two batches."""
    plain = _snapshot(library_of_terms, tmp_path / "plain.bm25")
    monkeypatch.setattr(postings, "LARGE_TERM", 0)
    monkeypatch.setattr(postings, "BATCH", 2)
    batched = _snapshot(library_of_terms, tmp_path / "batched.bm25")
    assert batched == plain
    assert any(term == "alpha" for term, *_ in plain[0])


def test_instances_out_of_chunk_order_are_sorted_first() -> None:
    """FTS5 yields a term's instances in chunk order; should it not, they are sorted
    (stably) before they are counted, not counted as separate chunks."""

    def part(pairs: list[tuple[int, int]]) -> np.ndarray:  # (chunk id, column) instances
        return np.array([doc * 4 + col for doc, col in pairs], dtype=np.int64)

    ids, base, title = postings.term_postings(iter([part([(5, 0), (2, 1), (5, 2), (2, 0)])]))
    assert ids.tolist() == [2, 5]
    assert base.tolist() == [2, 3]  # 2 x text + heading
    assert title.tolist() == [1, 0]


def test_an_index_created_without_a_tokenize_option_has_fts5s_default() -> None:
    """The tokenizer a sidecar records (queries are tokenized the same way): the one
    chunks_fts names, else FTS5's default, unicode61."""
    conn = stdlib_sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, heading)")
        assert postings.tokenizer_of(conn) == "unicode61"
        conn.execute("DROP TABLE chunks_fts")
        conn.execute(
            "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, heading, "
            "tokenize = 'porter unicode61 remove_diacritics 2 tokenchars ''-''')"
        )
        assert postings.tokenizer_of(conn) == "porter unicode61 remove_diacritics 2 tokenchars '-'"
    finally:
        conn.close()


def test_varints_after_a_nine_byte_one_start_afresh() -> None:
    """A nine-byte varint (its last byte carries 8 bits) ends where it ends: the next one
    counts its own bytes from the first, also when it is nine bytes long too."""
    nine = [0xFF] * 8 + [0x01]
    assert postings.varints(bytes(nine + nine)) == [(1 << 64) - 255] * 2
    eight = [0x81] * 7 + [0x00]  # seven groups of 1, then a last group of 0
    value = int("0000001" * 7 + "0000000", 2)
    assert postings.varints(bytes(nine + eight + [0x05])) == [(1 << 64) - 255, value, 5]


class _LengthsOf(np.ndarray):
    """A small lengths array that says it has ``size`` entries (one per passage): a
    library of 2**31 passages without gigabytes of lengths."""

    size = 0

    def __len__(self) -> int:
        return self.size


@pytest.mark.parametrize(("size", "built"), [((1 << 31) - 1, True), (1 << 31, False)])
def test_passages_past_int32_get_no_snapshot(
    library_of_terms: Library,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: int,
    built: bool,
) -> None:
    """The sidecar stores passage positions as int32: a library of more passages gets no
    snapshot (FTS5 answers), rather than one with wrapped positions. (Chunk ids past int32
    are fine: tests/storage/test_damaged_passages.py.)"""
    monkeypatch.setattr(_LengthsOf, "size", size)
    real = postings._doc_lengths

    def counted(conn: object) -> tuple[np.ndarray, np.ndarray]:
        ids, lengths = real(conn)
        return ids, lengths.view(_LengthsOf)

    monkeypatch.setattr(postings, "_doc_lengths", counted)
    target = tmp_path / "big.bm25"
    conn = library_of_terms.storage.connect(migrate=False)
    try:
        result = postings.build(conn, target)
    finally:
        conn.close()
    assert (result is not None) == built and target.exists() == built


def test_a_sidecar_that_disagrees_is_ignored_and_says_why_in_the_debug_log(
    library_of_terms: Library, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import dataclasses
    import logging

    from prioris.engines.sqlite import postings_rank, postings_snapshot

    target = tmp_path / "other.bm25"
    _snapshot(library_of_terms, target)
    conn = library_of_terms.storage.connect(migrate=False)
    try:
        facts = postings_snapshot._library_facts(conn)
    finally:
        conn.close()
    file_id = postings_snapshot._file_id(target)
    assert file_id is not None
    opened = postings_snapshot._open(target, file_id, facts)
    assert opened is not None and opened.rows == facts.rows
    opened.conn.close()
    grown = dataclasses.replace(facts, rows=facts.rows + 1)  # a chunk added since
    kept = postings_snapshot._open(target, file_id, grown)  # may serve with the added ones
    assert kept is not None and not kept.agrees
    kept.conn.close()
    shrunk = dataclasses.replace(facts, last_id=facts.last_id - 1)  # lengths past its ids
    with caplog.at_level(logging.DEBUG, logger=postings_rank.__name__):
        assert postings_snapshot._open(target, file_id, shrunk) is None
    assert f"postings sidecar {target} ignored: the sidecar does not describe" in caplog.text


@pytest.mark.parametrize(("tokens", "trusted"), [((1 << 62) - 1, True), (1 << 62, False)])
def test_a_token_total_past_the_formats_range_is_not_trusted(
    library_of_terms: Library, tmp_path: Path, tokens: int, trusted: bool
) -> None:
    """A sidecar's token total must lie in (0, 2**62), even one the library's own record
    agrees with (both damaged alike)."""
    import dataclasses

    from prioris.engines.sqlite import postings_snapshot

    target = tmp_path / "tokens.bm25"
    _snapshot(library_of_terms, target)
    out = stdlib_sqlite3.connect(target)
    out.execute("UPDATE meta SET value = ? WHERE key = 'tokens'", (tokens,))
    out.commit()
    out.close()
    conn = library_of_terms.storage.connect(migrate=False)
    try:
        facts = dataclasses.replace(postings_snapshot._library_facts(conn), tokens=tokens)
    finally:
        conn.close()
    file_id = postings_snapshot._file_id(target)
    assert file_id is not None
    opened = postings_snapshot._open(target, file_id, facts)
    assert (opened is not None) == trusted
    if opened is not None:
        opened.conn.close()


def test_a_failed_build_logs_one_whole_sentence(
    library_of_terms: Library, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from prioris.engines.sqlite.postings_rank import PostingsRanker

    ranker = PostingsRanker(
        lambda: library_of_terms.storage.connect(migrate=False),
        tmp_path / "no such folder" / "library.sqlite.bm25",
        min_rows=1,
        background=False,
    )
    with caplog.at_level(logging.WARNING):
        ranker._refresh()
        ranker._refresh()  # paused after a failure: not tried again at once
    assert caplog.messages == [
        "BM25 postings snapshot not built (unable to open database file): FTS5 answers meanwhile"
    ]
    ranker.close()


def test_an_empty_phrase_is_fts5s_and_counts_for_no_build(
    library_of_terms: Library, tmp_path: Path
) -> None:
    """A build starts from a process's second query the snapshot could answer; an
    expression it cannot (``""``, FTS5's empty phrase) is left to FTS5 and not counted."""
    from prioris.engines.sqlite.postings_rank import PostingsRanker

    target = tmp_path / "library.sqlite.bm25"
    ranker = PostingsRanker(
        lambda: library_of_terms.storage.connect(migrate=False),
        target,
        min_rows=1,
        background=False,
    )
    conn = library_of_terms.conn
    try:
        with library_of_terms.lock:
            assert ranker.rank(conn, '"alpha"', 5, title_weight=1.0, rows=5) is None  # first
            assert ranker.rank(conn, '""', 5, title_weight=1.0, rows=5) is None
            assert ranker.last_build is None and not target.exists()
            assert ranker.rank(conn, '"beta"', 5, title_weight=1.0, rows=5) is None  # second
            assert ranker.last_build is not None and target.exists()
            assert ranker.rank(conn, '"beta"', 5, title_weight=1.0, rows=5)
    finally:
        ranker.close()


def test_a_sidecar_found_unusable_is_not_opened_again_until_it_changes(
    library_of_terms: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prioris.engines.sqlite import postings_rank

    target = tmp_path / "library.sqlite.bm25"
    _snapshot(library_of_terms, target)
    out = stdlib_sqlite3.connect(target)
    out.execute("UPDATE meta SET value = value + 1 WHERE key = 'rows'")  # disagrees
    out.commit()
    out.close()
    opened: list[Path] = []
    real = postings_rank._open

    def counting(path: Path, *args: object) -> object:
        opened.append(path)
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(postings_rank, "_open", counting)
    ranker = postings_rank.PostingsRanker(
        lambda: library_of_terms.storage.connect(migrate=False),
        target,
        min_rows=1,
        background=False,
    )
    ranker._next_build = float("inf")  # no rebuild replaces the file meanwhile
    try:
        with library_of_terms.lock:
            for word in ("alpha", "beta", "gamma"):
                assert (
                    ranker.rank(library_of_terms.conn, f'"{word}"', 5, title_weight=1.0, rows=5)
                    is None
                )
        assert opened == [target]  # examined once: the same file is not read again
        os.utime(target, ns=(1, 1))  # a changed file (another mtime) is looked at again
        with library_of_terms.lock:
            ranker.rank(library_of_terms.conn, '"alpha"', 5, title_weight=1.0, rows=5)
        assert opened == [target, target]
    finally:
        ranker.close()
