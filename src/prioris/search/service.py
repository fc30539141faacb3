"""Search over the library: fts, vector and hybrid modes, works or passages.

Work results take each work's best chunk; hybrid fuses the two ranked lists at the work
level (or the chunk level with ``chunks=True``): by default a 0.6/0.4 weighted sum of
min-max normalised BM25 and cosine scores, which beat reciprocal rank fusion (k=60, still
selectable) on the SciFact train split: nDCG@10 0.735 against 0.709 (docs/benchmarks.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from prioris.embedding.base import Embedder
from prioris.errors import InvalidRequestError
from prioris.models import Hit
from prioris.search import fusion
from prioris.search.backends import VEC_MAX_K, ChunkScore, SearchFilters, best_per_work
from prioris.search.protocols import SearchBackend
from prioris.search.query import fts5_expression_terms, plain_to_fts5, query_terms
from prioris.search.snippets import make_snippet
from prioris.strings import without_surrogates

MODES = ("fts", "vector", "hybrid")
SYNTAXES = ("plain", "fts5")
MAX_K = 1000


@dataclass(frozen=True)
class FusionConfig:
    """How hybrid combines the lists; tuned on the SciFact train split only."""

    method: str = "weighted"
    rrf_k: int = 60
    fts_weight: float = 0.6
    vector_weight: float = 0.4
    depth: int = 100
    title_weight: float = 1.0


@dataclass
class SearchResponse:
    query: str
    mode: str
    took_ms: float
    hits: list[Hit] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "took_ms": round(self.took_ms, 2),
            "hits": [h.to_dict() for h in self.hits],
        }


class SearchService:
    """Runs queries with one embedder over a storage backend's candidate lists.

    Hybrid mode embeds the query and runs the KNN in a worker thread while the backend's
    FTS ranks in the caller's thread (SQLite, numpy and ONNX Runtime release the GIL, so
    the halves overlap on two cores). Hits are built only for the k results returned.
    """

    def __init__(
        self,
        backend: SearchBackend,
        embedder: Embedder,
        fusion_config: FusionConfig,
        *,
        max_query_chars: int = 4096,
    ) -> None:
        self.max_query_chars = max_query_chars  # PRIORIS_MCP_MAX_QUERY_CHARS
        self.backend = backend
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prioris-knn")
        self.embedder = embedder
        self.config = fusion_config

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
        self._validate(query, mode, k, syntax)
        if len(query) > self.max_query_chars:
            raise InvalidRequestError(
                f"the query is {len(query)} characters long, over the limit of "
                f"{self.max_query_chars} (PRIORIS_MCP_MAX_QUERY_CHARS)"
            )
        filters.validate()
        if syntax == "fts5":
            expression: str | None = query
            terms = fts5_expression_terms(query)
            if mode != "fts":
                raise InvalidRequestError("syntax 'fts5' is only for mode 'fts'")
        else:
            expression = plain_to_fts5(query)
            terms = query_terms(query)

        depth = max(self.config.depth, (k or 0) * 3) if mode == "hybrid" else k
        fts_list: list[ChunkScore] = []
        vec_list: list[ChunkScore] = []
        pending = None
        if mode in ("vector", "hybrid"):
            pending = self._pool.submit(self._vector, query, filters, depth, chunks)
        if mode in ("fts", "hybrid") and expression:
            fts_list = self._fts(expression, filters, depth, chunks)
        if pending is not None:
            vec_list = pending.result()

        if mode == "fts":
            ordered = [(c, c.score) for c in fts_list[:k]]
        elif mode == "vector":
            ordered = [(c, c.score) for c in vec_list[:k]]
        else:
            ordered = self._fuse(fts_list, vec_list, k, chunks)
        fts_ranks = _ranks(fts_list, chunks)
        vec_ranks = _ranks(vec_list, chunks)
        hits = self._hits(ordered, terms, fts_ranks, vec_ranks, chunks, mode)
        took = (time.perf_counter() - started) * 1000
        return SearchResponse(query=query, mode=mode, took_ms=took, hits=hits)

    # -- steps -------------------------------------------------------------------------
    @staticmethod
    def _validate(query: str, mode: str, k: int | None, syntax: str) -> None:
        if mode not in MODES:
            raise InvalidRequestError(f"mode {mode!r} is not one of {', '.join(MODES)}")
        if syntax not in SYNTAXES:
            raise InvalidRequestError(f"syntax {syntax!r} is not one of {', '.join(SYNTAXES)}")
        if k is None:
            if mode != "fts":
                raise InvalidRequestError(f"mode {mode!r} needs a number of hits (k)")
        elif not 1 <= k <= MAX_K:
            raise InvalidRequestError(f"k must be between 1 and {MAX_K}, got {k}")
        if not query or not query.strip():
            raise InvalidRequestError("the query is empty")

    def _fts(
        self, expression: str, filters: SearchFilters, k: int | None, chunks: bool
    ) -> list[ChunkScore]:
        def ranked(limit: int) -> list[ChunkScore]:
            return self.backend.fts(
                expression, filters, limit, title_weight=self.config.title_weight
            )

        if k is None:  # every match (SQLite: LIMIT -1)
            return ranked(-1) if chunks else best_per_work(ranked(-1))
        return ranked(k) if chunks else _top_works(ranked, k, cap=None)

    def _vector(self, query: str, filters: SearchFilters, k: int, chunks: bool) -> list[ChunkScore]:
        vector = self.embedder.embed_query(query)

        def nearest(limit: int) -> list[ChunkScore]:
            return self.backend.knn(vector, filters, limit)

        return nearest(k) if chunks else _top_works(nearest, k, cap=VEC_MAX_K)

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
    ) -> list[Hit]:
        if not ordered:
            return []
        rows = self.backend.passages([c.chunk_id for c, _ in ordered])
        works = self.backend.works(list(dict.fromkeys(c.work_id for c, _ in ordered)))
        hits = []
        for item, score in ordered:
            row, work = rows.get(item.chunk_id), works.get(item.work_id)
            if row is None or work is None:
                continue
            key = item.chunk_id if chunks else item.work_id
            ranks: dict[str, int | None] = {}
            if mode in ("fts", "hybrid"):
                ranks["fts"] = fts_ranks.get(key)
            if mode in ("vector", "hybrid"):
                ranks["vector"] = vec_ranks.get(key)
            hits.append(
                Hit(
                    id=work.id,
                    title=work.title,
                    authors=work.authors,
                    year=work.year,
                    score=float(f"{float(score):.6g}"),
                    ranks=ranks,
                    snippet=make_snippet(row.text, terms),
                    page_start=row.page_start,
                    page_end=row.page_end,
                    offset=row.char_start,
                    chunk_id=item.chunk_id,
                    source=work.source,
                )
            )
        return hits


def _top_works(
    fetch: Callable[[int], list[ChunkScore]], k: int, *, cap: int | None
) -> list[ChunkScore]:
    """Best chunk of each of the top ``k`` works: fetch 4x as many chunks as works wanted,
    and more while too few distinct works came back and more chunks exist."""
    limit = k * 4 if cap is None else min(k * 4, cap)
    while True:
        rows = fetch(limit)
        works = best_per_work(rows)
        if len(works) >= k or len(rows) < limit or (cap is not None and limit >= cap):
            return works[:k]
        limit = limit * 4 if cap is None else min(limit * 4, cap)


def _ranks(items: list[ChunkScore], chunks: bool) -> dict[object, int]:
    return {(c.chunk_id if chunks else c.work_id): i for i, c in enumerate(items, start=1)}
