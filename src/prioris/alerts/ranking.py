"""Ranking candidates for each profile (a collection, or the whole library), explained.

What won on the NFCorpus protocol (docs/benchmarks.md, "Alerts ranking (issue 37)"):
one linear SVM per profile (squared hinge, L2, classes balanced, ``C`` =
:data:`C`) on each work's two kinds of features side by side, its own dense vector
(title + abstract, the library's model) and its TF-IDF row (stemmed words and word
pairs, :mod:`prioris.alerts.terms`). The profile's works are the positives; the rest of
the library and the user's dismissals are the negatives (accepted candidates join the
positives). A profile with no negative at all (the whole library, before any dismissal)
is told apart from the candidate pool instead, as arxiv-sanity-lite does with every
unlabelled paper. It beat, on the protocol, the TF-IDF SVM alone (arxiv-sanity-lite's
method), the TF-IDF centroid, the dense centroid, Rocchio, kNN to the positives with or
without kNN to the negatives, logistic loss and score-level fusions of the dense and
lexical models.

Each candidate comes with its ``why``: the profile's works nearest to it (by the dense
vectors) and the terms that weighed most in its score (its TF-IDF weight times the
model's weight for the term, shown as the words were written).

Nothing here reads storage or runs a model: items come with their vectors
(:class:`Item`), which the service embeds once for every profile.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from prioris.alerts import terms as lexical
from prioris.alerts.linear import DenseRows, LinearModel, Stacked, fit

C = 0.3
"""The SVM's regularisation, picked on half A of the protocol's collections among 0.01,
0.1, 0.3, 1 and 3 (docs/benchmarks.md)."""
NEAREST = 3
"""Library works named in a candidate's ``why``."""
TERMS = 5
"""Terms named in a candidate's ``why``."""
MAX_K = 1000


@dataclass(frozen=True)
class Item:
    """A work or a candidate as the ranking reads it: its text and its dense vector."""

    id: str
    title: str
    text: str
    vector: np.ndarray


