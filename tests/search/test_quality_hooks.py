"""The retrieval-quality hooks measured for issue 14 (all off by default): passage decay,
pseudo-relevance feedback, bigram phrases, learned fusion and the cross-encoder stage."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError
from prioris.search import feedback, fusion
from prioris.search.protocols import ChunkScore, ChunkVectors, Passage, SearchFilters, WorkSummary
from prioris.search.query import adjacent_pairs, plain_to_fts5
from prioris.search.rerank import CrossEncoderReranker, build_reranker, rerank_head
from prioris.search.scoring import collapse, top_works
from prioris.search.service import SHORT_QUERY_FEEDBACK, FusionConfig, SearchService

TEXTS = {
    1: "mitochondria produce energy in the cell through respiration",
    2: "respiration in mitochondria and oxidative phosphorylation",
    3: "unrelated passage on galaxies",
    4: "mitochondria again, a second passage of work w1",
}


class RecordingBackend:
    """Fixed lists that record the FTS expressions and KNN vectors they were asked for."""

    def __init__(self) -> None:
        self.expressions: list[str] = []
        self.vectors_asked: list[np.ndarray] = []

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        self.expressions.append(expression)
        return [ChunkScore(1, "w1", 9.0), ChunkScore(2, "w2", 5.0), ChunkScore(3, "w3", 1.0)]

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        self.vectors_asked.append(np.asarray(vector))
        return [ChunkScore(2, "w2", 0.9), ChunkScore(1, "w1", 0.8)][:k]

    def vectors(self, chunk_ids: Sequence[int]) -> np.ndarray:
        rows = [np.eye(4, dtype=np.float32)[i % 4] for i in chunk_ids]
        return np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        return {c: Passage(c, TEXTS[c], 1, 1, 0) for c in chunk_ids if c in TEXTS}

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        return {w: WorkSummary(w, f"Title {w}", [], 2020, "import") for w in work_ids}

    def close(self) -> None:
        pass


class QueryEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=4)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray([0.0, 0.0, 0.0, 1.0], dtype=np.float32)


# -- work scores from passages ----------------------------------------------------------------
def test_collapse_without_decay_keeps_the_best_passage_order() -> None:
    items = [ChunkScore(1, "a", 5.0), ChunkScore(2, "b", 4.0), ChunkScore(3, "a", 3.9)]
    assert collapse(items) == [ChunkScore(1, "a", 5.0), ChunkScore(2, "b", 4.0)]


def test_collapse_without_decay_is_the_lists_order_whatever_the_scores() -> None:
    """``decay == 0`` keeps the caller's order (each work's first passage), not a re-sort
    by score: the order is the backend's, and a re-sort would be wasted work at best."""
    items = [ChunkScore(1, "a", 1.0), ChunkScore(2, "b", 3.0), ChunkScore(3, "a", 9.0)]
    assert collapse(items) == [ChunkScore(1, "a", 1.0), ChunkScore(2, "b", 3.0)]
    assert collapse(items, decay=0.0) == collapse(items)


def test_collapse_with_decay_adds_further_passages_above_the_floor() -> None:
    items = [
        ChunkScore(1, "a", 5.0),
        ChunkScore(2, "b", 5.5 - 0.5),  # tie with a's best
        ChunkScore(3, "b", 4.0),
        ChunkScore(4, "c", 1.0),  # the floor: adds nothing to anyone
        ChunkScore(5, "a", 1.0),
    ]
    out = collapse(items, decay=0.5)
    assert [c.work_id for c in out] == ["b", "a", "c"]
    assert out[0] == ChunkScore(2, "b", 5.0 + 0.5 * 3.0)  # best chunk kept as representative
    assert out[1].score == 5.0  # a's passage at the floor counts for nothing


def test_top_works_fetches_more_until_k_works() -> None:
    calls: list[int] = []

    def fetch(limit: int) -> list[ChunkScore]:
        calls.append(limit)
        rows = [ChunkScore(i, "same" if i < 12 else f"w{i}", 100.0 - i) for i in range(40)]
        return rows[:limit]

    works = top_works(fetch, 3, cap=None)
    assert [w.work_id for w in works] == ["same", "w12", "w13"]
    assert calls == [12, 48]


