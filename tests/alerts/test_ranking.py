"""The alerts' ranking on small synthetic libraries (the fake embedder's hashed words):
each collection's own candidates first, explained by its nearest works and its terms;
dismissals and accepts move the next ranking; the whole library ranks without negatives;
and the numpy pieces (TF-IDF rows, the sparse products, the SVM) do what they say."""

from __future__ import annotations

import numpy as np
import pytest

from prioris.alerts import terms as lexical
from prioris.alerts.linear import DenseRows, Stacked, fit
from prioris.alerts.ranking import SHORTLIST, Item, Profile, Ranking, rank
from prioris.embedding.fake import FakeEmbedder

EMBED = FakeEmbedder(dim=64)

BEES = [
    ("b1", "Waggle dance of honey bees", "Foragers dance on the comb to recruit nestmates."),
    ("b2", "Honey bee foraging range", "Bees fly kilometres from the hive to find nectar."),
    ("b3", "Pollen loads of honey bee foragers", "Bees carry pollen back to the hive."),
]
REEFS = [
    ("r1", "Coral reef bleaching", "Ocean warming causes coral bleaching in shallow reefs."),
    ("r2", "Symbiotic algae of corals", "Algae leave coral tissue when the reef water warms."),
    ("r3", "Reef fish after bleaching", "Fish leave bleached coral reefs for deeper water."),
]
CANDIDATES = [
    ("c-bee", "Nectar foraging by honey bee colonies", "Bees recruit foragers to nectar."),
    ("c-reef", "Coral bleaching on warming reefs", "Coral reefs bleach as the ocean warms."),
    ("c-other", "Tax policy and growth", "Income taxes and economic growth in Europe."),
]


def items(rows: list[tuple[str, str, str]]) -> list[Item]:
    vectors = EMBED.embed_passages([f"{t}\n{x}" for _, t, x in rows])
    return [Item(i, t, x, v) for (i, t, x), v in zip(rows, vectors, strict=True)]


def test_each_collection_ranks_its_own_candidate_first_with_why() -> None:
    library, candidates = items(BEES + REEFS), items(CANDIDATES)
    ranked = rank(
        library,
        candidates,
        [
            Profile("bees", frozenset({"b1", "b2", "b3"})),
            Profile("reefs", frozenset({"r1", "r2", "r3"})),
        ],
        k=3,
    )
    assert ranked["bees"][0].id == "c-bee"
    assert ranked["reefs"][0].id == "c-reef"
    top = ranked["reefs"][0]
    why = top.why()
    # the nearest works are the collection's own, with their titles
    assert {n["id"] for n in why["nearest"]} <= {"r1", "r2", "r3"} and why["nearest"]
    assert all(n["title"] for n in why["nearest"])
    # the terms that weighed most are the candidate's words, as written there
    terms = [t["term"] for t in why["terms"]]
    assert terms and set(" ".join(terms).split()) <= set(
        "coral bleaching on warming reefs bleach as the ocean warms".split()
    )
    assert all(t["weight"] > 0 for t in why["terms"])
    assert ranked["bees"][0].score > ranked["bees"][-1].score


def test_dismissals_are_negatives_and_accepts_positives() -> None:
    library = items(BEES + REEFS)
    pool = items(
        [
            ("c-hive", "Hive temperature of honey bee colonies", "Bees heat the hive."),
            ("c-pollen", "Pollen foraging by honey bees", "Foragers carry pollen to the hive."),
        ]
    )
    feedback = items(
        [
            ("old-hive", "Hive temperature regulation in bees", "Bees heat the hive in winter."),
            ("old-tax", "Taxes on pollen imports", "Import taxes on pollen and growth."),
        ]
    )
    ranking = Ranking(library, pool, feedback=feedback)
    bees = frozenset({"b1", "b2", "b3"})
    before = {r.id: r.score for r in ranking.rank(Profile("bees", bees), 2)}
    after = {
        r.id: r.score
        for r in ranking.rank(Profile("bees", bees, dismissed=frozenset({"old-hive"})), 2)
    }
    # dismissing an earlier hive paper lowers the hive candidate against the pollen one
    assert after["c-hive"] - after["c-pollen"] < before["c-hive"] - before["c-pollen"]
    accepted = {r.id: r.score for r in ranking.rank(Profile("bees", bees | {"old-hive"}), 2)}
    assert accepted["c-hive"] - accepted["c-pollen"] > before["c-hive"] - before["c-pollen"]
    # a remembered candidate neither accepted nor dismissed in this profile is left out
    assert ranking.model(Profile("bees", bees)) is not None


