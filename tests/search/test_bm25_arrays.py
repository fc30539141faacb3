"""The BM25 core both engines share (:mod:`prioris.search.bm25_arrays`), called directly.

The engines' tests reach it through a real index (the SQLite sidecar, PostgreSQL's
postings table) and compare with FTS5 and SQL; these tests pin what such a round trip
does not reach: every edge of the row check (a damaged row must raise ValueError, which
both engines catch to answer from SQL instead, never another exception) and the scoring
of hand-made arrays whose scores are computed here from FTS5's formula.
"""

from __future__ import annotations

import numpy as np
import pytest

from prioris.search import bm25_arrays
from prioris.search.bm25_arrays import TermPostings


def _raw(
    ids: list[int],
    tf: list[int],
    at: list[int],
    counts: list[int],
    *,
    order: str = "<",
    width: int = 1,
) -> tuple[bytes, bytes, bytes, bytes]:
    tf_type = "u1" if width == 1 else f"{order}u2"
    return (
        np.asarray(ids, dtype=f"{order}i4").tobytes(),
        np.asarray(tf, dtype=tf_type).tobytes(),
        np.asarray(at, dtype=f"{order}i4").tobytes(),
        np.asarray(counts, dtype=f"{order}u2").tobytes(),
    )


def _decode(raw: tuple[bytes, bytes, bytes, bytes], size: int = 10, order: str = "<") -> tuple:
    return bm25_arrays.decode("term", *raw, size=size, order=order)


def test_a_well_formed_row_decodes_in_either_byte_order() -> None:
    for order in "<>":
        for width in (1, 2):
            raw = _raw(
                [0, 3, 9],
                [2, 300 if width == 2 else 5, 1],
                [1, 2],
                [4, 1],
                order=order,
                width=width,
            )
            ids, tf, at, counts = _decode(raw, size=10, order=order)
            assert ids.tolist() == [0, 3, 9]
            assert tf.tolist() == [2, 300 if width == 2 else 5, 1]
            assert at.tolist() == [1, 2] and counts.tolist() == [4, 1]


def test_a_row_is_read_little_endian_unless_told_otherwise() -> None:
    raw = _raw([1, 258], [1, 2], [1], [7], order="<")
    ids, tf, at, counts = bm25_arrays.decode("term", *raw, size=300)
    assert ids.tolist() == [1, 258] and tf.tolist() == [1, 2]
    assert at.tolist() == [1] and counts.tolist() == [7]


@pytest.mark.parametrize(
    ("raw", "size"),
    [
        (_raw([], [], [], []), 10),  # no ids at all (the tf width would divide by zero)
        (_raw([0, 3], [1, 1], [], []), 3),  # the last id is the size: one past the lengths
        (_raw([-1, 3], [1, 1], [], []), 10),  # a negative first id
        (_raw([0, 3, 3], [1, 1, 1], [], []), 10),  # ids not strictly increasing
        (_raw([0, 3, 5], [1, 1, 1], [2, 1], [1, 1]), 10),  # title positions out of order
        (_raw([0, 3, 5], [1, 1, 1], [1, 1], [1, 1]), 10),  # a title position twice
        (_raw([0, 2, 3, 5], [1] * 4, [0, 3, 2], [1] * 3), 10),  # out of order after the first
        (_raw([0, 3, 2, 5], [1] * 4, [], []), 10),  # ids out of order after the first
        (_raw([0, 3, 5], [1, 1, 1], [3], [1]), 10),  # a title position past the ids
        (_raw([0, 3, 5], [1, 1, 1], [-1], [1]), 10),  # a negative title position
        (_raw([0, 3, 5], [1, 1, 1], [0, 1], [1]), 10),  # positions and counts disagree
        (_raw([0, 3], [1, 1, 1], [], []), 10),  # a tf of no valid width
        (_raw([0, 3], [1, 1, 1, 1, 1, 1], [], []), 10),  # three bytes per id
    ],
)
def test_a_damaged_row_raises_value_error(
    raw: tuple[bytes, bytes, bytes, bytes], size: int
) -> None:
    with pytest.raises(ValueError, match="postings of 'term' damaged"):
        _decode(raw, size=size)


def test_raw_lengths_that_are_no_whole_number_of_items_raise_value_error() -> None:
    ids, tf, at, counts = _raw([0, 3], [1, 1], [1], [2])
    with pytest.raises(ValueError):  # NumPy's own: no whole number of int32
        _decode((ids + b"\x00", tf, at, counts))
    for damaged in ((ids, tf, at + b"\x00", counts), (ids, tf, at, counts + b"\x00")):
        with pytest.raises(ValueError, match="postings of 'term' damaged"):
            _decode(damaged)


def _fts5_score(tf: float, title: float, weight: float, norm: float) -> float:
    freq = 0.5 * tf + title
    return weight * freq / (freq + norm)


