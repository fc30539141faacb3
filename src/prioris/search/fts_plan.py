"""Ranking an OR of words over only the chunks that hold a rare one, with a proof.

FTS5 scores every chunk that matches any word of an OR query; a word in half the library
makes a query cost half a million BM25 evaluations at a million chunks, and it is the
rare words that decide the top of the list. For a plain query (an OR of quoted words)
split into *rare* and *common* words, the chunks holding a rare word are ranked by two
FTS5 queries over the same phrases, so BM25 scores them exactly as the full query does:

- ``(rare) NOT (common)``: the common words' tf is 0 there, so this is their full score;
- ``(rare) AND (common)``: every phrase of the full query, each once.

A chunk holding only common words scores below ``(k1 + 1) * sum(idf(common))``, since
each word's BM25 term is below ``idf * (k1 + 1)`` whatever its frequency and column
weights. When the ``limit``-th score found is at least that bound, no such chunk can
enter the list, and the merged list *is* the full query's; otherwise the caller runs the
full query. ``idf`` uses FTS5's formula with the highest chunk id for the row count (at
least the true count, so the bound only errs high).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

K1 = 1.2  # FTS5's bm25() constants
# Words are "common", most frequent first, while their idfs add up to at most this share of
# the query's: the bound is then (k1 + 1) * share * sum(idf), which the limit-th score of a
# list from the rare words clears in most queries (measured on the 1M synthetic library,
# where the limit-th of 40 scored about the sum of idfs); when it does not, the full query
# runs and the attempt is lost time, not a wrong list.
COMMON_IDF_SHARE = 0.35
_PLAIN = re.compile(r'^"[^"]+"(?: OR "[^"]+")+$')


@dataclass(frozen=True)
class Plan:
    rare_only: str  # FTS5 expression: chunks with a rare word and no common one
    rare_and_common: str  # ... with a rare word and a common one
    bound: float  # every chunk with only common words scores below this


def words_of(expression: str) -> list[str] | None:
    """The quoted words of a plain query's expression (``"a" OR "b"``), else None."""
    if not _PLAIN.match(expression):
        return None
    return expression.split(" OR ")


def idf(matching: int, rows: int) -> float:
    """FTS5's BM25 idf (floored at 1e-6 as FTS5 does). A count taken after the row count
    (a writer between the two reads) may exceed it: the word is then in every row."""
    matching = min(matching, rows)
    value = math.log((rows - matching + 0.5) / (matching + 0.5))
    return value if value > 0 else 1e-6


def plan(counts: dict[str, int], rows: int, *, below: float | None = None) -> Plan | None:
    """A rare/common split of quoted words by the chunks each matches, or None when no
    word is common enough to leave out of the first ranking.

    ``below``: a score the list is known to reach (the last score of a failed attempt,
    whose chunks keep their full scores under any split): the common words are then
    chosen so that the bound stays under it, and the new attempt cannot fail."""
    idfs = {w: idf(n, rows) for w, n in counts.items()}
    budget = COMMON_IDF_SHARE * sum(idfs.values())
    if below is not None:
        budget = below / (K1 + 1) * (1 - 1e-9)
    common: list[str] = []
    spent = 0.0
    for word in sorted(idfs, key=lambda w: idfs[w]):
        if spent + idfs[word] > budget:
            break
        common.append(word)
        spent += idfs[word]
    rare = [w for w in counts if w not in common]
    if not common or not rare:
        return None
    rare_or, common_or = " OR ".join(rare), " OR ".join(common)
    return Plan(
        rare_only=f"({rare_or}) NOT ({common_or})",
        rare_and_common=f"({rare_or}) AND ({common_or})",
        bound=(K1 + 1) * spent,
    )
