"""BM25 of an OR of terms from postings arrays, in numpy: the scoring core both engines use.

SQLite's postings sidecar (:mod:`prioris.engines.sqlite.postings_rank`) and PostgreSQL's
postings table (:mod:`prioris.engines.postgres.postings`) keep the same per-term arrays:

- ``ids``: the chunk ids holding the term, strictly increasing;
- ``tf``: per chunk ``2 x passage + heading`` occurrences (the heading weighs 0.5);
- ``at`` / ``counts``: the positions in ``ids`` of the chunks with the term in the title,
  and those title counts (the title weight is a query-time setting, so kept apart).

:func:`score` gives the scores FTS5's ``bm25()`` gives (and PostgreSQL's SQL BM25, which
is FTS5's formula): chunks are scored in float32 (half the memory traffic), then the
head of the list, down to a margin below the cut that covers float32's rounding, is
scored again in float64. With a limit, common terms are only looked up for the chunks
that can still make the list (MaxScore, see :func:`score`), so a query's cost follows
its rare words rather than every posting of its common ones. One engine's arrays are
checked by :func:`decode` before use: a damaged row (lengths that disagree, ids out of
order or out of range) raises ValueError, and the caller answers from its SQL path instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

K1, B = 1.2, 0.75  # FTS5's bm25() constants
# float32 first-pass scores err by ~1e-7 per term added: chunks down to this share below
# the limit-th score are scored again in float64, so float32 never decides the list
FLOAT32_MARGIN = 1e-4
# theta (a lower bound of the limit-th score) is read from an added list this short at most
THETA_IDS = 1 << 16
# a binary search costs about this many steps of a pass over a term's ids
SEARCH_COST = 16


@dataclass(frozen=True)
class TermPostings:
    """One term's arrays and its ``idf x (k1 + 1)``."""

    ids: np.ndarray
    tf: np.ndarray
    at: np.ndarray
    counts: np.ndarray
    weight: float


def norms(lengths: np.ndarray, avgdl: float) -> tuple[np.ndarray, np.ndarray]:
    """``k1 * (1 - b + b * length / avgdl)`` by chunk id, in float64 and float32."""
    norm = K1 * (1 - B + B * lengths.astype(np.float64) / avgdl)
    return norm, norm.astype(np.float32)


DELTA_WIDTHS = (1, 2, 4)  # bytes of one gap in :func:`encode_ids`


def encode_ids(ids: np.ndarray) -> bytes:
    """Strictly increasing chunk ids, small: a width byte, the first id (``<i4``), then
    every gap to the next id in the fewest bytes that hold the largest (``<u1``/``<u2``/
    ``<u4``). A word in most chunks has gaps of a few chunks: one byte a posting instead
    of four (the 1M realistic sidecar's ids: 535 -> 185 MiB)."""
    gaps = np.diff(ids.astype(np.int64))
    largest = int(gaps.max()) if len(gaps) else 0
    width = next(w for w in DELTA_WIDTHS if largest < 1 << (8 * w))
    head = bytes((width,)) + int(ids[0]).to_bytes(4, "little", signed=True)
    return head + gaps.astype(f"<u{width}").tobytes()


def decode_ids(term: str, raw: bytes, *, size: int) -> np.ndarray:
    """The ids :func:`encode_ids` wrote, checked: a known width, whole gaps, the first id
    and the last within ``[0, size)``, no gap of zero (ids strictly increasing). Anything
    else raises ValueError."""
    width = raw[0] if raw else 0
    body = len(raw) - 5
    if width not in DELTA_WIDTHS or body < 0 or body % width:
        raise ValueError(f"postings of {term!r} damaged")
    first = int.from_bytes(raw[1:5], "little", signed=True)
    gaps = np.frombuffer(raw, dtype=f"<u{width}", offset=5)
    if first < 0 or first + int(gaps.sum(dtype=np.int64)) >= size or bool(np.any(gaps == 0)):
        raise ValueError(f"postings of {term!r} damaged")
    ids = np.empty(len(gaps) + 1, dtype=np.int32)
    ids[0] = first
    np.cumsum(gaps, dtype=np.int32, out=ids[1:])  # every partial sum < size < 2**31
    ids[1:] += first
    return ids


