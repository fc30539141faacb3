"""The BM25 postings sidecar (``<library>.bm25``) as hostile input: a real sidecar built on
a small library, then its bytes, its postings rows and its meta values mutated.

What is promised (src/prioris/engines/sqlite/postings_snapshot.py and postings_rank.py): a
sidecar that is unreadable or disagrees with the library (format, tokenizer, row count,
lengths size, ids out of range or out of order, blobs of the wrong size) is never trusted,
so every fts search returns exactly FTS5's ranking; nothing ever raises or hangs. A
*consistent* forgery (a plausible term frequency, one id dropped from a list) cannot be told
from a real snapshot without a checksum the format does not have: for arbitrary bytes the
oracle is therefore "FTS5's ranking, or a well-formed ranking from the sidecar", and the
structural damage above is checked against FTS5 exactly (docs/testing.md, "Second round").
"""

from __future__ import annotations

import random
import sqlite3 as std_sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from prioris.engines.sqlite import postings
from prioris.library import Library
from prioris.search.protocols import ChunkScore
from search.test_postings import _fts, _fts5, _same_ranking

WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "running", "runs"]
QUERIES = [("alpha", 10), ("kappa beta", 10), ("gamma delta kappa", 50), ("running runs", 5)]
TERMS = ["alpha", "beta", "kappa", "run"]  # FTS5 terms (porter: running, runs -> run)
HANG_SECONDS = 30
LAST_CHUNK = 60
TOKENIZER = "porter unicode61 remove_diacritics 2"  # chunks_fts's (migration 4)


@pytest.fixture
def small(library: Library) -> tuple[Library, bytes]:
    """60 works, the sidecar built (min_rows 1), and its pristine bytes."""
    rng = random.Random(3)
    library.import_records(
        [
            {
                "_id": f"w{i}",
                "title": f"Work {' '.join(rng.choices(WORDS, k=2))}",
                "text": " ".join(rng.choices(WORDS, [40, 20, 10, 5, 3, 2, 2], k=25)),
            }
            for i in range(60)
        ]
    )
    last = library.conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
    assert last == LAST_CHUNK  # one chunk a work: the lengths array has 61 entries
    ranker = library.searcher.backend.postings
    ranker.min_rows = 1
    ranker._background = False
    path = Path(ranker.path)
    conn = library.storage.connect(migrate=False)
    try:
        assert postings.build(conn, path) is not None
    finally:
        conn.close()
    return library, path.read_bytes()


def _searches(library: Library, sidecar: bytes) -> tuple[list[Any], int]:
    """Put ``sidecar`` in place, forget what was read, run every query (in a thread, so a
    hang fails instead of stalling the run); the rankings and how many the sidecar gave."""
    ranker = library.searcher.backend.postings
    Path(ranker.path).write_bytes(sidecar)
    ranker._drop()
    ranker._examined = None
    ranker._next_build = 9e18  # no rebuild: the damaged file stays for every query
    answered = ranker.answered
    found: list[Any] = []

    def run() -> None:
        try:
            found.extend(_fts(library, q, limit) for q, limit in QUERIES)
        except BaseException as exc:  # reported below, with its type
            found.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_SECONDS)
    assert not thread.is_alive(), "a search hung on the mutated sidecar"
    for item in found:
        assert not isinstance(item, BaseException), f"search raised {item!r}"
    return found, ranker.answered - answered


def _well_formed(library: Library, got: list[ChunkScore], limit: int) -> None:
    chunks = {r[0] for r in library.conn.execute("SELECT id FROM chunks")}
    scores = [c.score for c in got]
    assert len(got) <= limit and {c.chunk_id for c in got} <= chunks
    assert all(np.isfinite(s) for s in scores) and scores == sorted(scores, reverse=True)


