"""Ranking candidates for each profile (a collection, or the whole library), explained.

What won on the NFCorpus protocol (docs/benchmarks.md, "Alerts ranking (issue 37)"):
one linear SVM per profile (squared hinge, L2, classes balanced, ``C`` =
:data:`C`) on each work's two kinds of features side by side, its own dense vector
(title + abstract, the library's model, less the mean of every vector ranked) and its
TF-IDF row (stemmed words and word pairs, :mod:`prioris.alerts.terms`). The profile's
works are the positives; the rest of the library and the user's dismissals are the
negatives (accepted candidates join the positives). A profile with no negative at all
(the whole library, before any dismissal) is told apart from the candidate pool instead,
as arxiv-sanity-lite does with every unlabelled paper. It beat, on the protocol, the
TF-IDF SVM alone (arxiv-sanity-lite's method), the TF-IDF centroid, the dense centroid,
Rocchio, kNN to the positives with or without kNN to the negatives, logistic loss and
score-level fusions of the dense and lexical models.

Embedding candidates is the slow part, so it is spared where it changes nothing
measurable: a candidate's vector reads its title and first :data:`EMBED_WORDS` words,
and a pool larger than :data:`SHORTLIST` is first shortlisted per profile by an SVM on
the TF-IDF rows alone (:meth:`Ranking.shortlist`); only the shortlists are embedded and
each profile's full model ranks its own.

Each candidate comes with its ``why``: the profile's works nearest to it (by the dense
vectors) and the terms that weighed most in its score (its TF-IDF weight times the
model's weight for the term, shown as the words were written).

Nothing here reads storage or runs a model: items come with their vectors
(:class:`Item`), or the service's ``embed`` gives them (:meth:`Ranking.embed_shortlist`),
once for every profile.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
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
SHORTLIST = 100
"""Candidates each profile's full model ranks when the pool is shortlisted: the best of
its lexical model's ranking (on the protocol, ranking only these loses nothing at 100 and
0.003 recall@20 at 50; docs/benchmarks.md)."""
EMBED_WORDS: int | None = 60
"""Words of a candidate's text its vector reads (docs/benchmarks.md: quality against
time)."""
LEXICAL_C = 1.0
"""The shortlisting SVM's regularisation (TF-IDF features alone)."""


@dataclass(frozen=True)
class Item:
    """A work or a candidate as the ranking reads it: its text and its dense vector."""

    id: str
    title: str
    text: str
    vector: np.ndarray | None
    """None for a candidate not embedded (yet): see :meth:`Ranking.shortlist`."""


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


def candidate_text(title: str, text: str) -> str:
    """What a candidate's vector embeds: its title, then its text (as a work's own vector
    does), cut after :data:`EMBED_WORDS` words (None: the model's own limit)."""
    if EMBED_WORDS is not None:
        text = " ".join(text.split()[:EMBED_WORDS])
    return f"{title}\n{text}" if title and not text.startswith(title) else text