def test_collapse_with_decay_weighs_each_further_passage_less() -> None:
    items = [
        ChunkScore(1, "a", 5.0),
        ChunkScore(2, "b", 5.9),
        ChunkScore(3, "a", 3.0),
        ChunkScore(4, "a", 2.0),
        ChunkScore(5, "c", 1.0),  # the floor
    ]
    out = collapse(items, decay=0.5)
    # a: 5 + 0.5 x (3 - 1) + 0.25 x (2 - 1) = 6.25, above b's lone 5.9
    assert out == [ChunkScore(1, "a", 6.25), ChunkScore(2, "b", 5.9), ChunkScore(5, "c", 1.0)]
    assert collapse([], decay=0.5) == []


def test_top_works_stops_at_the_backends_ceiling() -> None:
    calls: list[int] = []

    def fetch(limit: int) -> list[ChunkScore]:
        calls.append(limit)
        return [ChunkScore(i, "same", 100.0 - i) for i in range(limit)]  # one work only

    works = top_works(fetch, 3, cap=20)
    assert [w.work_id for w in works] == ["same"]
    assert calls == [12, 20]  # 4 x k, then at most the ceiling, and no further fetch
    calls.clear()
    assert [w.chunk_id for w in top_works(fetch, 10, cap=8)] == [0]
    assert calls == [8]  # the first fetch is already capped


# -- pseudo-relevance feedback ------------------------------------------------------------------
def test_rocchio_moves_the_query_toward_the_passages() -> None:
    query = np.asarray([1.0, 0.0], dtype=np.float32)
    moved = feedback.rocchio(query, np.asarray([[0.0, 1.0]], dtype=np.float32), 1.0)
    assert np.allclose(moved, [2**-0.5, 2**-0.5])
    assert feedback.rocchio(query, np.zeros((0, 0), dtype=np.float32), 1.0) is query


def test_expansion_terms_weighs_feedback_words_and_skips_the_query_and_its_inflections() -> None:
    extra = feedback.expansion_terms(
        ["mitochondria"],
        [TEXTS[1], TEXTS[2]],
        [2.0, 1.0],
        count=3,
    )
    assert extra[0] == "respiration"  # in both passages
    assert "mitochondria" not in extra and "mitochondrial" not in extra
    assert "the" not in extra and "in" not in extra
    assert feedback.expansion_terms(["x"], [], count=3) == []
    expression = feedback.expanded_expression(["cell"], ["energy"], query_weight=2)
    assert expression == '"cell" OR "cell" OR "energy"'


def test_feedback_pass_moves_the_vector_and_expands_the_fts_query() -> None:
    backend = RecordingBackend()
    config = FusionConfig(prf_docs=2, prf_vector_weight=1.0, prf_terms=2, prf_query_weight=2)
    service = SearchService(backend, QueryEmbedder(), config)
    response = service.search("mitochondria", mode="hybrid", k=2)
    assert {h.id for h in response.hits} == {"w1", "w2"}
    assert len(backend.vectors_asked) == 2  # first pass, then the moved query
    assert not np.allclose(backend.vectors_asked[0], backend.vectors_asked[1])
    assert backend.expressions[0] == '"mitochondria"'
    assert backend.expressions[1].startswith('"mitochondria" OR "mitochondria" OR ')
    assert "respiration" in backend.expressions[1]
    service.close()


def test_feedback_in_vector_mode_never_expands_fts_and_zero_words_turns_it_off() -> None:
    backend = RecordingBackend()
    config = FusionConfig(prf_docs=2, prf_vector_weight=0.5, prf_terms=5)
    service = SearchService(backend, QueryEmbedder(), config)
    service.search("mitochondria", mode="vector", k=2)
    assert backend.expressions == [] and len(backend.vectors_asked) == 2
    plain = RecordingBackend()
    off = FusionConfig(**SHORT_QUERY_FEEDBACK, prf_max_words=0)
    SearchService(plain, QueryEmbedder(), off).search("mitochondria", k=2)
    assert len(plain.expressions) == 1 and len(plain.vectors_asked) == 1


@pytest.mark.parametrize(
    ("query", "passes"),
    [
        ("mitochondria", 2),  # a short topic: Rocchio's second KNN
        ("mitochondria energy cell respiration", 2),  # four words: still short
        ("mitochondria produce energy through respiration", 1),  # five: a claim, one pass
    ],
)
def test_short_query_feedback_is_rocchio_for_queries_of_at_most_n_words(
    query: str, passes: int
) -> None:
    config = FusionConfig(**SHORT_QUERY_FEEDBACK, prf_max_words=4)
    assert (config.prf_docs, config.prf_vector_weight, config.prf_terms) == (3, 0.5, 0)
    backend = RecordingBackend()
    service = SearchService(backend, QueryEmbedder(), config)
    service.search(query, mode="hybrid", k=2)
    assert len(backend.vectors_asked) == passes
    assert len(backend.expressions) == 1  # never an RM3 expansion
    if passes == 2:  # moved toward the first works' passages
        assert not np.allclose(backend.vectors_asked[0], backend.vectors_asked[1])
    service.close()


