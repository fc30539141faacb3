"""Pseudo-relevance feedback: a second pass shaped by the first pass's best works.

Two classic forms, both pure functions here (the service fetches what they need):

- **Rocchio** for the vector side: the query vector moves toward the mean vector of the
  feedback passages, ``q' = normalise(q + beta * mean(p))``, and the KNN runs again.
- **RM3-style expansion** for FTS: the feedback passages' words are weighted by the
  relevance model ``sum_d w_d * tf(t, d) / |d|`` (document weight ``w_d`` from the first
  pass), the strongest few that are not already in the query are appended to it, and the
  original terms are repeated ``query_weight`` times so that FTS5's BM25, which adds up
  every phrase of the expression, keeps them ahead of the added ones.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from prioris.search.query import STOPWORDS, quote

_WORD = re.compile(r"[^\W\d_][\w-]*[^\W_]|[^\W\d_]", re.UNICODE)

# words that say how a finding is reported rather than what it is about: frequent in
# abstracts, useless as expansion terms (the query's own words are never dropped)
EXPANSION_STOPWORDS = STOPWORDS | frozenset(
    (
        "about above after again against all also among any because before being below "
        "between both could did during each either et al further had here however if more "
        "most much must no nor not now only other over per same should so some such than "
        "thus too under until up upon very via whether would may might one two three four "
        "five six seven eight nine ten using used use based found show shows showed shown "
        "study studies result results conclusion conclusions method methods background "
        "objective objectives aim aims design setting participants measured included "
        "compared associated significant significantly respectively total data analysis "
        "observed group groups patients subjects reported report found higher lower increased "
        "decreased level levels effect effects mean years year age ci hr rr or p"
    ).split()
)


def rocchio(query: np.ndarray, passages: np.ndarray, beta: float) -> np.ndarray:
    """``normalise(query + beta * mean(passages))``; the query itself when no passage."""
    if beta <= 0.0 or passages.size == 0:
        return query
    moved = np.asarray(query, dtype=np.float32) + beta * passages.mean(axis=0).astype(np.float32)
    norm = float(np.linalg.norm(moved))
    return query if norm == 0.0 else (moved / norm).astype(np.float32)


def expansion_terms(
    query_terms: Sequence[str],
    passages: Sequence[str],
    weights: Sequence[float] | None = None,
    *,
    count: int = 10,
) -> list[str]:
    """The ``count`` strongest feedback words (RM1 weights), query words excluded."""
    if count <= 0 or not passages:
        return []
    weights = list(weights) if weights is not None else [1.0] * len(passages)
    own = {t.lower() for t in query_terms}
    model: Counter[str] = Counter()
    for text, weight in zip(passages, weights, strict=True):
        words = [w.lower() for w in _WORD.findall(text)]
        if not words:
            continue
        counts = Counter(w for w in words if len(w) > 2 and w not in EXPANSION_STOPWORDS)
        for word, tf in counts.items():
            model[word] += weight * tf / len(words)
    ranked = sorted(model.items(), key=lambda kv: (-kv[1], kv[0]))
    return [w for w, _ in ranked if w not in own and not _same_stem(w, own)][:count]


def _same_stem(word: str, own: set[str]) -> bool:
    """Crude guard against re-adding a query word's inflection (porter conflates them)."""
    return any(len(o) >= 4 and (word.startswith(o[:-1]) or o.startswith(word[:-1])) for o in own)


def expanded_expression(
    query_terms: Sequence[str], extra: Sequence[str], *, query_weight: int = 2
) -> str:
    """An FTS5 OR expression: each query term ``query_weight`` times, each extra once."""
    parts = [quote(t) for t in query_terms for _ in range(max(1, query_weight))]
    parts += [quote(t) for t in extra]
    return " OR ".join(parts)