def test_the_whole_library_is_told_apart_from_the_pool() -> None:
    library, candidates = items(BEES + REEFS), items(CANDIDATES)
    everything = frozenset(i.id for i in library)
    ranked = Ranking(library, candidates).rank(Profile("(library)", everything), 3)
    assert ranked[-1].id == "c-other"  # neither bees nor reefs
    assert {n[0] for r in ranked for n in r.nearest} <= everything


def test_no_positive_no_ranking_and_k_bounded() -> None:
    ranking = Ranking(items(BEES), items(CANDIDATES))
    assert ranking.rank(Profile("empty", frozenset()), 5) == []
    assert Ranking([], items(CANDIDATES)).rank(Profile("x", frozenset({"b1"})), 5) == []
    with pytest.raises(ValueError):
        ranking.rank(Profile("bees", frozenset({"b1"})), 0)


def test_tfidf_rows_unit_length_and_rare_or_common_terms_left_out() -> None:
    texts = ["honey bees dance", "honey bees forage", "coral reefs bleach", "coral reefs warm"]
    found = lexical.tfidf(texts, min_df=2, max_df=0.5)
    assert set(found.vocabulary) == {"honey", "bee", "coral", "reef", "honey bee", "coral reef"}
    norms = np.linalg.norm(found.rows.dense(), axis=1)
    assert np.allclose(norms, 1.0)
    assert lexical.words("The studies of Bées") == ["studi", "bee"]
    assert lexical.words("The studies of Bées", stem=False) == ["studies", "bees"]


def test_sparse_products_match_dense_ones() -> None:
    found = lexical.tfidf(["a1 b2 c3 d4", "b2 c3 e5", "a1 e5 e5", "c3 d4 e5"], min_df=1, max_df=1)
    dense = found.rows.dense()
    rng = np.random.default_rng(1)
    w, r = rng.standard_normal(found.rows.width), rng.standard_normal(found.rows.height)
    assert np.allclose(found.rows.dot(w), dense @ w)
    assert np.allclose(found.rows.weighted_sum(r), r @ dense)
    assert np.allclose(found.rows.take([3, 0, 3]).dense(), dense[[3, 0, 3]])
    assert found.rows.take([]).height == 0
    stacked = Stacked(DenseRows(dense), found.rows, scale=2.0)
    both = np.hstack([dense, 2.0 * dense])
    w2 = rng.standard_normal(stacked.width)
    assert np.allclose(stacked.dot(w2), both @ w2)
    assert np.allclose(stacked.take([1]).weighted_sum(np.ones(1)), both[1])


@pytest.mark.parametrize("loss", ["hinge2", "logistic"])
def test_the_linear_model_separates_and_reaches_its_optimum(loss: str) -> None:
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(1, 0.3, (20, 5)), rng.normal(-1, 0.3, (60, 5))])
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.r_[np.ones(20), np.zeros(60)]
    model = fit(DenseRows(x), y, c=1.0, loss=loss, steps=400)
    scores = model.scores(DenseRows(x))
    assert scores[:20].min() > scores[20:].max()
    # the gradient of the objective vanishes at the optimum found
    sign = np.where(y > 0, 1.0, -1.0)
    balance = np.where(y > 0, 80 / 40, 80 / 120)
    margins = sign * scores
    if loss == "hinge2":
        dloss = np.where(margins < 1, -2 * sign * (1 - margins), 0.0)
    else:
        dloss = -sign / (1 + np.exp(margins))
    grad_w = model.weights + x.T @ (balance * dloss)
    assert np.linalg.norm(grad_w) < 1e-3 * max(1.0, np.linalg.norm(model.weights))
    with pytest.raises(ValueError):
        fit(DenseRows(x), np.ones(80))


def filler(n: int) -> list[tuple[str, str, str]]:
    """``n`` candidates about neither bees nor reefs (each its own words, so the lexical
    model tells them apart from the collections' candidates)."""
    return [
        (f"f{i}", f"Ledger number {i} of the harbour office", f"Tariff {i} on imported grain.")
        for i in range(n)
    ]


def unembedded(rows: list[tuple[str, str, str]]) -> list[Item]:
    return [Item(i, t, x, None) for i, t, x in rows]


