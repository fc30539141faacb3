"""SearchService over the SearchBackend protocol alone: fusion and hits need no SQLite."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from prioris.embedding.fake import FakeEmbedder
from prioris.search.protocols import ChunkScore, Passage, SearchFilters, WorkSummary
from prioris.search.service import FusionConfig, SearchService


class ListBackend:
    """Fixed candidate lists; records which rows the service asked for."""

    def __init__(self) -> None:
        self.asked_passages: list[int] = []
        self.asked_works: list[str] = []

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        return [ChunkScore(i, f"w{i}", 10.0 - i) for i in range(1, 9)][:limit]

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        return [ChunkScore(i, f"w{i}", 1.0 - i / 10) for i in (3, 1, 7, 2)][:k]

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        self.asked_passages += chunk_ids
        return {c: Passage(c, f"text of chunk {c} about cells", 1, 1, 0) for c in chunk_ids}

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        self.asked_works += work_ids
        return {w: WorkSummary(w, f"Title {w}", ["A. Author"], 2020, "import") for w in work_ids}

    def close(self) -> None:
        pass


def test_hybrid_over_any_backend_builds_only_the_returned_hits() -> None:
    backend = ListBackend()
    service = SearchService(backend, FakeEmbedder(), FusionConfig())
    response = service.search("cells", mode="hybrid", k=3)
    assert [h.id for h in response.hits] == ["w1", "w2", "w3"]  # 0.6·fts + 0.4·vector
    assert response.hits[0].ranks == {"fts": 1, "vector": 2}
    assert "**cells**" in response.hits[0].snippet
    assert sorted(backend.asked_passages) == [1, 2, 3]  # not the 8 + 4 candidates
    assert sorted(backend.asked_works) == ["w1", "w2", "w3"]
    service.close()
