"""Near-duplicate sentences collapsed: one item per statement, every work that makes it.

An abstract repeated in a paper's introduction, a preprint and its published version, or a
review quoting a finding put the same sentence in several places; an agent gains nothing
from seeing it twice, but a lot from knowing that several works state it. Two sentences
are the same statement when their words, compared without case, spacing or punctuation,
are at least :data:`SAME` alike (rapidfuzz's normalised Indel similarity); the best-ranked
one stays and the others are listed under it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

SAME = 0.9
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)

T = TypeVar("T")


def normalise(text: str) -> str:
    """The sentence's words, lower case, single-spaced, without punctuation."""
    return _NOT_WORD.sub(" ", text.lower()).strip()


def collapse(items: Sequence[T], text_of: Callable[[T], str]) -> list[tuple[T, list[T]]]:
    """Items in their order, each with the later items that state the same thing."""
    from rapidfuzz.distance import Indel

    kept: list[tuple[T, list[T], str]] = []
    for item in items:
        words = normalise(text_of(item))
        for _first, others, first_words in kept:
            if words == first_words or Indel.normalized_similarity(words, first_words) >= SAME:
                others.append(item)
                break
        else:
            kept.append((item, [], words))
    return [(first, others) for first, others, _ in kept]
