"""Search over the library: fts, vector and hybrid modes, works or passages.

Work results take each work's best chunk; hybrid fuses the two ranked lists at the work
level (or the chunk level with ``chunks=True``): by default the learned fusion, a linear
model over min-max normalised BM25 and cosine scores, the vector rank and the two lists'
agreement, fitted on the development sets (:mod:`prioris.search.fusion`); it edges out the
0.6/0.4 weighted sum on SciFact and NFCorpus alike, which beat reciprocal rank fusion (k=60,
still selectable): docs/benchmarks.md, sections 2 and 9. Mode fts drops a longer English
stop list from a plain query than hybrid does (it won fts on both development sets, and
lost hybrid on one). Passage decay, pseudo-relevance feedback, bigram phrases and a
cross-encoder are hooks, off by default (measured there).

This module runs each mode's candidate lists and orders them; the settings
(:class:`FusionConfig`) live in :mod:`prioris.search.fusion_config` and the hits and
response built from the ordered list in :mod:`prioris.search.hits`, both re-exported here.
The request's checks, label filter and FTS expression are :mod:`prioris.search.request`
(``MODES``, ``SYNTAXES`` and ``MAX_K`` re-exported here), and how one leg's list is
gathered (BM25 or vector, passages or works) :mod:`prioris.search.candidates`.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np

from prioris.embedding.base import Embedder
from prioris.models import Hit
from prioris.search import feedback, fusion
from prioris.search import sections as passage_sections
from prioris.search.candidates import fts_candidates, nearest_candidates
from prioris.search.fusion_config import SHORT_QUERY_FEEDBACK, FusionConfig
from prioris.search.hits import SearchResponse, build_hits, list_ranks, list_scores
from prioris.search.protocols import (
    ChunkScore,
    ChunkSections,
    ChunkVectors,
    SearchBackend,
    SearchFilters,
    WorkCounts,
)
from prioris.search.request import (
    MAX_K,
    MODES,
    SYNTAXES,
    fts_query,
    resolve_labels,
    validate,
)
from prioris.search.rerank import Reranker, rerank_head
from prioris.strings import without_surrogates

__all__ = [
    "MAX_K",
    "MODES",
    "SHORT_QUERY_FEEDBACK",
    "SYNTAXES",
    "FusionConfig",
    "SearchResponse",
    "SearchService",
]

LEFT_OUT_DEPTH = 10_000  # passages read to count the undated works a year filter left out


class SearchService:
    """Runs queries with one embedder over a storage backend's candidate lists.

    Hybrid mode embeds the query and runs the KNN in a worker thread while the backend's
    FTS ranks in the caller's thread (SQLite, numpy and ONNX Runtime release the GIL, so
    the halves overlap on two cores; ``parallel_halves = False`` runs them in turn, as
    vector mode always does). Hits are built only for the k results returned.
    An optional cross-encoder (``reranker``) re-orders the head of the list.
    """

    def __init__(
        self,
        backend: SearchBackend,
        embedder: Embedder,
        fusion_config: FusionConfig,
        *,
        max_query_chars: int = 4096,
        reranker: Reranker | None = None,
    ) -> None:
        self.max_query_chars = max_query_chars  # PRIORIS_MCP_MAX_QUERY_CHARS
        self.backend = backend
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prioris-knn")
        self.embedder = embedder
        self.config = fusion_config
        self.reranker = reranker
        # hybrid's halves in two threads (True) or one after the other in the caller's
        # (False): on the loaded 2-core machine threads were level or ahead at SciFact
        # size, 100k and 1M (docs/benchmarks.md, section 8, third round)
        self.parallel_halves = True

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.backend.close()

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        k: int | None = 10,
        chunks: bool = False,
        filters: SearchFilters | None = None,
        syntax: str = "plain",
    ) -> SearchResponse:
        """The best ``k`` hits; ``k=None`` (fts mode only) returns every match, best first."""
        started = time.perf_counter()
        filters = filters or SearchFilters()
        query = without_surrogates(query) if isinstance(query, str) else query
        validate(query, mode, k, syntax, self.max_query_chars)
        filters.validate()
        filters = resolve_labels(self.backend, filters)
        expression, terms = fts_query(query, mode, syntax, self.config)

        wanted = k  # the reranker, when there is one, sees a deeper list than k
        if self.reranker is not None and k is not None and self.config.rerank_depth > k:
            wanted = self.config.rerank_depth
        labelled = isinstance(self.backend, ChunkSections)
        # passages: a work's back matter gives its places to the work's other passages,
        # so a few more are ranked than are shown (search.sections)
        listed = wanted * 2 if chunks and labelled and wanted is not None else wanted
        depth = max(self.config.depth, (listed or 0) * 3) if mode == "hybrid" else listed
        fts_list: list[ChunkScore] = []
        vec_list: list[ChunkScore] = []
        fts_seen: list[ChunkScore] = []  # every chunk the lists were built from
        vec_seen: list[ChunkScore] = []
        pending = None
        vector = None
        # vector mode (and hybrid without FTS words) embeds and ranks in this thread: a
        # hand-off to the worker would only add a wake-up
        if mode == "hybrid" and expression and self.parallel_halves:
            pending = self._pool.submit(self._vector, query, filters, depth, chunks, vec_seen)
        if mode in ("fts", "hybrid") and expression:
            fts_list = self._fts(expression, filters, depth, chunks, fts_seen)
        if pending is not None:
            vector, vec_list = pending.result()
        elif mode in ("vector", "hybrid"):
            vector, vec_list = self._vector(query, filters, depth, chunks, vec_seen)

        ordered = self._order(mode, fts_list, vec_list, listed, chunks)
        if self.config.prf_docs > 0 and ordered and self._feedback_wanted(query, mode):
            expand = syntax == "plain" and mode != "vector"
            second = self._feedback_pass(
                ordered, vector, terms if expand else [], filters, depth, chunks
            )
            if second is not None:
                fts_list = second[0] if second[0] is not None else fts_list
                vec_list = second[1] if second[1] is not None else vec_list
                ordered = self._order(mode, fts_list, vec_list, listed, chunks)
        if labelled:
            ordered = self._answering_passages(ordered, [*vec_seen, *fts_seen], chunks)
        ordered = ordered[:wanted]
        if self.reranker is not None and self.config.rerank_depth > 0 and ordered:
            ordered = self._rerank(query, ordered)[:k]
        fts_ranks = list_ranks(fts_list, chunks)
        vec_ranks = list_ranks(vec_list, chunks)
        leg_scores = {"fts": list_scores(fts_list, chunks), "vector": list_scores(vec_list, chunks)}
        hits = self._hits(ordered, terms, fts_ranks, vec_ranks, chunks, mode, leg_scores)
        left_out = self._left_out_no_year(mode, expression, filters)
        took = (time.perf_counter() - started) * 1000
        missing = getattr(self.backend, "missing_shards", None)
        return SearchResponse(
            query=query,
            mode=mode,
            took_ms=took,
            hits=hits,
            left_out_no_year=left_out,
            missing_shards=missing() if missing is not None else [],
        )

    # -- steps -------------------------------------------------------------------------
    def _left_out_no_year(
        self, mode: str, expression: str | None, filters: SearchFilters
    ) -> int | None:
        """How many works without a year a year filter set aside: in fts mode those with a
        matching passage; in vector and hybrid modes every one in the other filters' scope
        (each work is a vector candidate). None when no year filter applies."""
        if not filters.has_years or filters.include_undated:
            return None
        undated = replace(filters, from_year=None, to_year=None, undated_only=True)
        if mode == "fts":
            if not expression:
                return 0
            found = self.backend.fts(
                expression, undated, LEFT_OUT_DEPTH, title_weight=self.config.title_weight
            )
            return len({c.work_id for c in found})
        if isinstance(self.backend, WorkCounts):
            return self.backend.count_works(undated)
        return None

    def _feedback_wanted(self, query: str, mode: str) -> bool:
        """Whether a second, feedback pass runs: only for short (topic) queries."""
        limit = self.config.prf_max_words
        return limit is None or len(query.split()) <= limit

    def _fts(
        self,
        expression: str,
        filters: SearchFilters,
        k: int | None,
        chunks: bool,
        seen: list[ChunkScore] | None = None,
    ) -> list[ChunkScore]:
        return fts_candidates(self.backend, self.config, expression, filters, k, chunks, seen)

    def _vector(
        self,
        query: str,
        filters: SearchFilters,
        k: int,
        chunks: bool,
        seen: list[ChunkScore] | None = None,
    ) -> tuple[np.ndarray, list[ChunkScore]]:
        vector = self.embedder.embed_query(query)
        return vector, self._nearest(vector, filters, k, chunks, seen)

    def _nearest(
        self,
        vector: np.ndarray,
        filters: SearchFilters,
        k: int,
        chunks: bool,
        seen: list[ChunkScore] | None = None,
    ) -> list[ChunkScore]:
        return nearest_candidates(self.backend, self.config, vector, filters, k, chunks, seen)

    def _order(
        self,
        mode: str,
        fts_list: list[ChunkScore],
        vec_list: list[ChunkScore],
        k: int | None,
        chunks: bool,
    ) -> list[tuple[ChunkScore, float]]:
        if mode == "fts":
            return [(c, c.score) for c in fts_list[:k]]
        if mode == "vector":
            return [(c, c.score) for c in vec_list[:k]]
        assert k is not None
        return self._fuse(fts_list, vec_list, k, chunks)

    def _feedback_pass(
        self,
        ordered: list[tuple[ChunkScore, float]],
        vector: np.ndarray | None,
        terms: list[str],
        filters: SearchFilters,
        depth: int | None,
        chunks: bool,
    ) -> tuple[list[ChunkScore] | None, list[ChunkScore] | None] | None:
        """The lists again, from a query moved toward the first pass's best works:
        Rocchio on the query vector, RM3-style words added to the FTS query. None when
        neither applies (fts5 syntax, a zero weight, nothing found)."""
        top = [item for item, _ in ordered[: self.config.prf_docs]]
        ids = [item.chunk_id for item in top]
        pending = None
        if vector is not None and self.config.prf_vector_weight > 0 and depth is not None:
            moved = feedback.rocchio(
                vector, self._chunk_vectors(ids), self.config.prf_vector_weight
            )
            pending = self._pool.submit(self._nearest, moved, filters, depth, chunks)
        fts_list = None
        if terms and self.config.prf_terms > 0:
            texts = self._chunk_texts(ids)
            weights = [max(score, 0.0) + 1e-6 for _, score in ordered[: len(top)]]
            present = [(texts[i], w) for i, w in zip(ids, weights, strict=True) if i in texts]
            extra = feedback.expansion_terms(
                terms, [t for t, _ in present], [w for _, w in present], count=self.config.prf_terms
            )
            if extra:
                expression = feedback.expanded_expression(
                    terms, extra, query_weight=self.config.prf_query_weight
                )
                fts_list = self._fts(expression, filters, depth, chunks)
        vec_list = pending.result() if pending is not None else None
        if fts_list is None and vec_list is None:
            return None
        return fts_list, vec_list

    def _answering_passages(
        self, ordered: list[tuple[ChunkScore, float]], seen: list[ChunkScore], chunks: bool
    ) -> list[tuple[ChunkScore, float]]:
        """Back matter (references, acknowledgements, funding, author information) shown
        only when a work has nothing better in the lists: :mod:`prioris.search.sections`."""
        assert isinstance(self.backend, ChunkSections)
        ids = passage_sections.chunk_ids_to_label(ordered, seen, chunks)
        labels = self.backend.sections(ids) if ids else {}
        if not any(passage_sections.is_back_matter(label) for label in labels.values()):
            return ordered
        if chunks:
            return passage_sections.back_matter_last(ordered, labels)
        return passage_sections.prefer_body_passages(ordered, seen, labels)

    def _rerank(
        self, query: str, ordered: list[tuple[ChunkScore, float]]
    ) -> list[tuple[ChunkScore, float]]:
        """The head of the list re-ordered by the cross-encoder (title line + passage)."""
        assert self.reranker is not None
        head = ordered[: self.config.rerank_depth]
        texts = self._chunk_texts([item.chunk_id for item, _ in head])
        titles = self.backend.works(list(dict.fromkeys(item.work_id for item, _ in head)))
        passages = []
        for item, _ in head:
            work = titles.get(item.work_id)
            title = f"{work.title}\n" if work and work.title else ""
            passages.append(title + texts.get(item.chunk_id, ""))
        return rerank_head(ordered, self.reranker.score(query, passages))

    def _chunk_vectors(self, chunk_ids: list[int]) -> np.ndarray:
        """The stored vectors of the feedback passages; none (no Rocchio move) from a
        backend that cannot hand them out."""
        if not chunk_ids or not isinstance(self.backend, ChunkVectors):
            return np.zeros((0, 0), dtype=np.float32)
        return self.backend.vectors(chunk_ids)

    def _chunk_texts(self, chunk_ids: list[int]) -> dict[int, str]:
        return {i: p.text for i, p in self.backend.passages(chunk_ids).items()}

    def _fuse(
        self, fts_list: list[ChunkScore], vec_list: list[ChunkScore], k: int, chunks: bool
    ) -> list[tuple[ChunkScore, float]]:
        def key(item: ChunkScore) -> object:
            return item.chunk_id if chunks else item.work_id

        weights = {"fts": self.config.fts_weight, "vector": self.config.vector_weight}
        if self.config.method == "weighted":
            scores = fusion.weighted_sum(
                {
                    "fts": [(key(c), c.score) for c in fts_list],
                    "vector": [(key(c), c.score) for c in vec_list],
                },
                weights=weights,
            )
        elif self.config.method == "learned":
            scores = fusion.learned(
                [(key(c), c.score) for c in fts_list],
                [(key(c), c.score) for c in vec_list],
                dict(zip(fusion.FEATURES, self.config.learned_weights, strict=True)),
            )
        else:
            scores = fusion.rrf(
                {"fts": [key(c) for c in fts_list], "vector": [key(c) for c in vec_list]},
                k=self.config.rrf_k,
                weights={name: 2 * w for name, w in weights.items()},
            )
        # the passage shown for a work: its vector-best chunk, else its FTS-best chunk
        representative: dict[object, ChunkScore] = {}
        for item in (*fts_list, *vec_list):
            representative[key(item)] = item
        return [(representative[item], score) for item, score in fusion.ranked(scores)[:k]]

    def _hits(
        self,
        ordered: list[tuple[ChunkScore, float]],
        terms: list[str],
        fts_ranks: dict[object, int],
        vec_ranks: dict[object, int],
        chunks: bool,
        mode: str,
        leg_scores: dict[str, dict[object, float]] | None = None,
    ) -> list[Hit]:
        """Hits for the ordered list; a method so benches can swap it on a copied service."""
        return build_hits(
            self.backend, ordered, terms, fts_ranks, vec_ranks, chunks, mode, leg_scores
        )