def _sqlite_edit(sidecar: bytes, tmp: Path, sql: str, params: tuple[Any, ...]) -> bytes:
    """The sidecar after one SQL change (made with the standard sqlite3 on a copy)."""
    tmp.write_bytes(sidecar)
    conn = std_sqlite3.connect(tmp)
    try:
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()
    return tmp.read_bytes()


# -- arbitrary bytes: never an exception or a hang, FTS5's ranking or a well-formed one ----
@given(
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=64)), min_size=1, max_size=6
    ),
    cut=st.one_of(st.none(), st.floats(0, 1)),
)
def test_mutated_bytes_never_break_a_search(
    small: tuple[Library, bytes], edits: list[tuple[float, bytes]], cut: float | None
) -> None:
    library, pristine = small
    data = bytearray(pristine)
    for where, chunk in edits:
        at = int(where * (len(data) - 1))
        data[at : at + len(chunk)] = chunk
    if cut is not None:
        data = data[: int(cut * len(data))]
    results, answered = _searches(library, bytes(data))
    for (query, limit), got in zip(QUERIES, results, strict=True):
        if answered == 0:  # ignored: FTS5 answered every query
            _same_ranking(got, _fts5(library, query, limit))
        else:
            _well_formed(library, got, limit)


# -- structural damage: never trusted, FTS5's ranking exactly ------------------------------
def _gaps(ids: list[int]) -> bytes:
    """``ids`` in the sidecar's format (a width byte, the first id, the gaps) whatever they
    are: a repeated id is a gap of 0, an id lower than the one before wraps to a gap so
    large the list runs past the library's chunks."""
    width = 4
    gaps = np.diff(np.array(ids, dtype=np.int64)) % (1 << 32)
    head = bytes((width,)) + int(ids[0]).to_bytes(4, "little", signed=True)
    return head + gaps.astype("<u4").tobytes()


def _int32s(draw: st.DrawFn, valid_ids: int) -> bytes:
    """Chunk ids that break a promise, as the sidecar stores them (:func:`_gaps`): out of
    range, negative, repeated or out of order."""
    kind = draw(st.sampled_from(["range", "negative", "repeat", "order"]))
    ids = sorted(
        draw(st.lists(st.integers(0, valid_ids - 1), min_size=2, max_size=20, unique=True))
    )
    if kind == "range":
        ids[draw(st.integers(0, len(ids) - 1))] = draw(st.integers(valid_ids, 2**31 - 1))
        ids.sort()
    elif kind == "negative":
        ids[0] = draw(st.integers(-(2**31), -1))
    elif kind == "repeat":
        at = draw(st.integers(1, len(ids) - 1))
        ids[at] = ids[at - 1]
    else:
        ids = list(reversed(ids))
    return _gaps(ids)


