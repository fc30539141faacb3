"""An optional cross-encoder stage that re-orders the head of a result list.

A cross-encoder reads the query and a passage together, which ranks better than any
fusion of two independent scores, at the price of one model pass per candidate. It needs
a model that is not packaged with Prioris (fastembed downloads it on first use), so it is
off by default and chosen with ``PRIORIS_MCP_RERANK_MODEL`` on machines that can fetch one
(e.g. ``Xenova/ms-marco-MiniLM-L-6-v2``). Only the first ``PRIORIS_MCP_RERANK_DEPTH``
candidates are scored; the rest keep their order after them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from prioris.errors import ConfigurationError

if TYPE_CHECKING:
    from prioris.config import Settings


class Reranker(Protocol):
    """Scores passages against a query (higher is more relevant)."""

    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...


class CrossEncoderReranker:
    """fastembed's ``TextCrossEncoder``, loaded on first use (a download if not cached)."""

    def __init__(
        self,
        model_name: str,
        *,
        cache_dir: Path | None = None,
        batch_size: int = 16,
        threads: int | None = None,
    ) -> None:
        self.model_name = model_name
        self._cache_dir = cache_dir
        self._batch_size = batch_size
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from fastembed.rerank.cross_encoder import TextCrossEncoder

                kwargs: dict[str, Any] = {"threads": self._threads}
                if self._cache_dir is not None:
                    kwargs["cache_dir"] = str(self._cache_dir / "fastembed")
                try:
                    self._model = TextCrossEncoder(model_name=self.model_name, **kwargs)
                except Exception as exc:  # fastembed raises plain exceptions (download, name)
                    raise ConfigurationError(
                        f"could not load reranking model {self.model_name!r}: {exc}. It must "
                        "be one of fastembed's cross-encoders and reachable (or cached); "
                        "unset PRIORIS_MCP_RERANK_MODEL to search without reranking"
                    ) from exc
            return self._model

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        model = self._load()
        return [float(s) for s in model.rerank(query, list(passages), batch_size=self._batch_size)]


def build_reranker(settings: Settings) -> CrossEncoderReranker | None:
    """The cross-encoder named by ``PRIORIS_MCP_RERANK_MODEL`` (loaded on first search,
    cached under the data directory like the embedding models), or None: no reranking."""
    if not settings.rerank_model:
        return None
    return CrossEncoderReranker(settings.rerank_model, cache_dir=settings.data_dir)


def rerank_head(
    items: Sequence[tuple[Any, float]],
    scores: Sequence[float],
) -> list[tuple[Any, float]]:
    """``items`` (best first) with its first ``len(scores)`` re-ordered by ``scores``.

    The re-ordered head carries the reranker's scores; the tail keeps its order and its
    score gaps, shifted to sit below the head, so scores still fall down the list.
    """
    head = sorted(
        ((item, float(s)) for (item, _), s in zip(items, scores, strict=False)),
        key=lambda pair: -pair[1],
    )
    tail = list(items[len(head) :])
    if not head or not tail:
        return head + tail
    floor, top = head[-1][1] - 1.0, tail[0][1]
    return head + [(item, floor - (top - score)) for item, score in tail]