def test_scores_are_fts5s_formula_best_first_ties_by_lowest_id() -> None:
    lengths = np.asarray([10, 20, 10, 5, 10, 40], dtype=np.uint32)
    norm, norm32 = bm25_arrays.norms(lengths, 15.0)
    np.testing.assert_allclose(norm, 1.2 * (1 - 0.75 + 0.75 * lengths / 15.0))
    assert norm32.dtype == np.float32 and norm.dtype == np.float64
    one = TermPostings(
        np.asarray([0, 2, 3, 5]), np.asarray([2, 2, 4, 1]), np.asarray([1]), np.asarray([3]), 2.0
    )
    two = TermPostings(np.asarray([1, 2]), np.asarray([2, 6]), np.asarray([]), np.asarray([]), 0.5)
    expected = {
        0: _fts_score_of(one, 0, norm, 2.5),
        1: _fts_score_of(two, 0, norm, 2.5),
        2: _fts_score_of(one, 1, norm, 2.5) + _fts_score_of(two, 1, norm, 2.5),
        3: _fts_score_of(one, 2, norm, 2.5),
        5: _fts_score_of(one, 3, norm, 2.5),
    }
    every = bm25_arrays.score(norm32, norm, [one, two], -1, 2.5)
    best_first = sorted(expected, key=lambda c: (-expected[c], c))
    assert [c for c, _ in every] == best_first  # chunk 4 holds no term: not listed
    for chunk, value in every:
        assert value == pytest.approx(expected[chunk], rel=1e-12)
    assert bm25_arrays.score(norm32, norm, [one, two], 2, 2.5) == every[:2]


def _fts_score_of(term: TermPostings, i: int, norm: np.ndarray, title_weight: float) -> float:
    at = term.at.tolist()
    title = title_weight * float(term.counts[at.index(i)]) if i in at else 0.0
    return _fts5_score(float(term.tf[i]), title, term.weight, float(norm[term.ids[i]]))


def test_equal_scores_are_listed_by_lowest_chunk_id_and_a_limit_past_the_matches() -> None:
    norm, norm32 = bm25_arrays.norms(np.full(8, 10, dtype=np.uint32), 10.0)
    same = TermPostings(
        np.asarray([1, 4, 6]), np.asarray([2, 2, 2]), np.asarray([]), np.asarray([]), 1.0
    )
    found = bm25_arrays.score(norm32, norm, [same], 2, 1.0)
    assert [c for c, _ in found] == [1, 4]
    # a limit past the matches (but below the chunks): chunks of no score stay out
    assert [c for c, _ in bm25_arrays.score(norm32, norm, [same], 5, 1.0)] == [1, 4, 6]
    assert [c for c, _ in bm25_arrays.score(norm32, norm, [same], 20, 1.0)] == [1, 4, 6]


def _reference(
    norm: np.ndarray, lists: list[TermPostings], limit: int, title_weight: float
) -> list[tuple[int, float]]:
    """Every chunk scored in float64 by FTS5's formula, the terms in list order, sorted."""
    exact = np.zeros(len(norm), dtype=np.float64)
    held = np.zeros(len(norm), dtype=bool)
    for found in lists:
        freq = found.tf * 0.5
        if len(found.at):
            freq[found.at] += title_weight * found.counts
        exact[found.ids] += found.weight * freq / (freq + norm[found.ids])
        held[found.ids] = True
    chunks = np.flatnonzero(held)
    order = np.lexsort((chunks, -exact[chunks]))
    if limit >= 0:
        order = order[:limit]
    return [(int(chunks[i]), float(exact[chunks[i]])) for i in order]


