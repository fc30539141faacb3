"""Embedding models behind the :class:`Embedder` protocol."""

from __future__ import annotations

from prioris.config import Settings
from prioris.embedding.base import Embedder


def build_embedder(settings: Settings) -> Embedder:
    """The configured embedder: the packaged offline model unless another is named."""
    from prioris.embedding.fastembed_backend import FastembedEmbedder

    return FastembedEmbedder(
        settings.embedding_model,
        model_path=settings.embedding_model_path,
        cache_dir=settings.data_dir,
        batch_size=settings.embedding_batch_size,
    )


__all__ = ["Embedder", "build_embedder"]
