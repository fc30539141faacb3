"""The Embedder protocol: what ingest and search need from an embedding model.

Vectors are L2-normalised float32 so cosine distance in sqlite-vec equals 1 - dot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns passages and queries into vectors of ``dim`` floats."""

    @property
    def model_id(self) -> str:
        """Stable name recorded with the index; a change marks chunks stale."""
        ...

    @property
    def dim(self) -> int:
        """Vector dimension, known without loading the model."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 array, one normalised row per text."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32 normalised vector for a search query."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Model tokens per text (without special tokens), for chunk sizing."""
        ...