def test_feedback_max_words_setting_turns_the_short_query_feedback_on(settings: Any) -> None:
    from prioris.config import load_settings
    from prioris.library import Library

    assert load_settings({}).feedback_max_words == 0
    assert load_settings({"PRIORIS_MCP_FEEDBACK_MAX_WORDS": "4"}).feedback_max_words == 4
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_FEEDBACK_MAX_WORDS"):
        load_settings({"PRIORIS_MCP_FEEDBACK_MAX_WORDS": "-1"})
    with Library.open(settings, embedder=FakeEmbedder()) as library:
        assert library.searcher.config.prf_docs == 0  # off by default (latency)
    on = settings.with_overrides(feedback_max_words=4)
    with Library.open(on, embedder=FakeEmbedder()) as lib:
        config = lib.searcher.config
        assert (config.prf_docs, config.prf_vector_weight, config.prf_max_words) == (3, 0.5, 4)


def test_rocchio_needs_a_backend_with_vectors() -> None:
    class NoVectors(RecordingBackend):
        vectors = None  # type: ignore[assignment]

    backend = NoVectors()
    assert not isinstance(backend, ChunkVectors)
    config = FusionConfig(prf_docs=2, prf_vector_weight=1.0)
    SearchService(backend, QueryEmbedder(), config).search("mitochondria", mode="vector", k=2)
    assert np.allclose(backend.vectors_asked[0], backend.vectors_asked[-1])  # not moved


def test_sqlite_backend_hands_out_stored_vectors(library: Any) -> None:
    library.import_records([{"id": "v1", "title": "Vectors", "text": "stored vectors here"}])
    backend = library.searcher.backend
    chunk_id = library.conn.execute("SELECT id FROM chunks").fetchone()[0]
    rows = backend.vectors([chunk_id])
    assert rows.shape == (1, library.embedder.dim)
    assert backend.knn(rows[0], SearchFilters(), 1)[0].chunk_id == chunk_id
    assert backend.vectors([10**9]).size == 0


# -- query phrases ------------------------------------------------------------------------------
def test_bigrams_add_adjacent_content_word_pairs_as_phrases() -> None:
    assert adjacent_pairs("the vitamin D deficiency and vitamin D") == [
        ("vitamin", "d"),
        ("d", "deficiency"),
    ]
    assert plain_to_fts5("vitamin D levels", bigrams=True) == (
        '"vitamin" OR "d" OR "levels" OR "vitamin d" OR "d levels"'
    )
    assert plain_to_fts5("vitamin D levels") == '"vitamin" OR "d" OR "levels"'


# -- learned fusion -----------------------------------------------------------------------------
def test_features_describe_each_candidate_of_either_list() -> None:
    keys, rows = fusion.features([("a", 10.0), ("b", 0.0)], [("b", 0.9), ("c", 0.5)])
    assert keys == ["a", "b", "c"]
    table = dict(zip(keys, rows, strict=True))
    assert table["a"] == [1.0, 0.0, 10 / 11, 0.0, 0.0, 0.0]
    assert table["b"] == [0.0, 1.0, 10 / 12, 10 / 11, 1.0, 0.9]
    assert table["c"][1] == 0.0 and table["c"][5] == 0.5


def test_learned_fusion_on_the_two_scores_alone_is_the_weighted_sum() -> None:
    fts, vec = [("a", 3.0), ("b", 1.0), ("c", 0.0)], [("c", 0.9), ("a", 0.1)]
    two = (0.6, 0.4, 0.0, 0.0, 0.0, 0.0)
    learned = fusion.learned(fts, vec, dict(zip(fusion.FEATURES, two, strict=True)))
    weighted = fusion.weighted_sum({"fts": fts, "vector": vec}, weights={"fts": 0.6, "vector": 0.4})
    assert learned == pytest.approx(weighted)
    backend = RecordingBackend()
    learned_ids = [
        h.id
        for h in SearchService(
            backend, QueryEmbedder(), FusionConfig(method="learned", learned_weights=two)
        )
        .search("mitochondria", k=3)
        .hits
    ]
    weighted_ids = [
        h.id
        for h in SearchService(backend, QueryEmbedder(), FusionConfig(method="weighted"))
        .search("m", k=3)
        .hits
    ]
    assert learned_ids == weighted_ids == ["w2", "w1", "w3"]


