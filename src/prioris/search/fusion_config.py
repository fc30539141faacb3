"""The knobs of hybrid search, with the values the development sets chose.

:class:`FusionConfig` holds how the FTS and vector lists are scored and fused (method,
weights, depth, passage decay, work vectors, feedback, reranking depth); each default was
measured on SciFact and NFCorpus (docs/benchmarks.md). Kept apart from
:mod:`prioris.search.service` so the settings and the reasons for their values read on
their own, and configuration code need not import the service.
"""

from __future__ import annotations

from dataclasses import dataclass

from prioris.search import fusion


@dataclass(frozen=True)
class FusionConfig:
    """How hybrid combines the lists; tuned on the SciFact train split only."""

    method: str = "learned"
    rrf_k: int = 60
    fts_weight: float = 0.6
    vector_weight: float = 0.4
    depth: int = 100
    title_weight: float = 1.0
    fts_decay: float = 0.0
    """Work score from its FTS passages: best + decay x second + decay^2 x third ..."""
    vector_decay: float = 0.0
    """The same for the vector side (0: best passage only)."""
    fts_bigrams: bool = False
    """Adjacent query words also searched as phrases (plain syntax)."""
    fts_extended_stopwords: bool = True
    """Mode fts drops ``query.EXTENDED_STOPWORDS`` from a plain query (hybrid keeps the
    short list: it lost SciFact half B there)."""
    prf_docs: int = 0
    """Pseudo-relevance feedback from this many first-pass works (0: off)."""
    prf_vector_weight: float = 0.0
    """Rocchio: how far the query vector moves toward the feedback passages."""
    prf_max_words: int | None = None
    """Feedback only for queries of at most this many words (None: any length; 0: never).
    Short topic queries gain from the feedback passages' vocabulary, claims drift."""
    prf_terms: int = 0
    """RM3-style: feedback words added to a plain FTS query."""
    prf_query_weight: int = 2
    """RM3-style: how many times the query's own words count against an added one."""
    work_vector_weight: float = 0.3
    """The vector side scores a work by ``weight x`` the cosine of its own vector (title +
    abstract) ``+ (1 - weight) x`` its best chunk's (0: best chunk only). 0.3 won every
    split of SciFact and NFCorpus, in vector and hybrid mode (docs/benchmarks.md, §9)."""
    work_vector_pool: int = 100
    """How many works of the chunk KNN (at least) are rescored with their own vectors."""
    work_vector_pool_factor: int = 2
    """... and at least this many times the works asked for: a work whose passages rank
    below the asked depth can still belong in it by its own vector (on both development
    sets, twice the depth gave exact scoring's lists in vector and hybrid mode; the depth
    alone lost 0.002 nDCG@10 in hybrid)."""
    learned_weights: tuple[float, ...] = fusion.LEARNED_WEIGHTS
    """Method ``learned``: one weight per ``fusion.FEATURES`` entry."""
    rerank_depth: int = 30
    """How many of the first candidates a configured cross-encoder re-orders."""


SHORT_QUERY_FEEDBACK = {"prf_docs": 3, "prf_vector_weight": 0.5}
"""What ``PRIORIS_MCP_FEEDBACK_MAX_WORDS`` turns on for queries up to that length: Rocchio
from the first three works, moved halfway. With 4 words it was the one feedback setting
measured that lost no split of SciFact and NFCorpus (NFCorpus +0.009 nDCG@10), but its
second KNN slowed hybrid p50 by about a third at 100k chunks, over the 20% a default may
cost: opt-in (docs/benchmarks.md, section 9)."""
