"""The search service turns collection and tag filters into a work-id restriction once,
through the backend's WorkLabels; a backend without it refuses such a filter (it never
searches unfiltered)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError
from prioris.search.protocols import ChunkScore, SearchFilters, WorkLabels
from prioris.search.service import FusionConfig, SearchService
from search.test_backend_seam import ListBackend


class LabelledBackend(ListBackend):
    """w1..w8 in the FTS list; w2, w3 and w5 are in the collection asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        self.filters: list[SearchFilters] = []

    def labelled_works(self, collections: Sequence[str], tags: Sequence[str]) -> set[str]:
        self.asked.append((tuple(collections), tuple(tags)))
        return {"w2", "w3", "w5"} if collections == ("Thesis",) else set()

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        self.filters.append(filters)
        found = super().fts(expression, filters, limit, title_weight=title_weight)
        keep = filters.work_ids
        return [c for c in found if keep is None or c.work_id in keep]


def test_labels_become_work_ids_once_and_meet_the_ids_given() -> None:
    backend = LabelledBackend()
    assert isinstance(backend, WorkLabels)
    service = SearchService(backend, FakeEmbedder(), FusionConfig())
    hits = service.search("cells", mode="fts", filters=SearchFilters(collections=("Thesis",))).hits
    assert [h.id for h in hits] == ["w2", "w3", "w5"]
    assert backend.asked == [(("Thesis",), ())]
    assert backend.filters[-1] == SearchFilters(work_ids=("w2", "w3", "w5"))  # labels gone
    both = SearchFilters(collections=("Thesis",), work_ids=("w3", "w4"))
    assert [h.id for h in service.search("cells", mode="fts", filters=both).hits] == ["w3"]
    nothing = SearchFilters(tags=("none",))
    assert service.search("cells", mode="fts", filters=nothing).hits == []
    assert backend.filters[-1].work_ids == ()  # an empty restriction, not no restriction
    service.close()


def test_a_backend_without_labels_refuses_the_filter() -> None:
    service = SearchService(ListBackend(), FakeEmbedder(), FusionConfig())
    with pytest.raises(InvalidRequestError, match="cannot filter by collection or tag"):
        service.search("cells", mode="fts", filters=SearchFilters(tags=("x",)))
    assert service.search("cells", mode="fts").hits  # without one it searches as before
    service.close()