@st.composite
def damage(draw: st.DrawFn) -> tuple[str, tuple[Any, ...]]:
    """One SQL change the sidecar's reader must notice."""
    term = draw(st.sampled_from(TERMS))
    kind = draw(st.sampled_from(["ids", "tf", "title", "meta", "meta_type"]))
    if kind == "ids":
        ids = _int32s(draw, LAST_CHUNK + 1)
        return (
            "UPDATE postings SET ids = ?, tf = ?, title_at = x'', title_tf = x'' WHERE term = ?",
            (ids, bytes([1]) * ((len(ids) - 5) // 4 + 1), term),
        )
    if kind == "tf":  # a tf blob whose size fits no width for the ids
        blob = draw(st.binary(max_size=200))
        return (
            "UPDATE postings SET tf = ? WHERE term = ? AND length(?) NOT IN "
            "(length(ids) / 4, length(ids) / 2) AND length(ids) > 0",
            (blob, term, blob),
        )
    if kind == "title":  # title positions past the list, or counts of another length
        at = draw(st.lists(st.integers(-5, 10_000), min_size=1, max_size=5))
        counts = draw(st.lists(st.integers(0, 65535), max_size=6))
        if len(counts) == len(at) and sorted(set(at)) == at and at[0] >= 0 and at[-1] < 10_000:
            at, counts = [*at, 10_000], [*counts, 1]  # else plausible: point past the list
        return (
            "UPDATE postings SET title_at = ?, title_tf = ? WHERE term = ?",
            (np.array(at, "<i4").tobytes(), np.array(counts, "<u2").tobytes(), term),
        )
    key = draw(st.sampled_from(["format", "rows", "tokenizer", "lengths"]))
    if kind == "meta_type":  # a value of the wrong type, size or NULL
        value = draw(
            st.one_of(
                st.none(),
                st.binary(max_size=300),
                st.text(max_size=20),
                st.floats(allow_nan=True),
                st.integers(-(2**63), 2**63 - 1),
            )
        )
        return ("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    changed = {
        "format": draw(st.integers(2, 10**6)),
        "rows": draw(
            st.one_of(st.integers(-(2**40), LAST_CHUNK - 1), st.integers(LAST_CHUNK + 1, 2**62))
        ),
        "tokenizer": draw(
            st.one_of(  # real tokenizers too: they would read the words differently
                st.sampled_from(["unicode61", "porter ascii", "trigram", "ascii"]),
                st.text(min_size=1, max_size=30),
            ).filter(lambda t: t != TOKENIZER)
        ),
        "lengths": draw(st.binary(max_size=400).filter(lambda b: len(b) != 4 * (LAST_CHUNK + 1))),
    }[key]
    return ("UPDATE meta SET value = ? WHERE key = ?", (changed, key))


META = "UPDATE meta SET value = ? WHERE key = ?"
IDS = "UPDATE postings SET ids = ?, tf = ?, title_at = x'', title_tf = x'' WHERE term = ?"


@given(change=damage())
# the damage issue 25 found, always among the examples whatever is drawn
@example(change=(IDS, (_gaps([1, 100_000, 20]), b"\x01" * 3, "kappa")))
@example(change=(IDS, (_gaps([5, 3, 9]), b"\x01" * 3, "alpha")))
@example(change=(IDS, (_gaps([2, 7, 7, 30]), b"\x01" * 4, "alpha")))  # one id twice
@example(change=(META, (30, "rows")))  # half the library's passages: another average length
@example(change=(META, ("no_such_tokenizer", "tokenizer")))
@example(change=(META, ("unicode61", "tokenizer")))  # a real one, but not the library's
@example(change=(META, (bytes(4 * 1000), "lengths")))
@example(change=(META, (999_999, "rows")))
def test_a_sidecar_that_disagrees_is_never_trusted(
    small: tuple[Library, bytes], tmp_path: Path, change: tuple[str, tuple[Any, ...]]
) -> None:
    library, pristine = small
    sql, params = change
    mutated = _sqlite_edit(pristine, tmp_path / "edit.bm25", sql, params)
    results, _ = _searches(library, mutated)
    for (query, limit), got in zip(QUERIES, results, strict=True):
        _same_ranking(got, _fts5(library, query, limit))


def test_the_pristine_sidecar_answers(small: tuple[Library, bytes]) -> None:
    """The fixture's sidecar is in use (so the mutations above mutate what answers)."""
    library, pristine = small
    results, answered = _searches(library, pristine)
    assert answered == len(QUERIES)
    for (query, limit), got in zip(QUERIES, results, strict=True):
        _same_ranking(got, _fts5(library, query, limit))


def test_a_token_total_that_disagrees_with_the_library_is_not_trusted(
    small: tuple[Library, bytes], tmp_path: Path
) -> None:
    library, pristine = small
    mutated = _sqlite_edit(
        pristine,
        tmp_path / "edit.bm25",
        "UPDATE meta SET value = value * 3 WHERE key = ?",
        ("tokens",),
    )
    results, _ = _searches(library, mutated)
    for (query, limit), got in zip(QUERIES, results, strict=True):
        _same_ranking(got, _fts5(library, query, limit))
