"""Lexical evidence for sentences: BM25 of each sentence of a small pool against a claim.

The pool is the few dozen sentences of the passages a search returned, so the statistics
(document frequency, average length) are the pool's own: a word every candidate sentence
shares (the topic) weighs little and the words that set one sentence apart (a number, a
direction of effect, a population) weigh much, which is what picking *the* sentence needs.
Words are the search's (:data:`~prioris.search.query.EXTENDED_STOPWORDS` dropped) with a
light suffix stripping, so "increases" meets "increased" as FTS5's stemmer would let them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from prioris.search.query import EXTENDED_STOPWORDS

_WORD = re.compile(r"\w+", re.UNICODE)
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly")
K1, B = 1.2, 0.75


def stem(word: str) -> str:
    """A word without its commonest English inflection (kept whole when short)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    # "reduce" meets "reduced", "increase" meets "increases"
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def words(text: str) -> list[str]:
    """The lower-cased, stemmed content words of ``text``, in order."""
    lowered = (t.lower() for t in _WORD.findall(text))
    return [stem(w) for w in lowered if w not in EXTENDED_STOPWORDS]


def bm25_scores(claim: str, sentences: Sequence[str]) -> list[float]:
    """BM25 (k1 1.2, b 0.75) of each sentence for the claim's words, with the pool's own
    document frequencies; 0 for a sentence sharing no word with the claim."""
    wanted = set(words(claim))
    bags = [Counter(words(s)) for s in sentences]
    if not bags or not wanted:
        return [0.0] * len(bags)
    n = len(bags)
    average = sum(sum(b.values()) for b in bags) / n or 1.0
    frequency = Counter(w for bag in bags for w in wanted if w in bag)
    idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in frequency.items()}
    scores = []
    for bag in bags:
        length = sum(bag.values())
        total = 0.0
        for word, weight in idf.items():
            tf = bag.get(word, 0)
            if tf:
                total += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        scores.append(total)
    return scores


def coverage(claim: str, sentence: str) -> float:
    """The share of the claim's distinct content words the sentence holds."""
    wanted = set(words(claim))
    if not wanted:
        return 0.0
    return len(wanted & set(words(sentence))) / len(wanted)