def decode(
    term: str,
    ids_raw: bytes | np.ndarray,
    tf_raw: bytes,
    at_raw: bytes,
    counts_raw: bytes,
    *,
    size: int,
    order: str = "<",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A stored row's arrays (``order``: "<" little-endian, ">" big-endian), checked: ids
    strictly increasing within ``[0, size)``, one tf per id of one or two bytes, title
    positions strictly increasing within ``ids``. Anything else raises ValueError. Ids
    given as an array come from :func:`decode_ids`, which checked them."""
    checked = isinstance(ids_raw, np.ndarray)
    ids = ids_raw if checked else np.frombuffer(ids_raw, dtype=f"{order}i4")
    if len(ids) == 0 or (not checked and len(ids_raw) % 4) or len(at_raw) % 4:
        raise ValueError(f"postings of {term!r} damaged")
    if len(counts_raw) % 2:
        raise ValueError(f"postings of {term!r} damaged")
    width = len(tf_raw) // len(ids)
    at = np.frombuffer(at_raw, dtype=f"{order}i4")
    counts = np.frombuffer(counts_raw, dtype=f"{order}u2")
    if (
        width not in (1, 2)
        or width * len(ids) != len(tf_raw)
        or len(at) != len(counts)
        or (len(at) and (at[0] < 0 or at[-1] >= len(ids)))
        or ids[0] < 0
        or ids[-1] >= size
        # written strictly increasing: out of order would change the ranking, and an id
        # past the end in the middle would index out of the lengths
        or (not checked and len(ids) > 1 and bool(np.any(ids[1:] <= ids[:-1])))
        or (len(at) > 1 and bool(np.any(at[1:] <= at[:-1])))
    ):
        raise ValueError(f"postings of {term!r} damaged")
    tf = np.frombuffer(tf_raw, dtype="u1" if width == 1 else f"{order}u2")
    return ids, tf, at, counts


def floor(norm: np.ndarray) -> float:
    """The smallest ``norm`` of a chunk with any token: every term's score bound divides by
    it (a chunk of no token holds no term). Computed once per snapshot by the callers."""
    held = norm[norm > K1 * (1 - B)]
    return float(held.min()) if len(held) else K1 * (1 - B)


def _bound(found: TermPostings, norm_floor: float, title_weight: float) -> float:
    """The most one term can add to any chunk's score: its largest frequency over the
    smallest length (``freq / (freq + norm)`` grows with freq and falls with norm)."""
    top = 0.5 * float(found.tf.max()) if len(found.tf) else 0.0
    if len(found.counts):
        top += max(title_weight, 0.0) * float(found.counts.max())
    return found.weight * top / (top + norm_floor) if top > 0 else 0.0


def _exact(
    matched: np.ndarray, lists: list[TermPostings], norm: np.ndarray, title_weight: float
) -> np.ndarray:
    """FTS5's score of each ``matched`` chunk in float64, the terms added in list order
    (the same order whichever path chose the chunks, so equal chunks score equally)."""
    exact = np.zeros(len(matched), dtype=np.float64)
    for found in lists:
        ids, tf, at, counts = found.ids, found.tf, found.at, found.counts
        if len(ids) == 0:
            continue
        where = np.minimum(np.searchsorted(ids, matched), len(ids) - 1)
        hit = ids[where] == matched
        where = where[hit]
        freq = tf[where] * 0.5
        if len(at):  # title counts of the hits: their positions among the title ones
            spot = np.minimum(np.searchsorted(at, where), len(at) - 1)
            titled = at[spot] == where
            freq[titled] += title_weight * counts[spot[titled]]
        exact[hit] += found.weight * freq / (freq + norm[matched[hit]])
    return exact


def _best(matched: np.ndarray, exact: np.ndarray, limit: int) -> list[tuple[int, float]]:
    order = np.lexsort((matched, -exact))  # best first, ties by lowest chunk id
    if limit >= 0:
        order = order[:limit]
    return [(int(matched[i]), float(exact[i])) for i in order]


def _add(scores: np.ndarray, norm32: np.ndarray, found: TermPostings, title_weight: float) -> None:
    """One term's float32 scores added into the dense ``scores`` by chunk id."""
    ids, tf, at, counts = found.ids, found.tf, found.at, found.counts
    freq = tf.astype(np.float32)
    freq *= np.float32(0.5)
    if len(at):
        freq[at] += np.float32(title_weight) * counts
    length = norm32[ids]
    length += freq
    freq *= np.float32(found.weight)
    freq /= length
    scores[ids] += freq


def _add_to(
    part: np.ndarray,
    chosen: np.ndarray,
    slot: np.ndarray,
    flag: np.ndarray,
    norm32: np.ndarray,
    found: TermPostings,
    title_weight: float,
) -> None:
    """One term's float32 scores of the ``chosen`` chunks (sorted ids) added into ``part``.
    Few chosen chunks: a binary search each in the term's ids. Many: one gather of
    ``flag`` (True for chosen ids; a byte per chunk) over the term's ids finds those it
    holds, and ``slot`` (a chunk id's place in ``chosen``, valid where ``flag`` is set)
    places them, with no float work for the others."""
    ids = found.ids
    if len(chosen) * SEARCH_COST < len(ids):
        where = np.minimum(np.searchsorted(ids, chosen), len(ids) - 1)
        place = np.flatnonzero(ids[where] == chosen)
        where = where[place]
    else:
        where = np.flatnonzero(flag[ids])
        place = slot[ids[where]]
    freq = found.tf[where].astype(np.float32)
    freq *= np.float32(0.5)
    if len(found.at):
        spot = np.minimum(np.searchsorted(found.at, where), len(found.at) - 1)
        titled = found.at[spot] == where
        freq[titled] += np.float32(title_weight) * found.counts[spot[titled]]
    part[place] += np.float32(found.weight) * freq / (freq + norm32[chosen[place]])


def score(
    norm32: np.ndarray,
    norm: np.ndarray,
    lists: list[TermPostings],
    limit: int,
    title_weight: float,
    *,
    norm_floor: float = K1 * (1 - B),
) -> list[tuple[int, float]]:
    """(chunk id, score) best first, ties by lowest id; ``limit`` < 0: every chunk with a
    score. A term in two lists (twice in the query, or split into disjoint lists) adds
    both. ``norm``/``norm32`` index by chunk id and cover every id of ``lists``;
    ``norm_floor`` (:func:`floor`) is at most the norm of any chunk with a term: a
    tighter one skips more, never changes the list.

    With a limit, the terms are added rarest (highest bound) first, and a running lower
    bound of the ``limit``-th score (``theta``: the ``limit``-th partial score among the
    chunks of one short list; partial scores only grow) is kept. Once the bounds of the
    terms left add up to less than theta, a chunk holding none of the terms added so far
    cannot reach the list (MaxScore): the common terms left are looked up only for the
    chunks whose partial score plus those bounds reaches theta, and only those are ranked
    (no partition over every chunk)."""
    if limit == 0:
        return []
    scores = np.zeros(len(norm32), dtype=np.float32)
    # a negative title weight could lower a partial score: no bound holds, every chunk scored
    if limit < 0 or limit >= len(norm32) or not lists or title_weight < 0:
        for found in lists:
            _add(scores, norm32, found, title_weight)
        matched = np.flatnonzero(scores)
        return _best(matched, _exact(matched, lists, norm, title_weight), limit)
    bounds = [_bound(found, norm_floor, title_weight) for found in lists]
    order = sorted(range(len(lists)), key=lambda i: (-bounds[i], len(lists[i].ids)))
    rest = float(sum(bounds))
    theta = 0.0
    probe: np.ndarray | None = None  # the shortest added list of at least limit chunks
    added = 0
    for i in order:
        if theta > 0 and rest < theta * (1 - FLOAT32_MARGIN) ** 2:
            break
        found = lists[i]
        _add(scores, norm32, found, title_weight)
        rest -= bounds[i]
        added += 1
        if len(found.ids) >= limit and (probe is None or len(found.ids) < len(probe)):
            probe = found.ids
        if probe is not None and len(probe) <= THETA_IDS:
            part = scores[probe]
            theta = max(theta, float(np.partition(part, len(part) - limit)[len(part) - limit]))
            # every chunk at or over that bound (at least limit of them): their limit-th
            # is the best bound the terms added so far give
            over = scores[scores >= np.float32(theta)]
            theta = float(np.partition(over, len(over) - limit)[len(over) - limit])
    left = order[added:]
    if left:
        rest = max(rest, 0.0)
        near = np.flatnonzero(scores >= np.float32(theta * (1 - FLOAT32_MARGIN) - rest))
        part = scores[near]
        slot = scores.view(np.int32)  # the scores are no longer needed: reused as the map
        slot[near] = np.arange(len(near), dtype=np.int32)
        flag = np.zeros(len(scores), dtype=bool)
        flag[near] = True
        for i in left:
            _add_to(part, near, slot, flag, norm32, lists[i], title_weight)
            rest = max(rest - bounds[i], 0.0)
            # partial scores grew: a better theta, and chunks that can no longer reach it out
            theta = max(theta, float(np.partition(part, len(part) - limit)[len(part) - limit]))
            keep = part >= np.float32(theta * (1 - FLOAT32_MARGIN) - rest)
            if not keep.all():
                flag[near[~keep]] = False
                near, part = near[keep], part[keep]
                slot[near] = np.arange(len(near), dtype=np.int32)
    elif theta > 0:
        near = np.flatnonzero(scores >= np.float32(theta * (1 - FLOAT32_MARGIN)))
        part = scores[near]
    else:
        near = np.flatnonzero(scores)
        part = scores[near]
    if len(near) > limit:
        last = np.partition(part, len(part) - limit)[len(part) - limit]  # > 0: no zero is kept
        near = near[part >= last * np.float32(1 - FLOAT32_MARGIN)]
    return _best(near, _exact(near, lists, norm, title_weight), limit)