def test_a_shortlist_names_what_each_profile_ranks_and_only_that_is_embedded() -> None:
    pool = CANDIDATES + filler(40)
    ranking = Ranking(items(BEES + REEFS), unembedded(pool))
    bees = Profile("bees", frozenset({"b1", "b2", "b3"}))
    reefs = Profile("reefs", frozenset({"r1", "r2", "r3"}))
    places = ranking.shortlist([bees, reefs], size=5)
    # each profile keeps its 5 best by the lexical model, its own candidate among them
    assert {pool[i][0] for i in ranking.shortlists["bees"]} >= {"c-bee"}
    assert {pool[i][0] for i in ranking.shortlists["reefs"]} >= {"c-reef"}
    assert all(len(v) == 5 for v in ranking.shortlists.values())
    assert places == sorted(set(ranking.shortlists["bees"]) | set(ranking.shortlists["reefs"]))
    assert ranking.rank(bees, 3) == []  # nothing has a vector yet: nothing ranked
    vectors = EMBED.embed_passages([f"{pool[i][1]}\n{pool[i][2]}" for i in places])
    ranking.set_vectors({i: vectors[n] for n, i in enumerate(places)})
    ranked = ranking.rank(bees, 20)
    assert ranked[0].id == "c-bee" and len(ranked) == 5  # its shortlist, no more
    assert {r.id for r in ranked} == {pool[i][0] for i in ranking.shortlists["bees"]}
    assert ranking.rank(reefs, 1)[0].id == "c-reef"


def test_embed_shortlist_embeds_a_small_pool_whole_and_a_large_one_in_part() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return EMBED.embed_passages(texts)

    bees = Profile("bees", frozenset({"b1", "b2", "b3"}))
    small = Ranking(items(BEES + REEFS), unembedded(CANDIDATES))
    assert small.embed_shortlist([bees], embed, k=2) == len(CANDIDATES)
    assert small.rank(bees, 1)[0].id == "c-bee"
    large = Ranking(items(BEES + REEFS), unembedded(CANDIDATES + filler(SHORTLIST + 20)))
    assert large.embed_shortlist([bees], embed, k=2) == SHORTLIST
    assert len(calls[-1]) == SHORTLIST and large.rank(bees, 1)[0].id == "c-bee"
    assert large.embed_shortlist([bees], embed, k=2) == 0  # what has a vector keeps it
    # asking for more than a shortlist holds widens it to k
    wide = Ranking(items(BEES + REEFS), unembedded(CANDIDATES + filler(SHORTLIST + 20)))
    assert wide.embed_shortlist([bees], embed, k=SHORTLIST + 10) == SHORTLIST + 10
    # the library as a whole, without negatives, is told apart from what was embedded
    everything = Profile("(library)", frozenset(i.id for i in items(BEES + REEFS)))
    assert large.rank(everything, 3)


def test_library_works_need_their_vectors() -> None:
    with pytest.raises(ValueError):
        Ranking(unembedded(BEES[:1]), items(CANDIDATES))


def test_the_models_read_vectors_less_their_mean_and_why_the_plain_cosine() -> None:
    pool = CANDIDATES + filler(2)
    ranking = Ranking(items(BEES + REEFS), [*items(pool[:3]), *unembedded(pool[3:])])
    known, candidates = ranking.centred()
    assert np.allclose(np.linalg.norm(known, axis=1), 1.0)
    assert np.allclose(np.linalg.norm(candidates[:3], axis=1), 1.0)
    assert not candidates[3:].any()  # no vector yet: nothing to centre
    # the mean of what has a vector is gone from it
    mean = np.vstack([ranking.known_dense, ranking.candidate_dense[:3]]).mean(axis=0)
    plain = ranking.known_dense - mean
    assert np.allclose(known, plain / np.linalg.norm(plain, axis=1, keepdims=True))
    ranking.set_vectors({3: EMBED.embed_passages(["a ledger"])[0]})
    assert ranking.centred()[1][3].any()  # recomputed once a vector arrives
    top = ranking.rank(Profile("bees", frozenset({"b1", "b2", "b3"})), 1)[0]
    cosine = float(ranking.candidate_dense[0] @ ranking.known_dense[0])
    assert top.id == "c-bee" and any(abs(s - cosine) < 1e-9 for _, _, s in top.nearest)


def test_an_empty_library_embeds_nothing_and_vectors_keep_one_width() -> None:
    def embed(texts: list[str]) -> np.ndarray:
        return EMBED.embed_passages(texts)

    empty = Ranking([], unembedded(CANDIDATES))
    everything = Profile("(library)", frozenset())
    assert empty.embed_shortlist([everything], embed) == 0
    assert empty.rank(everything, 3) == []
    # the first vectors given set the width when nothing else did; others must match it
    empty.set_vectors({0: EMBED.embed_passages(["a"])[0]})
    assert empty.candidate_dense.shape == (len(CANDIDATES), EMBED.dim)
    with pytest.raises(ValueError):
        empty.set_vectors({1: np.ones(EMBED.dim + 1)})
