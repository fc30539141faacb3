"""A deterministic, dependency-free Embedder for fast unit tests.

Hashes word trigrams-of-characters into a fixed-size bag, so texts that share words land
close together: good enough to test ranking and filtering logic without ONNX.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Embedder whose vectors are hashed bags of lower-cased words."""

    def __init__(self, dim: int = 64, model_id: str = "fake/hash-64") -> None:
        self._dim = dim
        self._model_id = model_id
        self.calls = 0

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self._dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
            vector[bucket % self._dim] += 1.0
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            vector[0] = 1.0
            norm = 1.0
        return vector / norm

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        return np.vstack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [max(1, int(len(_WORD.findall(t)) * 1.3)) for t in texts]