def _texts(items: Sequence[Item]) -> list[str]:
    return [f"{item.title}\n{item.text}" for item in items]


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _matrix(items: Sequence[Item], dim: int) -> np.ndarray:
    """The items' unit vectors, one row each (library works and feedback have one)."""
    if not items:
        return np.zeros((0, dim), dtype=np.float64)
    if any(i.vector is None for i in items):
        raise ValueError("library works and remembered candidates need their vectors")
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
    trains and applies each profile's model on them.

    Candidates may come without a vector (``Item.vector`` None): :meth:`shortlist` then
    names, from the lexical features alone, the few each profile's full model will rank,
    and :meth:`set_vectors` gives those their vectors, so a large pool is embedded only
    where it can matter. A candidate without a vector is never ranked."""

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
        with_vector = [i for i in [*self.candidates, *known] if i.vector is not None]
        self.dim = len(with_vector[0].vector) if with_vector else 1  # type: ignore[arg-type]
        texts = _texts([*known, *self.candidates])
        self.vocabulary = lexical.tfidf(texts)
        rows = self.vocabulary.rows
        self.known_dense = _matrix(known, self.dim)
        self.known_lexical = rows.take(range(len(known)))
        self.candidate_lexical = rows.take(range(len(known), len(texts)))
        self.candidate_dense = np.zeros((len(self.candidates), self.dim), dtype=np.float64)
        self.embedded = np.zeros(len(self.candidates), dtype=bool)
        self._centred: tuple[np.ndarray, np.ndarray] | None = None
        self.set_vectors(
            {i: item.vector for i, item in enumerate(self.candidates) if item.vector is not None}
        )
        self.known_ids = [item.id for item in known]
        self.known_titles = [item.title for item in known]
        self.in_library = {item.id for item in self.library}
        self.shortlists: dict[str, np.ndarray] = {}

    def set_vectors(self, vectors: Mapping[int, np.ndarray]) -> None:
        """Give candidates (by their place in the pool) their dense vectors."""
        if not vectors:
            return
        at = np.fromiter(vectors.keys(), dtype=np.int64, count=len(vectors))
        values = np.vstack([np.asarray(v, dtype=np.float64) for v in vectors.values()])
        if values.shape[1] != self.dim:
            if len(self.known_dense) or self.embedded.any():
                raise ValueError(f"vectors of {values.shape[1]} values where {self.dim} are")
            self.dim = values.shape[1]  # the first vectors seen (an empty library)
            self.known_dense = np.zeros((0, self.dim), dtype=np.float64)
            self.candidate_dense = np.zeros((len(self.candidates), self.dim), dtype=np.float64)
        self.candidate_dense[at] = _unit(values)
        self.embedded[at] = True
        self._centred = None  # the mean moved

    def centred(self) -> tuple[np.ndarray, np.ndarray]:
        """The known items' and the candidates' vectors less their mean, of unit length:
        what the models read. A small model's vectors share one large common direction,
        which tells nothing apart; without it the SVM gained on every draw of the
        protocol's halves (docs/benchmarks.md). ``why`` keeps the plain cosines."""
        if self._centred is None:
            rows = np.vstack([self.known_dense, self.candidate_dense[self.embedded]])
            mean = rows.mean(axis=0) if len(rows) else np.zeros(self.dim)
            known = _unit(self.known_dense - mean)
            pool = _unit(self.candidate_dense - mean) * self.embedded[:, None]
            self._centred = (known, pool)
        return self._centred

    def _labels(self, profile: Profile) -> tuple[list[int], np.ndarray] | None:
        """The known items this profile learns from and their labels (1 its works and
        accepts, 0 the rest of the library and its dismissals); None with no positive."""
        labels, keep = [], []
        for i, work_id in enumerate(self.known_ids):
            if work_id in profile.positives:
                labels.append(1.0)
            elif work_id in self.in_library or work_id in profile.dismissed:
                labels.append(0.0)
            else:
                continue  # another profile's remembered candidate: not this one's
            keep.append(i)
        y = np.asarray(labels)
        return (keep, y) if y.any() else None

    def shortlist(self, profiles: Sequence[Profile], size: int = SHORTLIST) -> list[int]:
        """Each profile's ``size`` best candidates by a linear SVM on the lexical features
        alone (no vector needed), kept for :meth:`rank`; returns their union (pool
        places, sorted): the candidates worth embedding."""
        union: set[int] = set()
        for profile in profiles:
            labelled = self._labels(profile)
            if labelled is None:
                continue
            keep, y = labelled
            rows = self.known_lexical.take(keep)
            if y.all():  # no negative: told apart from the whole pool
                rows = _concat(rows, self.candidate_lexical)
                y = np.concatenate([y, np.zeros(len(self.candidates))])
            scores = fit(rows, y, c=LEXICAL_C).scores(self.candidate_lexical)
            best = np.sort(np.argsort(-scores, kind="stable")[:size])
            self.shortlists[profile.name] = best
            union.update(best.tolist())
        return sorted(union)

    def embed_shortlist(
        self,
        profiles: Sequence[Profile],
        embed: Callable[[list[str]], np.ndarray],
        k: int = 20,
    ) -> int:
        """Embed (``embed``: texts to vectors, the library's model) the candidates worth
        it: every one in a pool no larger than a profile's shortlist (``SHORTLIST``, or
        ``k`` when more), else each profile's shortlist. Returns how many were embedded."""
        if not any(self._labels(profile) is not None for profile in profiles):
            return 0  # no profile has a work to learn from: nothing will be ranked
        size = max(SHORTLIST, k)
        wanted = self.shortlist(profiles, size) if len(self.candidates) > size else None
        places = [
            i
            for i in (range(len(self.candidates)) if wanted is None else wanted)
            if not self.embedded[i]
        ]
        texts = [candidate_text(self.candidates[i].title, self.candidates[i].text) for i in places]
        if texts:
            vectors = embed(texts)
            self.set_vectors({i: vectors[n] for n, i in enumerate(places)})
        return len(texts)

    def _among(self, profile: Profile) -> np.ndarray:
        """Pool places this profile's ranking reads: its shortlist when it has one, with
        a vector either way."""
        places = self.shortlists.get(profile.name)
        if places is None:
            return np.flatnonzero(self.embedded)
        return places[self.embedded[places]]

    def model(self, profile: Profile) -> LinearModel | None:
        """The profile's SVM, None when it has no positive among the known items."""
        labelled = self._labels(profile)
        if labelled is None:
            return None
        keep, y = labelled
        known, candidates = self.centred()
        rows = Stacked(DenseRows(known[keep]), self.known_lexical.take(keep))
        if y.all():  # no negative: told apart from the candidates with a vector
            pool = np.flatnonzero(self.embedded)
            if not len(pool):
                return None
            rows = Stacked(
                DenseRows(np.vstack([known[keep], candidates[pool]])),
                _concat(self.known_lexical.take(keep), self.candidate_lexical.take(pool)),
            )
            y = np.concatenate([y, np.zeros(len(pool))])
        return fit(rows, y, c=self.c)

    def rank(self, profile: Profile, k: int = 20) -> list[Ranked]:
        """The ``k`` best candidates for ``profile``, each with its ``why``."""
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
        among = self._among(profile)
        model = self.model(profile) if len(among) else None
        if model is None:
            return []
        pool = self.centred()[1][among]
        scores = model.scores(Stacked(DenseRows(pool), self.candidate_lexical.take(among)))
        order = among[np.argsort(-scores, kind="stable")[:k]]
        score_of = dict(zip(among.tolist(), scores.tolist(), strict=True))
        positives = [i for i, w in enumerate(self.known_ids) if w in profile.positives]
        similar = self.candidate_dense[order] @ self.known_dense[positives].T
        lexical_weights = model.weights[self.dim :]
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
                    score=float(score_of[int(at)]),
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
