"""Search: how the full-text and vector rankings are fused (method, RRF k, weights), the
optional cross-encoder rerank, query feedback, and a work's own vector in its score.

Separate because the fusion method and its weights are read together (weights given alone
select the weighted sum), a rule no other area shares.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from prioris.config.parsing import RANGES, _choice, _integer, _number
from prioris.errors import ConfigurationError

FUSION_METHODS = ("rrf", "weighted", "learned")


@dataclass(frozen=True)
class SearchSettings:
    """How hybrid search ranks: fusion, rerank and feedback."""

    fusion_method: str = "learned"
    rrf_k: int = 60
    fusion_weights: tuple[float, float] = (0.6, 0.4)
    rerank_model: str | None = None  # a fastembed cross-encoder; off (offline) by default
    rerank_depth: int = 30
    feedback_max_words: int = 0  # Rocchio feedback for queries of at most this many words
    work_vector_weight: float = 0.3  # a work's own vector in its vector score (0: chunks only)


def search_settings(env: Mapping[str, str]) -> SearchSettings:
    """The search settings from ``env``; the fusion method and weights are read first."""
    # the learned fusion unless weights are given alone (they are the weighted sum's)
    given_weights = bool((env.get("PRIORIS_MCP_HYBRID_WEIGHTS") or "").strip())
    method = _choice(
        env, "PRIORIS_MCP_HYBRID_METHOD", FUSION_METHODS, "weighted" if given_weights else "learned"
    )
    # tuned default for the weighted sum; plain (equal-weight) RRF when rrf is chosen alone;
    # the learned fusion has weights of its own (fusion.LEARNED_WEIGHTS)
    weights_raw = env.get("PRIORIS_MCP_HYBRID_WEIGHTS") or (
        "0.5,0.5" if method == "rrf" else "0.6,0.4"
    )
    low, high = RANGES["PRIORIS_MCP_HYBRID_WEIGHTS"]
    try:
        fts_w, vec_w = (float(part) for part in weights_raw.split(","))
        if not all(math.isfinite(w) and low <= w <= high for w in (fts_w, vec_w)):
            raise ValueError(weights_raw)
    except ValueError:
        raise ConfigurationError(
            f"PRIORIS_MCP_HYBRID_WEIGHTS={weights_raw[:40]!r} is invalid; accepted: two "
            f"numbers 'FTS,VECTOR' from {low:g} to {high:g}, such as '0.5,0.5'"
        ) from None
    return SearchSettings(
        fusion_method=method,
        rrf_k=_integer(env, "PRIORIS_MCP_HYBRID_RRF_K", 60),
        fusion_weights=(fts_w, vec_w),
        rerank_model=(env.get("PRIORIS_MCP_RERANK_MODEL") or "").strip() or None,
        rerank_depth=_integer(env, "PRIORIS_MCP_RERANK_DEPTH", 30),
        feedback_max_words=_integer(env, "PRIORIS_MCP_FEEDBACK_MAX_WORDS", 0),
        work_vector_weight=_number(env, "PRIORIS_MCP_WORK_VECTOR_WEIGHT", 0.3),  # 0..1
    )
