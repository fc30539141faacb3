"""Embedding models behind the :class:`Embedder` protocol."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

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


def embedder_recipe(settings: Settings) -> Any:
    """A picklable recipe that builds the configured embedder on a task worker (a Dask
    worker, possibly on another machine: :mod:`prioris.ingest.worker_model`)."""
    return partial(
        worker_embedder,
        settings.embedding_model,
        settings.embedding_model_path,
        settings.data_dir,
        settings.embedding_batch_size,
    )


def worker_embedder(
    model: str | None, model_path: Path | None, data_dir: Path | None, batch_size: int
) -> Embedder:
    """The library's model as a worker builds it, from the worker's own files where its
    environment names them: ``PRIORIS_MCP_EMBEDDING_MODEL_PATH`` (a copy of the model's
    directory on that machine), ``PRIORIS_MCP_DATA_DIR`` (where the packaged model is
    unpacked) and ``PRIORIS_MCP_EMBEDDING_BATCH_SIZE`` (a larger batch on a GPU worker).
    The model itself stays the library's: vectors of two models never mix."""
    from prioris.config.model import model_settings
    from prioris.embedding.fastembed_backend import FastembedEmbedder

    env = os.environ
    own = model_settings(env)
    if env.get("PRIORIS_MCP_DATA_DIR"):
        data_dir = Path(env["PRIORIS_MCP_DATA_DIR"]).expanduser()
    elif data_dir is not None and not data_dir.is_dir():
        data_dir = None  # the caller's folder is not on this machine: the user's cache
    if own.embedding_model_path is not None:
        model_path = own.embedding_model_path
    elif model_path is not None and not model_path.exists():
        model_path = None
    if "PRIORIS_MCP_EMBEDDING_BATCH_SIZE" in env:
        batch_size = own.embedding_batch_size
    return FastembedEmbedder(
        model, model_path=model_path, cache_dir=data_dir, batch_size=batch_size
    )


__all__ = ["Embedder", "build_embedder", "embedder_recipe", "worker_embedder"]
