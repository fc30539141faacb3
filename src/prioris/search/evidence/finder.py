"""Finding evidence: from a claim to the sentences that state it, with work, page and offsets.

One hybrid search over passages (what a ``search --chunks`` would return), the passages'
text and their works' PDF page spans read for those hits only, the passages cut into
quotable sentences (:func:`~.sentences.quotable_sentences`), one batch of sentence
embeddings, then the ranking of :mod:`.ranking` and the collapsing of :mod:`.collapse`.
So an evidence call costs one search plus one small embedding batch, and each sentence it
returns is a verbatim span of the stored text (``start``/``end`` as ``show --offset``
counts them). Back matter (references, acknowledgements, funding, author information) is
left out unless asked for.

A citation check is the same on one work: its best passages for the claim, its best
sentence, and whether that sentence supports the claim at all (:data:`FOUND_COSINE`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from prioris.search.evidence import ranking
from prioris.search.evidence.collapse import collapse
from prioris.search.evidence.sentences import Sentence, quotable_sentences
from prioris.search.protocols import PageSpans, Passage, SearchFilters
from prioris.search.sections import is_back_matter

CACHED_VECTORS = 20_000  # sentence vectors kept between calls (~30 MB at 384 dimensions)
PASSAGES = 10  # passages an evidence call reads (the pool of a few dozen sentences)
CHECK_PASSAGES = 8  # a work's passages a citation check reads
MAX_K = 50
# a work supports a claim when its best sentence is at least this close to it (cosine of
# the default model) or, a little less close, shares most of the claim's words: calibrated
# on SciFact's train claims, gold documents against random ones (docs/benchmarks.md)
FOUND_COSINE = 0.65
FOUND_COSINE_WITH_WORDS = 0.55
FOUND_COVERAGE = 0.3

Spans = list[tuple[int, int, int]]


@dataclass
class Evidence:
    """One quotable sentence; ``also`` lists the other works that state the same."""

    work_id: str
    title: str
    year: int | None
    page: int | None
    page_end: int | None
    section: str | None
    sentence: str
    start: int
    end: int
    context: str
    score: float
    fts_rank: int | None
    vector_rank: int
    also: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, in the field order the interfaces show."""
        return {
            "work_id": self.work_id,
            "title": self.title,
            "year": self.year,
            "page": self.page,
            "page_end": self.page_end,
            "section": self.section,
            "sentence": self.sentence,
            "start": self.start,
            "end": self.end,
            "context": self.context,
            "score": round(self.score, 6),
            "fts_rank": self.fts_rank,
            "vector_rank": self.vector_rank,
            "also": self.also,
        }


@dataclass(frozen=True)
class Check:
    """A citation check: ``found``, the work's best sentence, and the two measures the
    verdict rests on (the sentence's cosine to the claim, the share of the claim's words
    it holds); None when the work has no quotable text."""

    found: bool
    best: Evidence | None
    similarity: float | None
    coverage: float | None


def supports(similarity: float, coverage: float) -> bool:
    """The verdict of a check (thresholds: :data:`FOUND_COSINE` and the two after it)."""
    return similarity >= FOUND_COSINE or (
        similarity >= FOUND_COSINE_WITH_WORDS and coverage >= FOUND_COVERAGE
    )


@dataclass(frozen=True)
class _Found:
    candidate: ranking.Candidate
    context: str
    section: str | None


@dataclass
class _Pool:
    """The sentences of one call, with what dressing them needs (per call: thread-safe)."""

    found: list[_Found]
    spans: dict[str, Spans]
    titles: dict[str, tuple[str, int | None]]


