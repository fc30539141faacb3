"""The model a task uses: the caller's own embedder in this process, built once per worker
process elsewhere.

A task sent to a Dask worker is pickled with its arguments. Pickling a loaded ONNX model
with every task would be slow (and its session cannot be pickled at all), and loading it
again for every task slower still. :class:`WorkerModel` therefore pickles as its *recipe*
(a small picklable callable that builds the embedder: the model's name and files for the
configured model, the embedder itself for a small one such as the tests' fake), and a
worker unpickling it builds the embedder the first time only, keeping it in a module-level
dict keyed by model id for every later task in that process. In the calling process
nothing is pickled and the live embedder is used as is.

Like :mod:`prioris.ingest.tasks`, this module reaches neither storage nor the engines.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from prioris.embedding.base import Embedder
from prioris.errors import ConfigurationError

Recipe = Callable[[], Embedder]
"""Builds the embedder on a worker; must be picklable (a module-level function, a
:func:`functools.partial` of one, or :class:`Given`)."""

_BUILT: dict[str, Embedder] = {}  # model id -> the embedder this worker process built
_BUILD_LOCK = threading.Lock()  # a worker with several threads builds a model once


class Given:
    """A recipe that is the embedder itself, pickled whole: for a small embedder object
    given to the library (a test's fake), which has no name to be rebuilt from."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def __call__(self) -> Embedder:
        return self.embedder


class WorkerModel:
    """An :class:`~prioris.embedding.base.Embedder` that pickles as its recipe."""

    def __init__(self, embedder: Embedder, recipe: Recipe | None = None) -> None:
        self.embedder = embedder
        self.recipe: Recipe = recipe if recipe is not None else Given(embedder)
        self._model_id = embedder.model_id

    def __reduce__(self) -> tuple[Any, ...]:
        return (_on_worker, (self._model_id, self.recipe))

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self.embedder.dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(text)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.embedder.count_tokens(texts)


def _on_worker(model_id: str, recipe: Recipe) -> WorkerModel:
    """Unpickling a :class:`WorkerModel`: the embedder this process built for ``model_id``,
    built now if it is the first task to need it."""
    with _BUILD_LOCK:
        embedder = _BUILT.get(model_id)
        if embedder is None:
            embedder = recipe()
            if embedder.model_id != model_id:  # vectors of another model would mix silently
                raise ConfigurationError(
                    f"this worker's embedding model is {embedder.model_id!r}, the library's "
                    f"is {model_id!r}: set the worker's PRIORIS_MCP_EMBEDDING_MODEL(_PATH) "
                    "to the library's model"
                )
            _BUILT[model_id] = embedder
    return WorkerModel(embedder, recipe)


def built_models() -> list[str]:
    """The model ids this process has built for tasks (a test checks a worker builds once)."""
    with _BUILD_LOCK:
        return list(_BUILT)