@dataclass(frozen=True)
class Profile:
    """Who a ranking is for: ``positives`` are ids of library works (a collection's) or
    of remembered candidates the user accepted; ``dismissed`` are ids of remembered
    candidates the user dismissed (they and the library's other works are negatives)."""

    name: str
    positives: frozenset[str]
    dismissed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Ranked:
    """A candidate's place in one profile's ranking, with why it is there."""

    id: str
    title: str
    score: float
    nearest: tuple[tuple[str, str, float], ...] = ()
    terms: tuple[tuple[str, float], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def why(self) -> dict[str, Any]:
        """``{"nearest": [{"id", "title", "similarity"}], "terms": [{"term", "weight"}]}``."""
        return {
            "nearest": [
                {"id": i, "title": t, "similarity": round(s, 4)} for i, t, s in self.nearest
            ],
            "terms": [{"term": t, "weight": round(w, 4)} for t, w in self.terms],
        }


def _texts(items: Sequence[Item]) -> list[str]:
    return [f"{item.title}\n{item.text}" for item in items]


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _matrix(items: Sequence[Item], dim: int) -> np.ndarray:
    if not items:
        return np.zeros((0, dim), dtype=np.float64)
    return _unit(np.vstack([np.asarray(i.vector, dtype=np.float64) for i in items]))


def _surface(text: str) -> dict[str, str]:
    """Each stemmed term of a text with the words it was written as (first seen)."""
    plain = lexical.words(text, stem=False)
    stemmed = lexical.words(text, stem=True)
    shown: dict[str, str] = {}
    for stem, word in zip(stemmed, plain, strict=False):
        shown.setdefault(stem, word)
    for (a, b), (x, y) in zip(itertools.pairwise(stemmed), itertools.pairwise(plain), strict=False):
        shown.setdefault(f"{a} {b}", f"{x} {y}")
    return shown


class Ranking:
    """The features of one library and one candidate pool, built once; :meth:`rank`
    trains and applies each profile's model on them."""

    def __init__(
        self,
        library: Sequence[Item],
        candidates: Sequence[Item],
        *,
        feedback: Sequence[Item] = (),
        c: float = C,
    ) -> None:
        self.library = list(library)
        self.candidates = list(candidates)
        self.feedback = list(feedback)  # remembered candidates (accepted or dismissed)
        self.c = c
        known = [*self.library, *self.feedback]
        dim = len(candidates[0].vector) if candidates else len(known[0].vector) if known else 1
        texts = _texts([*known, *self.candidates])
        self.vocabulary = lexical.tfidf(texts)
        rows = self.vocabulary.rows
        self.known_dense = _matrix(known, dim)
        self.candidate_dense = _matrix(self.candidates, dim)
        self.known_rows = Stacked(DenseRows(self.known_dense), rows.take(range(len(known))))
        self.candidate_lexical = rows.take(range(len(known), len(texts)))
        self.candidate_rows = Stacked(DenseRows(self.candidate_dense), self.candidate_lexical)
        self.known_ids = [item.id for item in known]
        self.known_titles = [item.title for item in known]

    def model(self, profile: Profile) -> LinearModel | None:
        """The profile's SVM, None when it has no positive among the known items."""
        in_library = {item.id for item in self.library}
        labels, keep = [], []
        for i, work_id in enumerate(self.known_ids):
            if work_id in profile.positives:
                labels.append(1.0)
            elif work_id in in_library or work_id in profile.dismissed:
                labels.append(0.0)
            else:
                continue  # another profile's remembered candidate: not this one's
            keep.append(i)
        y = np.asarray(labels)
        if not y.any():
            return None
        rows = self.known_rows.take(keep)
        if y.all():  # no negative: told apart from the candidate pool
            rows = Stacked(
                DenseRows(np.vstack([rows.first.values, self.candidate_dense])),  # type: ignore[attr-defined]
                _concat(rows.second, self.candidate_lexical),  # type: ignore[arg-type]
            )
            y = np.concatenate([y, np.zeros(len(self.candidates))])
        return fit(rows, y, c=self.c)

    def rank(self, profile: Profile, k: int = 20) -> list[Ranked]:
        """The ``k`` best candidates for ``profile``, each with its ``why``."""
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
        model = self.model(profile)
        if model is None or not self.candidates:
            return []
        scores = model.scores(self.candidate_rows)
        order = np.argsort(-scores, kind="stable")[:k]
        positives = [i for i, w in enumerate(self.known_ids) if w in profile.positives]
        similar = self.candidate_dense[order] @ self.known_dense[positives].T
        lexical_weights = model.weights[self.known_dense.shape[1] :]
        out = []
        for row, at in enumerate(order):
            nearest = np.argsort(-similar[row], kind="stable")[:NEAREST]
            named = tuple(
                (
                    self.known_ids[positives[j]],
                    self.known_titles[positives[j]],
                    float(similar[row, j]),
                )
                for j in nearest
            )
            out.append(
                Ranked(
                    id=self.candidates[at].id,
                    title=self.candidates[at].title,
                    score=float(scores[at]),
                    nearest=named,
                    terms=self._terms(int(at), lexical_weights),
                )
            )
        return out

    def _terms(self, at: int, weights: np.ndarray) -> tuple[tuple[str, float], ...]:
        """The candidate's terms that added most to its score, as written in it."""
        columns, values = self.candidate_lexical.row(at)
        weighed = values * weights[columns]
        best = [i for i in np.argsort(-weighed, kind="stable")[:TERMS] if weighed[i] > 0]
        item = self.candidates[at]
        shown = _surface(f"{item.title}\n{item.text}")
        vocabulary = self.vocabulary.vocabulary
        return tuple(
            (shown.get(vocabulary[columns[i]], vocabulary[columns[i]]), float(weighed[i]))
            for i in best
        )


def _concat(top: lexical.SparseRows, bottom: lexical.SparseRows) -> lexical.SparseRows:
    """Two sparse matrices of one width, one above the other."""
    return lexical.SparseRows(
        np.concatenate([top.indptr, bottom.indptr[1:] + top.indptr[-1]]),
        np.concatenate([top.indices, bottom.indices]),
        np.concatenate([top.data, bottom.data]),
        top.width,
    )


def rank(
    library: Sequence[Item],
    candidates: Sequence[Item],
    profiles: Sequence[Profile],
    *,
    feedback: Sequence[Item] = (),
    k: int = 20,
) -> dict[str, list[Ranked]]:
    """Each profile's ``k`` best candidates (features built once for all profiles)."""
    ranking = Ranking(library, candidates, feedback=feedback)
    return {profile.name: ranking.rank(profile, k) for profile in profiles}
