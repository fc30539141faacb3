"""``Library.rank_alerts`` over a real SQLite library (fake embedder): every collection and
the whole library ranked from one pool, embedded once; candidates the library holds marked
by alias and by title + year; remembered dismissals passed in; bad input refused."""

from __future__ import annotations

from typing import Any

import pytest

from prioris.alerts.protocols import Candidate
from prioris.errors import InvalidRequestError, NotFoundError

RECORDS = [
    {
        "_id": "b1",
        "title": "Waggle dance of honey bees",
        "year": 2021,
        "text": "Foragers dance on the comb to recruit nestmates to nectar.",
        "collections": ["Insects / Bees"],
    },
    {
        "_id": "b2",
        "title": "Honey bee foraging range",
        "year": 2022,
        "text": "Bees fly kilometres from the hive to find nectar and pollen.",
        "collections": ["Insects / Bees"],
    },
    {
        "_id": "r1",
        "title": "Coral reef bleaching",
        "year": 2020,
        "text": "Ocean warming causes coral bleaching in shallow reefs.",
        "collections": ["Reefs"],
    },
    {
        "_id": "r2",
        "title": "Symbiotic algae of corals",
        "year": 2023,
        "text": "Algae leave coral tissue when the reef water warms.",
        "collections": ["Reefs"],
    },
    {
        "_id": "t1",
        "title": "Tax policy in Europe",
        "year": 2019,
        "text": "Income taxes and growth.",
    },
]
POOL = [
    Candidate("c-bee", "Nectar foraging by honey bee colonies", "Bees recruit foragers to nectar."),
    Candidate(
        "c-reef", "Coral bleaching on warming reefs", "Coral reefs bleach as the ocean warms."
    ),
    Candidate("c-dup", "Coral reef bleaching.", "A reprint.", published="2020-05-01"),
    Candidate(
        "https://doi.org/10.5555/TAX.1",
        "Taxes again",
        "Income taxes.",
        identifiers=("t1",),
    ),
]


class Counting:
    """The fake embedder, counting the texts each call embeds."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_passages(self, texts: Any) -> Any:
        self.calls.append(len(texts))
        return self.inner.embed_passages(texts)


@pytest.fixture
def stocked(library: Any) -> Any:
    summary = library.import_records(RECORDS)
    assert not summary.failed and summary.ingested_count == len(RECORDS)
    return library


def test_every_collection_and_the_library_from_one_embedding(stocked: Any) -> None:
    counting = Counting(stocked._parts.embedder)
    stocked._parts.alerts_ranking.embedder = counting
    out = stocked.rank_alerts(POOL, k=4)
    assert counting.calls == [len(POOL)]  # the pool once, for every profile
    names = [r["collection"] for r in out]
    assert names[0] == "(library)" and set(names[1:]) == {"Insects", "Insects / Bees", "Reefs"}
    by = {r["collection"]: r["candidates"] for r in out}
    assert by["Insects / Bees"][0]["id"] == "c-bee"
    assert by["Reefs"][0]["id"] in {"c-reef", "c-dup"}
    reef = next(c for c in by["Reefs"] if c["id"] == "c-reef")
    assert {n["id"] for n in reef["why"]["nearest"]} <= {"r1", "r2"}
    assert set(reef) == {"id", "title", "score", "why", "in_library"}
    marked = {c["id"]: c["in_library"] for c in by["(library)"]}
    assert marked == {
        "c-bee": False,
        "c-reef": False,
        "c-dup": True,
        "https://doi.org/10.5555/TAX.1": True,
    }


def test_named_collections_feedback_and_bad_input(stocked: Any) -> None:
    (bees,) = stocked.rank_alerts(POOL, collections=["bees"], k=2)
    assert bees["collection"] == "bees" and len(bees["candidates"]) == 2
    feedback = [Candidate("old", "Bee colonies forage nectar", "Honey bee foragers recruit.")]
    plain = stocked.rank_alerts(POOL[:2], collections=["Bees"], k=2)[0]["candidates"]
    dismissed = stocked.rank_alerts(
        POOL[:2], collections=["Bees"], k=2, feedback=feedback, dismissed={"Bees": ["old"]}
    )[0]["candidates"]
    gap = {c["id"]: c["score"] for c in plain}
    gap_after = {c["id"]: c["score"] for c in dismissed}
    assert gap_after["c-bee"] - gap_after["c-reef"] < gap["c-bee"] - gap["c-reef"]
    with pytest.raises(NotFoundError):
        stocked.rank_alerts(POOL, collections=["No such collection"])
    with pytest.raises(InvalidRequestError):
        stocked.rank_alerts(POOL, k=0)
    assert stocked.rank_alerts([], collections=["Reefs"]) == [
        {"collection": "Reefs", "candidates": []}
    ]


def test_a_candidates_identifiers_are_also_tried_in_their_stored_form() -> None:
    from prioris.services.alerts_ranking import _aliases

    found = _aliases(Candidate("https://doi.org/10.5555/TAX.1", "t", identifiers=("2503.01234",)))
    assert "doi:10.5555/tax.1" in found and "arxiv:2503.01234" in found
    assert found[0] == "https://doi.org/10.5555/TAX.1"  # as given, first


def test_a_large_pool_is_embedded_only_where_a_collection_may_want_it(stocked: Any) -> None:
    from prioris.alerts.ranking import SHORTLIST

    counting = Counting(stocked._parts.embedder)
    stocked._parts.alerts_ranking.embedder = counting
    filler = [
        Candidate(f"f{i}", f"Ledger {i} of the harbour office", f"Tariff {i} on grain.")
        for i in range(SHORTLIST + 30)
    ]
    (reefs,) = stocked.rank_alerts([*POOL, *filler], collections=["Reefs"], k=2)
    # one profile: its lexical shortlist is all that the model embeds
    assert counting.calls == [SHORTLIST]
    assert reefs["candidates"][0]["id"] in {"c-reef", "c-dup"}
    assert all(c["why"]["nearest"] for c in reefs["candidates"])