def _corpus(seed: int) -> tuple[np.ndarray, np.ndarray, float, list[TermPostings]]:
    """A random index: chunk lengths, terms from very rare to in most chunks (Zipf-like
    sizes), some with title counts, a term twice now and then, two-byte tfs at times."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(50, 4000))
    lengths = rng.integers(0, 400, size).astype(np.uint32)
    norm, norm32 = bm25_arrays.norms(lengths, float(max(lengths.mean(), 1.0)))
    with_tokens = np.flatnonzero(lengths)
    lists = []
    for _ in range(int(rng.integers(1, 14))):
        share = float(rng.choice([0.001, 0.01, 0.05, 0.2, 0.5, 0.9]))
        count = max(1, min(len(with_tokens), int(share * len(with_tokens))))
        ids = np.sort(rng.choice(with_tokens, count, replace=False))
        tf = rng.integers(1, 300 if rng.random() < 0.2 else 6, count)
        at = np.sort(rng.choice(count, int(rng.integers(0, count + 1) * 0.2), replace=False))
        counts = rng.integers(1, 4, len(at))
        weight = float(np.log((size - count + 0.5) / (count + 0.5)))
        lists.append(TermPostings(ids, tf, at, counts, max(weight, 1e-6) * 2.2))
        if rng.random() < 0.15:  # the same word twice in the query
            lists.append(lists[-1])
    return norm, norm32, bm25_arrays.floor(norm), lists


@pytest.mark.parametrize("seed", range(60))
def test_the_pruned_ranking_is_the_full_one(seed: int) -> None:
    """MaxScore skips common terms' postings for chunks that cannot make the list: the
    list must be the one scoring every chunk gives, scores and ties included, for every
    limit (a few, many, more than match) and title weight, with and without a floor."""
    norm, norm32, floor, lists = _corpus(seed)
    for title_weight in (0.0, 1.0, 4.0, -0.1):  # negative: no bound, the full pass
        full = _reference(norm, lists, -1, title_weight)
        for limit in (1, 3, 10, 40, 400, len(full) + 5):
            want = full[:limit]
            for norm_floor in (floor, 1.2 * 0.25):
                got = bm25_arrays.score(
                    norm32, norm, lists, limit, title_weight, norm_floor=norm_floor
                )
                assert [c for c, _ in got] == [c for c, _ in want], (seed, title_weight, limit)
                np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-12)
        every = bm25_arrays.score(norm32, norm, lists, -1, title_weight)
        assert [c for c, _ in every] == [c for c, _ in full]


def test_a_limit_of_zero_lists_nothing() -> None:
    norm, norm32, floor, lists = _corpus(1)
    assert bm25_arrays.score(norm32, norm, lists, 0, 1.0, norm_floor=floor) == []


def test_the_floor_is_the_smallest_norm_of_a_chunk_with_tokens() -> None:
    norm, _ = bm25_arrays.norms(np.asarray([0, 7, 3, 0, 12], dtype=np.uint32), 5.0)
    assert bm25_arrays.floor(norm) == pytest.approx(1.2 * (0.25 + 0.75 * 3 / 5.0))
    empty, _ = bm25_arrays.norms(np.zeros(3, dtype=np.uint32), 1.0)
    assert bm25_arrays.floor(empty) == pytest.approx(1.2 * 0.25)


def test_common_terms_are_only_looked_up_once_the_rare_ones_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The point of MaxScore: with a rare, heavy term and two words in nearly every chunk,
    the common lists are never scattered over every chunk (only looked up for the chunks
    that can still make the list), and the list is still the full one. Without the limit
    every list is scored in full."""
    size = 20_000
    norm, norm32 = bm25_arrays.norms(np.full(size, 100, dtype=np.uint32), 100.0)
    rng = np.random.default_rng(3)
    rare = TermPostings(
        np.sort(rng.choice(size, 300, replace=False)),
        rng.integers(1, 6, 300),
        np.asarray([], dtype=np.int64),
        np.asarray([], dtype=np.int64),
        2.2 * float(np.log((size - 300 + 0.5) / 300.5)),
    )
    common = [
        TermPostings(
            np.sort(rng.choice(size, 18_000, replace=False)),
            rng.integers(1, 3, 18_000),
            np.asarray([], dtype=np.int64),
            np.asarray([], dtype=np.int64),
            2.2 * 0.1,
        )
        for _ in range(2)
    ]
    lists = [common[0], rare, common[1]]
    dense: list[int] = []
    add = bm25_arrays._add

    def counted(scores: np.ndarray, norms: np.ndarray, found: TermPostings, weight: float) -> None:
        dense.append(len(found.ids))
        add(scores, norms, found, weight)

    monkeypatch.setattr(bm25_arrays, "_add", counted)
    floor = bm25_arrays.floor(norm)
    got = bm25_arrays.score(norm32, norm, lists, 10, 1.0, norm_floor=floor)
    assert dense == [300]  # the rare term alone was scattered
    want = _reference(norm, lists, 10, 1.0)
    assert [c for c, _ in got] == [c for c, _ in want]
    dense.clear()
    bm25_arrays.score(norm32, norm, lists, -1, 1.0, norm_floor=floor)
    assert sorted(dense) == [300, 18_000, 18_000]


@pytest.mark.parametrize("seed", range(20))
def test_ids_stored_as_gaps_read_back_the_same_in_the_fewest_bytes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.choice([300, 70_000, 5_000_000, 2**31 - 1]))
    count = int(rng.integers(1, min(size, 20_000)))
    ids = np.sort(rng.choice(min(size, 10**7), count, replace=False)).astype(np.int32)
    raw = bm25_arrays.encode_ids(ids)
    back = bm25_arrays.decode_ids("t", raw, size=size)
    assert back.dtype == np.int32 and np.array_equal(back, ids)
    largest = int(np.diff(ids).max()) if count > 1 else 0
    width = 1 if largest < 256 else 2 if largest < 65536 else 4
    assert raw[0] == width and len(raw) == 5 + width * (count - 1)


def test_ids_far_apart_and_at_the_edges_of_int32() -> None:
    ids = np.array([0, 255, 256, 65_792, 2**31 - 2], dtype=np.int32)
    raw = bm25_arrays.encode_ids(ids)
    assert raw[0] == 4
    assert np.array_equal(bm25_arrays.decode_ids("t", raw, size=2**31 - 1), ids)
    with pytest.raises(ValueError, match="damaged"):
        bm25_arrays.decode_ids("t", raw, size=2**31 - 2)  # the last id past the lengths
    for damaged in (b"", b"\x01\x00", b"\x05" + bytes(8), b"\x01" + bytes(4) + b"\x00"):
        with pytest.raises(ValueError, match="damaged"):
            bm25_arrays.decode_ids("t", damaged, size=100)
