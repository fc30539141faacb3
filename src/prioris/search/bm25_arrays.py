"""BM25 of an OR of terms from postings arrays, in numpy: the scoring core both engines use.

SQLite's postings sidecar (:mod:`prioris.engines.sqlite.postings_rank`) and PostgreSQL's
postings table (:mod:`prioris.engines.postgres.postings`) keep the same per-term arrays:

- ``ids``: the chunk ids holding the term, strictly increasing;
- ``tf``: per chunk ``2 x passage + heading`` occurrences (the heading weighs 0.5);
- ``at`` / ``counts``: the positions in ``ids`` of the chunks with the term in the title,
  and those title counts (the title weight is a query-time setting, so kept apart).

:func:`score` gives the scores FTS5's ``bm25()`` gives (and PostgreSQL's SQL BM25, which
is FTS5's formula): every chunk is scored in float32 (half the memory traffic), then the
head of the list, down to a margin below the cut that covers float32's rounding, is
scored again in float64. One engine's arrays are checked by :func:`decode` before use: a
damaged row (lengths that disagree, ids out of order or out of range) raises ValueError,
and the caller answers from its SQL path instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

K1, B = 1.2, 0.75  # FTS5's bm25() constants
# float32 first-pass scores err by ~1e-7 per term added: chunks down to this share below
# the limit-th score are scored again in float64, so float32 never decides the list
FLOAT32_MARGIN = 1e-4


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


def decode(
    term: str,
    ids_raw: bytes,
    tf_raw: bytes,
    at_raw: bytes,
    counts_raw: bytes,
    *,
    size: int,
    order: str = "<",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A stored row's arrays (``order``: "<" little-endian, ">" big-endian), checked: ids
    strictly increasing within ``[0, size)``, one tf per id of one or two bytes, title
    positions strictly increasing within ``ids``. Anything else raises ValueError."""
    ids = np.frombuffer(ids_raw, dtype=f"{order}i4")
    if len(ids) == 0 or len(ids_raw) % 4 or len(at_raw) % 4 or len(counts_raw) % 2:
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
        or (len(ids) > 1 and bool(np.any(ids[1:] <= ids[:-1])))
        or (len(at) > 1 and bool(np.any(at[1:] <= at[:-1])))
    ):
        raise ValueError(f"postings of {term!r} damaged")
    tf = np.frombuffer(tf_raw, dtype="u1" if width == 1 else f"{order}u2")
    return ids, tf, at, counts


def score(
    norm32: np.ndarray,
    norm: np.ndarray,
    lists: list[TermPostings],
    limit: int,
    title_weight: float,
) -> list[tuple[int, float]]:
    """(chunk id, score) best first, ties by lowest id; ``limit`` < 0: every chunk with a
    score. A term in two lists (twice in the query, or split into disjoint lists) adds
    both. ``norm``/``norm32`` index by chunk id and cover every id of ``lists``."""
    scores = np.zeros(len(norm32), dtype=np.float32)
    for found in lists:
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
    if 0 <= limit < len(scores):
        last = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        matched = np.flatnonzero(scores >= last * np.float32(1 - FLOAT32_MARGIN))
        if last == 0:
            matched = matched[scores[matched] > 0]
    else:
        matched = np.flatnonzero(scores)
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
    order = np.lexsort((matched, -exact))  # best first, ties by lowest chunk id
    if limit >= 0:
        order = order[:limit]
    return [(int(matched[i]), float(exact[i])) for i in order]