# -- cross-encoder stage ------------------------------------------------------------------------
class StandInReranker:
    """Scores a passage by how often it names the query's first word (a tiny model)."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.seen.append(list(passages))
        word = query.split()[0].lower()
        return [float(p.lower().count(word)) for p in passages]


def test_reranker_reorders_the_head_of_a_deeper_list() -> None:
    backend = RecordingBackend()
    reranker = StandInReranker()
    service = SearchService(backend, QueryEmbedder(), FusionConfig(), reranker=reranker)
    hits = service.search("galaxies", mode="fts", k=1).hits
    assert [h.id for h in hits] == ["w3"]  # third by BM25, first by the cross-encoder
    assert len(reranker.seen[0]) == 3  # rerank_depth 30 > k: every candidate seen
    assert reranker.seen[0][2].startswith("Title w3\n")


def test_rerank_head_keeps_the_tail_below_the_head() -> None:
    items = [("a", 9.0), ("b", 8.0), ("c", 7.0), ("d", 3.0)]
    out = rerank_head(items, [0.1, 0.7])
    assert [i for i, _ in out] == ["b", "a", "c", "d"]
    scores = [s for _, s in out]
    assert scores == sorted(scores, reverse=True)
    assert rerank_head(items[:2], [1.0, 2.0]) == [("b", 2.0), ("a", 1.0)]


def test_library_reranks_with_the_configured_stand_in(settings: Any) -> None:
    from prioris.library import Library

    reranker = StandInReranker()
    with Library.open(settings, embedder=FakeEmbedder(), reranker=reranker) as lib:
        lib.import_records(
            [
                {"id": "p1", "title": "Galaxies", "text": "stars and dust"},
                {"id": "p2", "title": "Dust", "text": "dust dust dust galaxies galaxies"},
            ]
        )
        hits = lib.search("dust galaxies", mode="hybrid", k=2).hits
    assert reranker.seen and {h.id for h in hits} == {"p1", "p2"}
    assert hits[0].id == "p2"  # says "dust" most often


def test_rerank_settings_choose_the_cross_encoder(data_dir: Path) -> None:
    from prioris.config import load_settings

    assert build_reranker(load_settings({"PRIORIS_MCP_DATA_DIR": str(data_dir)})) is None
    settings = load_settings(
        {
            "PRIORIS_MCP_DATA_DIR": str(data_dir),
            "PRIORIS_MCP_RERANK_MODEL": "Xenova/ms-marco-MiniLM-L-6-v2",
            "PRIORIS_MCP_RERANK_DEPTH": "12",
        }
    )
    reranker = build_reranker(settings)
    assert isinstance(reranker, CrossEncoderReranker)
    assert reranker.model_name == "Xenova/ms-marco-MiniLM-L-6-v2"
    assert settings.rerank_depth == 12
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_RERANK_DEPTH"):
        load_settings({"PRIORIS_MCP_RERANK_DEPTH": "0"})


def test_cross_encoder_loads_fastembed_and_reports_a_bad_model(data_dir: Path) -> None:
    reranker = CrossEncoderReranker("no-such/cross-encoder", cache_dir=data_dir)
    assert reranker.score("q", []) == []  # nothing to score: no model loaded
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_RERANK_MODEL"):
        reranker.score("q", ["a passage"])


def test_cross_encoder_scores_through_the_loaded_model(data_dir: Path) -> None:
    class TinyModel:
        def rerank(self, query: str, documents: list[str], batch_size: int) -> list[float]:
            assert batch_size == 2
            return [len(set(query.split()) & set(d.split())) for d in documents]

    reranker = CrossEncoderReranker("stand-in", cache_dir=data_dir, batch_size=2)
    reranker._model = TinyModel()  # the loaded fastembed model's place
    assert reranker.score("a b", ["a b c", "c", "b"]) == [2.0, 0.0, 1.0]


def test_learned_fusion_is_selectable_by_setting(data_dir: Path) -> None:
    from prioris.config import load_settings
    from prioris.library import Library

    settings = load_settings(
        {"PRIORIS_MCP_DATA_DIR": str(data_dir), "PRIORIS_MCP_HYBRID_METHOD": "learned"}
    )
    with Library.open(settings, embedder=FakeEmbedder()) as lib:
        assert lib.searcher.config.method == "learned"
