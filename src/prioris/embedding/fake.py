"""A deterministic, dependency-free Embedder for fast unit tests.

Hashes word trigrams-of-characters into a fixed-size bag, so texts that share words land
close together: good enough to test ranking and filtering logic without ONNX.

Each ``model_id`` shuffles the bag's buckets its own way, so two fake "models" give
different vectors for the same text (a model-change test really switches models) while
ranking within one model is the same for every id (a permutation keeps every cosine).
The default id keeps the unshuffled buckets, the vectors tests were first written against.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)
DEFAULT_FAKE_MODEL_ID = "fake/hash-64"


def _bucket_order(model_id: str, dim: int) -> np.ndarray | None:
    """The bucket permutation of ``model_id`` (None for the default id: no shuffle).

    Seeded from a hash of the id, so the same id always gives the same vectors, in any
    process; a permutation rather than new hashes keeps within-model distances unchanged.
    """
    if model_id == DEFAULT_FAKE_MODEL_ID or dim < 2:
        return None
    seed = int.from_bytes(hashlib.blake2b(model_id.encode(), digest_size=8).digest(), "big")
    order = np.random.default_rng(seed).permutation(dim)
    if np.array_equal(order, np.arange(dim)):  # vanishingly rare: still differ from default
        order = np.roll(order, 1)
    return order


class FakeEmbedder:
    """Embedder whose vectors are hashed bags of lower-cased words."""

    def __init__(self, dim: int = 64, model_id: str = DEFAULT_FAKE_MODEL_ID) -> None:
        self._dim = dim
        self._model_id = model_id
        self._order = _bucket_order(model_id, dim)
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
        if self._order is not None:
            vector = vector[self._order]
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
