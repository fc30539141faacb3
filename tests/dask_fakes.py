"""Fakes a Dask worker must import by name (the tests' own modules are imported under
names only pytest knows): an embedder slow enough that a run is still going when the
test kills a worker, and a recipe that counts the builds of each worker process."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from prioris.embedding.fake import FakeEmbedder

BUILDS: list[str] = []  # in each process: the models its recipes built


class SlowEmbedder(FakeEmbedder):
    """The fake embedder, ``delay`` seconds a call (a model on a busy machine)."""

    def __init__(self, delay: float = 0.4, model_id: str = "fake/slow-64") -> None:
        super().__init__(model_id=model_id)
        self.delay = delay

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.delay)
        return super().embed_passages(texts)


class CountingRecipe:
    """Builds a fake embedder of ``model_id``, noting each build in this process."""

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id

    def __call__(self) -> FakeEmbedder:
        BUILDS.append(self.model_id)
        return FakeEmbedder(model_id=self.model_id)


def builds() -> list[str]:
    """What this process built (run on each worker through ``client.run``)."""
    return list(BUILDS)
