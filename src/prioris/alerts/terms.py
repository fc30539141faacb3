"""Lexical features for the alerts' ranking: words and word pairs weighted by TF-IDF.

A small, dependency-free version of what arxiv-sanity-lite reads (scikit-learn's
``TfidfVectorizer``: English stop words dropped, 1-2 grams, sublinear term frequency,
smoothed IDF, rows of unit length, terms in too few or too many documents left out), over
numpy only: the rows are kept sparse (:class:`SparseRows`, CSR arrays) because a library
of tens of thousands of works has a vocabulary of as many terms, which no dense matrix
holds.

Words are folded (Unicode NFKD, accents dropped, lower case) and Snowball-stemmed, so
"studies" and "study" are one term; a pair is two neighbouring kept words. The vocabulary
and the IDF come from the texts ranked together (the library and the candidate pool),
which a ranking sees anyway: no labels are read here.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

_WORD = re.compile(r"[a-z][a-z0-9]+")
MAX_TEXT_CHARS = 20_000
"""The head of a text that is read (a full paper's terms beyond it add little to what
its title and abstract say, and cost time)."""

# scikit-learn's English list is longer; these are the function words of scientific
# prose (the search's Snowball set plus words every abstract uses: "study", "results")
STOP_WORDS = frozenset(
    (
        "a about above after again against all also am an and any are as at be because been "
        "before being below between both but by can could did do does doing down during each "
        "few for from further had has have having he her here hers herself him himself his "
        "how i if in into is it its itself just may me might more most must my myself no nor "
        "not now of off on once only or other our ours ourselves out over own same she should "
        "so some such than that the their theirs them themselves then there these they this "
        "those through to too under until up very was we were what when where which while who "
        "whom why will with within without would you your yours yourself yourselves "
        "however thus therefore using used use based via among whether et al"
    ).split()
)


@functools.lru_cache(maxsize=1)
def _stemmer() -> object:
    import py_rust_stemmers

    return py_rust_stemmers.SnowballStemmer("english")


def words(text: str, *, stem: bool = True) -> list[str]:
    """The kept words of a text, folded (and stemmed), in order."""
    folded = unicodedata.normalize("NFKD", text[:MAX_TEXT_CHARS].lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    kept = [w for w in _WORD.findall(plain) if w not in STOP_WORDS]
    if not stem or not kept:
        return kept
    return list(_stemmer().stem_words(kept))  # type: ignore[attr-defined]


def terms(text: str, *, pairs: bool = True, stem: bool = True) -> list[str]:
    """Words, and with ``pairs`` each two neighbouring words as one term ``"a b"``."""
    found = words(text, stem=stem)
    if pairs:
        found += [f"{a} {b}" for a, b in itertools.pairwise(found)]
    return found


@dataclass(frozen=True)
class SparseRows:
    """Rows of a sparse matrix (CSR: ``indptr``, ``indices``, ``data``) with the few
    products the ranking needs, each one numpy call over the stored values."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    width: int

    @property
    def height(self) -> int:
        return len(self.indptr) - 1

    def _row_of_values(self) -> np.ndarray:
        return np.repeat(np.arange(self.height), np.diff(self.indptr))

    def dot(self, weights: np.ndarray) -> np.ndarray:
        """Each row's dot product with a dense vector of ``width`` weights."""
        products = self.data * weights[self.indices]
        return np.bincount(self._row_of_values(), products, minlength=self.height)

    def weighted_sum(self, row_weights: np.ndarray) -> np.ndarray:
        """The rows summed with one weight each: a dense vector of ``width`` values."""
        values = self.data * np.repeat(row_weights, np.diff(self.indptr))
        return np.bincount(self.indices, values, minlength=self.width)

    def take(self, rows: Sequence[int] | np.ndarray) -> SparseRows:
        """These rows, in this order."""
        rows = np.asarray(rows, dtype=np.int64)
        starts, lengths = self.indptr[rows], np.diff(self.indptr)[rows]
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        picks = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])
        return SparseRows(indptr, self.indices[picks], self.data[picks], self.width)

    def row(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Row ``i``'s column indices and values."""
        start, end = self.indptr[i], self.indptr[i + 1]
        return self.indices[start:end], self.data[start:end]

    def dense(self) -> np.ndarray:
        """The rows as a dense array (small matrices: tests and a few rows)."""
        out = np.zeros((self.height, self.width), dtype=np.float64)
        out[self._row_of_values(), self.indices] = self.data
        return out


@dataclass(frozen=True)
class TfIdf:
    """A vocabulary with its IDF weights, and the texts' rows under it."""

    vocabulary: tuple[str, ...]
    idf: np.ndarray
    rows: SparseRows


def tfidf(
    texts: Iterable[str],
    *,
    pairs: bool = True,
    stem: bool = True,
    min_df: int = 2,
    max_df: float = 0.5,
    max_terms: int = 100_000,
) -> TfIdf:
    """TF-IDF rows of ``texts``: weight ``(1 + log tf) * idf`` with the smoothed
    ``idf = 1 + log((1 + n) / (1 + df))``, each row scaled to unit length. Terms in fewer
    than ``min_df`` texts (no other text shares them) or in more than ``max_df`` of them
    (they tell nothing apart) are left out; past ``max_terms``, the most frequent kept."""
    counted = [Counter(terms(text, pairs=pairs, stem=stem)) for text in texts]
    n = len(counted)
    df: Counter[str] = Counter()
    for counts in counted:
        df.update(counts.keys())
    ceiling = max(min_df, int(max_df * n)) if n else 0
    kept = [t for t, d in df.items() if min_df <= d <= ceiling]
    if len(kept) > max_terms:
        kept = sorted(kept, key=lambda t: (-df[t], t))[:max_terms]
    kept.sort()
    column = {t: i for i, t in enumerate(kept)}
    idf = np.array([1.0 + math.log((1 + n) / (1 + df[t])) for t in kept], dtype=np.float64)
    indptr, indices, data = [0], [], []
    for counts in counted:
        cols = [(column[t], c) for t, c in counts.items() if t in column]
        cols.sort()
        values = np.array([(1.0 + math.log(c)) * idf[i] for i, c in cols], dtype=np.float64)
        norm = float(np.linalg.norm(values)) if len(values) else 0.0
        indices += [i for i, _ in cols]
        data += list(values / norm) if norm else []
        indptr.append(len(indices))
    rows = SparseRows(
        np.asarray(indptr, dtype=np.int64),
        np.asarray(indices, dtype=np.int64),
        np.asarray(data, dtype=np.float64),
        len(kept),
    )
    return TfIdf(tuple(kept), idf, rows)
