"""Hybrid fusion where keyword and vector search disagree, so the order shows the weights.

An embedder with hand-placed vectors makes the vector ranking the reverse of BM25's: the
work with the most keyword matches is orthogonal to the query, the one with no keyword
match points straight at it. Min-max normalisation then gives exactly known fused scores
(0.6 for the keyword winner, 0.4 for the vector winner), so swapping the weights, zeroing
one of them or falling back to RRF each changes the order the test asserts.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library

from conftest import FakeOcr

DIRECTIONS = {
    "northward": np.array([1.0, 0.0, 0.0, 0.0]),  # the query's direction
    "diagonal": np.array([1.0, 1.0, 0.0, 0.0]) / math.sqrt(2),
    "eastward": np.array([0.0, 1.0, 0.0, 0.0]),  # orthogonal to the query
}


class DirectionEmbedder(FakeEmbedder):
    """Vectors chosen by a marker word, whatever else the text says."""

    def __init__(self) -> None:
        super().__init__(dim=4, model_id="test/directions-4")

    def _vector(self, text: str) -> np.ndarray:
        for word, vector in DIRECTIONS.items():
            if word in text.lower():
                return vector.astype(np.float32)
        return np.array([0.0, 0.0, 1.0, 0.0], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return DIRECTIONS["northward"].astype(np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.vstack([self._vector(t) for t in texts]) if texts else super().embed_passages([])


RECORDS = [
    # many keyword matches, vector orthogonal to the query: best BM25, worst cosine
    {"_id": "keyword", "title": "Field notes", "text": "zebra zebra zebra zebra eastward"},
    # one keyword match in a longer text, vector halfway: middle of both lists
    {
        "_id": "between",
        "title": "Savanna survey",
        "text": "a zebra among many other grazing animals counted on the plain diagonal",
    },
    # no keyword match at all, vector along the query: absent from FTS, best cosine
    {"_id": "vector", "title": "Grassland", "text": "striped equids of the plain northward"},
]


def _open(env: dict[str, str] | None = None) -> Library:
    settings = load_settings({**os.environ, **(env or {})})
    library = Library.open(settings, embedder=DirectionEmbedder(), ocr=FakeOcr())
    assert len(library.import_records(RECORDS).ingested) == len(RECORDS)
    return library


@pytest.fixture
def disagreeing() -> Library:
    library = _open()
    yield library
    library.close()


def test_defaults_are_the_learned_fusion_and_weights_alone_select_the_weighted_sum() -> None:
    settings = load_settings({})
    assert settings.fusion_method == "learned"
    assert settings.fusion_weights == (0.6, 0.4)
    weighted = load_settings({"PRIORIS_MCP_HYBRID_WEIGHTS": "0.3,0.7"})
    assert (weighted.fusion_method, weighted.fusion_weights) == ("weighted", (0.3, 0.7))
    assert settings.rrf_k == 60
    rrf = load_settings({"PRIORIS_MCP_HYBRID_METHOD": "rrf"})
    assert (rrf.fusion_method, rrf.fusion_weights) == ("rrf", (0.5, 0.5))


def test_the_library_passes_the_settings_to_the_searcher(disagreeing: Library) -> None:
    config = disagreeing.searcher.config
    assert (config.method, config.fts_weight, config.vector_weight, config.rrf_k) == (
        "learned",
        0.6,
        0.4,
        60,
    )


def test_the_two_lists_disagree(disagreeing: Library) -> None:
    fts = [h.id for h in disagreeing.search("zebra", mode="fts").hits]
    vector = [h.id for h in disagreeing.search("zebra", mode="vector").hits]
    assert fts == ["keyword", "between"]
    assert vector == ["vector", "between", "keyword"]
    # vector mode reports the cosine similarity itself, not a fused or normalised score
    scores = [h.score for h in disagreeing.search("zebra", mode="vector").hits]
    assert scores == pytest.approx([1.0, 1 / math.sqrt(2), 0.0], abs=1e-5)
    bm25 = [h.score for h in disagreeing.search("zebra", mode="fts").hits]
    assert bm25[0] > bm25[1] > 0


@pytest.mark.parametrize("chunks", [False, True])
def test_default_hybrid_is_the_fitted_linear_model(disagreeing: Library, chunks: bool) -> None:
    hits = disagreeing.search("zebra", mode="hybrid", chunks=chunks).hits
    # fusion.LEARNED_WEIGHTS: 0.542 fts + 0.333 vector + 0.042 x 10/(10 + vector rank)
    # + 0.083 when both lists hold the item (normalised scores as in the weighted sum)
    expected = {
        "keyword": 0.542 + 0.042 * 10 / 13 + 0.083,
        "vector": 0.333 + 0.042 * 10 / 11,
        "between": 0.333 / math.sqrt(2) + 0.042 * 10 / 12 + 0.083,
    }
    assert [h.id for h in hits] == ["keyword", "vector", "between"]
    assert [h.score for h in hits] == pytest.approx([expected[h.id] for h in hits], abs=1e-5)


@pytest.mark.parametrize("chunks", [False, True])
def test_weighted_hybrid_weighs_keywords_0_6_and_vectors_0_4(chunks: bool) -> None:
    library = _open({"PRIORIS_MCP_HYBRID_METHOD": "weighted"})
    try:
        hits = library.search("zebra", mode="hybrid", chunks=chunks).hits
    finally:
        library.close()
    # keyword: 0.6 x 1 + 0.4 x 0; vector: 0.4 x 1; between: 0.6 x 0 + 0.4 x cos(45°)
    assert [h.id for h in hits] == ["keyword", "vector", "between"]
    assert [h.score for h in hits] == pytest.approx([0.6, 0.4, 0.4 / math.sqrt(2)], abs=1e-5)
    assert [h.ranks for h in hits] == [
        {"fts": 1, "vector": 3},
        {"fts": None, "vector": 1},
        {"fts": 2, "vector": 2},
    ]


def test_weights_from_the_environment_change_the_order() -> None:
    library = _open({"PRIORIS_MCP_HYBRID_WEIGHTS": "0.3,0.7"})
    try:
        hits = library.search("zebra", mode="hybrid").hits
    finally:
        library.close()
    # keyword: 0.3; vector: 0.7; between: 0.7 x cos(45°) = 0.495
    assert [h.id for h in hits] == ["vector", "between", "keyword"]
    assert [h.score for h in hits] == pytest.approx([0.7, 0.7 / math.sqrt(2), 0.3], abs=1e-5)


def test_rrf_when_chosen_sums_reciprocal_ranks() -> None:
    library = _open({"PRIORIS_MCP_HYBRID_METHOD": "rrf"})
    try:
        hits = library.search("zebra", mode="hybrid").hits
    finally:
        library.close()
    expected = {
        "keyword": 1 / 61 + 1 / 63,
        "between": 1 / 62 + 1 / 62,
        "vector": 1 / 61,
    }
    assert [h.id for h in hits] == ["keyword", "between", "vector"]
    assert [h.score for h in hits] == pytest.approx([expected[h.id] for h in hits], rel=1e-5)


def test_rrf_uses_the_weights_too() -> None:
    library = _open({"PRIORIS_MCP_HYBRID_METHOD": "rrf", "PRIORIS_MCP_HYBRID_WEIGHTS": "0.2,0.8"})
    try:
        hits = library.search("zebra", mode="hybrid").hits
    finally:
        library.close()
    # each list weighs twice its share: fts 0.4, vector 1.6
    expected = {
        "keyword": 0.4 / 61 + 1.6 / 63,
        "between": 0.4 / 62 + 1.6 / 62,
        "vector": 1.6 / 61,
    }
    assert [h.id for h in hits] == ["between", "keyword", "vector"]
    assert [h.score for h in hits] == pytest.approx([expected[h.id] for h in hits], rel=1e-5)