class EvidenceFinder:
    """Evidence over one search service (its backend and embedder).

    Sentence vectors are kept (by model and text, the last :data:`CACHED_VECTORS`): an
    agent's claims on one topic meet the same sentences again, and embedding them is
    most of an evidence call's cost."""

    def __init__(self, service: Any) -> None:
        self.service = service  # prioris.search.service.SearchService
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    def _vectors(self, embedder: Any, texts: list[str]) -> np.ndarray:
        """The sentences' vectors, the ones not seen lately embedded in one batch."""
        model = str(getattr(embedder, "model_id", ""))
        with self._cache_lock:
            known = {t: self._cache.get((model, t)) for t in texts}
        missing = list(dict.fromkeys(t for t, v in known.items() if v is None))
        if missing:
            fresh = np.asarray(embedder.embed_passages(missing), dtype=np.float32)
            with self._cache_lock:
                for text, vector in zip(missing, fresh, strict=True):
                    known[text] = vector
                    self._cache[(model, text)] = vector
                while len(self._cache) > CACHED_VECTORS:
                    self._cache.popitem(last=False)
        with self._cache_lock:
            for text in texts:
                if (model, text) in self._cache:
                    self._cache.move_to_end((model, text))
        return np.vstack([known[t] for t in texts]).astype(np.float32, copy=False)

    def find(
        self,
        claim: str,
        *,
        k: int = 5,
        filters: SearchFilters | None = None,
        back_matter: bool = False,
        passages: int = PASSAGES,
    ) -> list[Evidence]:
        """The ``k`` best sentences for the claim across the library (or the filters)."""
        k = max(1, min(int(k), MAX_K))
        pool = self._pool(claim, filters, max(passages, k), back_matter)
        if not pool.found:
            return []
        ranked = self._rank(claim, pool.found)
        groups = collapse(ranked, lambda r: r[0].candidate.text)
        return self._dress(pool, groups[:k])

    def check(self, claim: str, work_id: str, *, back_matter: bool = False) -> Check:
        """Whether the work supports the claim, and its best sentence for it."""
        filters = SearchFilters(work_ids=(work_id,))
        pool = self._pool(claim, filters, CHECK_PASSAGES, back_matter)
        if not pool.found:
            return Check(False, None, None, None)
        ranked = self._rank(claim, pool.found)
        best, _ = ranked[0]
        covered = ranking.lexical.coverage(claim, best.candidate.text)
        found = supports(best.cosine, covered)
        return Check(found, self._dress(pool, [(ranked[0], [])])[0], best.cosine, covered)

    # -- steps ---------------------------------------------------------------------------
    def _pool(
        self, claim: str, filters: SearchFilters | None, passages: int, back_matter: bool
    ) -> _Pool:
        """The quotable sentences of the best passages, once each, in the works' offsets."""
        response = self.service.search(
            claim, mode="hybrid", k=passages, chunks=True, filters=filters
        )
        hits = [h for h in response.hits if back_matter or not is_back_matter(h.section)]
        if not hits:
            return _Pool([], {}, {})
        backend = self.service.backend
        texts: dict[int, Passage] = backend.passages([h.chunk_id for h in hits])
        spans: dict[str, Spans] = (
            backend.page_spans([h.id for h in hits]) if isinstance(backend, PageSpans) else {}
        )
        work_rank: dict[str, int] = {}
        taken: dict[str, list[tuple[int, int]]] = {}
        pool: list[_Found] = []
        for hit in hits:
            passage = texts.get(hit.chunk_id)
            if passage is None or passage.char_start is None:
                continue
            work_rank.setdefault(hit.id, len(work_rank) + 1)
            sentences = quotable_sentences(passage.text)
            for i, s in enumerate(sentences):
                start, end = passage.char_start + s.start, passage.char_start + s.end
                if _overlaps(taken.get(hit.id, []), start, end):
                    continue  # consecutive passages overlap by a few sentences
                taken.setdefault(hit.id, []).append((start, end))
                candidate = ranking.Candidate(
                    hit.id, hit.chunk_id, start, end, s.text, work_rank[hit.id], hit.score
                )
                pool.append(_Found(candidate, _context(passage.text, sentences, i), hit.section))
        return _Pool(pool, spans, {h.id: (h.title, h.year) for h in hits})

    def _rank(self, claim: str, pool: list[_Found]) -> list[tuple[ranking.Ranked, _Found]]:
        embedder = self.service.embedder
        query = embedder.embed_query(claim)
        vectors = self._vectors(embedder, [f.candidate.text for f in pool])
        cosines = vectors @ np.asarray(query, dtype=np.float32)
        found = {id(f.candidate): f for f in pool}
        ranked = ranking.rank(claim, [f.candidate for f in pool], cosines)
        return [(r, found[id(r.candidate)]) for r in ranked]

    @staticmethod
    def _dress(
        pool: _Pool, groups: Sequence[tuple[tuple[ranking.Ranked, _Found], list[Any]]]
    ) -> list[Evidence]:
        out = []
        for (ranked, found), others in groups:
            c = ranked.candidate
            page, page_end = _pages(pool.spans.get(c.work_id), c.start, c.end)
            title, year = pool.titles.get(c.work_id, ("", None))
            also = []
            for other, _ in others:
                o = other.candidate
                o_page, _ = _pages(pool.spans.get(o.work_id), o.start, o.end)
                also.append({"work_id": o.work_id, "start": o.start, "end": o.end, "page": o_page})
            out.append(
                Evidence(
                    work_id=c.work_id,
                    title=title,
                    year=year,
                    page=page,
                    page_end=page_end if page_end != page else None,
                    section=found.section,
                    sentence=c.text,
                    start=c.start,
                    end=c.end,
                    context=found.context,
                    score=ranked.score,
                    fts_rank=ranked.fts_rank,
                    vector_rank=ranked.vector_rank,
                    also=also,
                )
            )
        return out


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether a span mostly covers one already taken (the same sentence seen twice)."""
    for s, e in spans:
        shared = min(e, end) - max(s, start)
        if shared > 0 and shared >= 0.5 * min(e - s, end - start):
            return True
    return False


def _context(text: str, sentences: list[Sentence], i: int) -> str:
    """The sentence with its neighbours in the passage, verbatim."""
    first = sentences[max(0, i - 1)]
    last = sentences[min(len(sentences) - 1, i + 1)]
    return text[first.start : last.end]


def _pages(spans: Spans | None, start: int, end: int) -> tuple[int | None, int | None]:
    """The PDF pages of the sentence's first and last characters (None: no pages)."""
    if not spans:
        return None, None
    first = next((n for n, s, e in spans if s <= start < e), None)
    last = next((n for n, s, e in spans if s <= max(start, end - 1) < e), first)
    if first is None:
        first = next((n for n, s, _ in reversed(spans) if s <= start), spans[0][0])
    return first, last if last is not None else first


def with_citekeys(items: list[Evidence], keys: dict[str, str]) -> list[dict[str, Any]]:
    """The items as dictionaries with each work's citation key (the service knows them)."""
    out = []
    for item in items:
        data = item.to_dict()
        data = {"work_id": data.pop("work_id"), "citekey": keys.get(item.work_id), **data}
        out.append(data)
    return out
