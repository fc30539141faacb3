"""Mode fts drops the extended English stop list from a plain query; hybrid keeps the
short list (docs/benchmarks.md, section 9: the extended list won fts on every split of
both development sets and lost hybrid on SciFact half B)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from prioris.embedding.fake import FakeEmbedder
from prioris.search.protocols import ChunkScore, Passage, SearchFilters, WorkSummary
from prioris.search.query import EXTENDED_STOPWORDS, STOPWORDS, plain_to_fts5, query_terms
from prioris.search.service import FusionConfig, SearchService

CLAIM = "Mitochondria should not produce energy through respiration"
TEXT = "mitochondria produce energy in the cell through respiration"


class RecordingBackend:
    """One passage, found by both lists; records the FTS expressions it was asked for."""

    def __init__(self) -> None:
        self.expressions: list[str] = []

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        self.expressions.append(expression)
        return [ChunkScore(1, "w1", 9.0)]

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        return [ChunkScore(1, "w1", 0.8)]

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        return {c: Passage(c, TEXT, 1, 1, 0) for c in chunk_ids}

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        return {w: WorkSummary(w, "Title", [], 2020, "import") for w in work_ids}

    def close(self) -> None:
        pass


def test_extended_list_contains_the_short_one_and_the_function_words() -> None:
    assert STOPWORDS < EXTENDED_STOPWORDS
    assert {"should", "not", "through", "about", "may", "also"} <= EXTENDED_STOPWORDS


def test_query_terms_with_the_extended_list() -> None:
    assert query_terms(CLAIM) == [
        "mitochondria",
        "should",
        "not",
        "produce",
        "energy",
        "through",
        "respiration",
    ]
    assert query_terms(CLAIM, EXTENDED_STOPWORDS) == [
        "mitochondria",
        "produce",
        "energy",
        "respiration",
    ]


def test_a_query_of_stop_words_only_falls_back_to_the_short_list_then_every_word() -> None:
    # "about" and "them" are only in the extended list: the short list's terms are searched
    assert query_terms("what about them", EXTENDED_STOPWORDS) == ["about", "them"]
    assert plain_to_fts5("what about them", stopwords=EXTENDED_STOPWORDS) == '"about" OR "them"'
    # every word in the short list: every word, as before
    assert query_terms("the", EXTENDED_STOPWORDS) == ["the"]


def _service(**config: object) -> tuple[SearchService, RecordingBackend]:
    backend = RecordingBackend()
    service = SearchService(backend, FakeEmbedder(dim=4), FusionConfig(**config))  # type: ignore[arg-type]
    return service, backend


def test_fts_mode_searches_without_the_extended_stop_words() -> None:
    service, backend = _service()
    try:
        response = service.search(CLAIM, mode="fts", k=3)
    finally:
        service.close()
    assert backend.expressions == ['"mitochondria" OR "produce" OR "energy" OR "respiration"']
    # the snippet marks the words searched, not the dropped ones
    snippet = response.hits[0].snippet
    assert "**mitochondria**" in snippet and "**respiration**" in snippet
    assert "**through**" not in snippet


def test_hybrid_keeps_the_short_list() -> None:
    service, backend = _service()
    try:
        response = service.search(CLAIM, mode="hybrid", k=3)
    finally:
        service.close()
    assert backend.expressions == [
        '"mitochondria" OR "should" OR "not" OR "produce" OR "energy" OR "through" OR "respiration"'
    ]
    assert "**through**" in response.hits[0].snippet


def test_the_short_list_is_still_selectable_for_fts() -> None:
    service, backend = _service(fts_extended_stopwords=False)
    try:
        service.search(CLAIM, mode="fts", k=3)
    finally:
        service.close()
    assert '"through"' in backend.expressions[0]


def test_fts5_syntax_is_passed_as_written() -> None:
    service, backend = _service()
    try:
        service.search('"should" AND mitochondria', mode="fts", k=3, syntax="fts5")
    finally:
        service.close()
    assert backend.expressions == ['"should" AND mitochondria']
