"""The snowball's pure parts: identity, merging, dedupe against the library, the score
and its explanation (prioris.discovery.snowball)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prioris.discovery.snowball import (
    WEIGHTS,
    keep_direction,
    score_candidates,
    seed_centroid,
)
from prioris.discovery.snowball_candidates import Candidate, from_record, from_reference
from prioris.discovery.snowball_dedupe import TITLE_MATCH_THRESHOLD, CandidatePool, LibraryIndex
from prioris.discovery.snowball_identity import (
    candidate_key,
    clean_ids,
    is_candidate_key,
    normalise_title,
)


def test_identity_prefers_doi_then_arxiv_then_openalex_then_title() -> None:
    title = "Attention is all you need"
    assert (
        candidate_key({"doi": "10.1/x", "arxiv": "1706.03762", "openalex": "W1"}, title, 2017)
        == "doi:10.1/x"
    )
    assert (
        candidate_key({"arxiv": "1706.03762", "openalex": "W1"}, title, 2017) == "arxiv:1706.03762"
    )
    assert candidate_key({"openalex": "W1"}, title, 2017) == "openalex:W1"
    assert (
        candidate_key({}, "Attention Is All You Need!", 2017)
        == "title:attention is all you need|2017"
    )
    assert (
        candidate_key({}, "Attention is all you need", None) == "title:attention is all you need|?"
    )
    assert candidate_key({}, "Short", 2017) is None  # too little to name a work by


def test_clean_ids_one_spelling_and_junk_dropped() -> None:
    ids = clean_ids(
        {
            "doi": "https://doi.org/10.1038/NATURE21707",
            "arxiv": "arXiv:1706.03762v5",
            "id": "https://openalex.org/W2963403868",
            "pmid": "https://pubmed.ncbi.nlm.nih.gov/123",
            "pmcid": "pmc456",
        }
    )
    assert ids == {
        "doi": "10.1038/nature21707",
        "arxiv": "1706.03762v5",
        "openalex": "W2963403868",
        "pmid": "123",
        "pmcid": "PMC456",
    }
    assert clean_ids({"doi": "not a doi", "arxiv": "nope", "id": "X9", "pmid": "abc"}) == {}


def test_normalise_title() -> None:
    assert normalise_title("Déjà  vu: The Return—of  ‘Caching’.") == "deja vu the return of caching"
    assert normalise_title(None) == ""


def test_pool_merges_sightings_that_share_any_key() -> None:
    pool = CandidatePool()
    local = from_reference(
        {
            "title": "Global warming and recurrent mass bleaching of corals",
            "year": 2017,
            "doi": "10.1038/NATURE21707",
            "authors": ["Hughes T"],
        },
        "s1",
    )
    other_seed = from_reference(
        {
            "title": "Global warming & recurrent mass bleaching of corals",
            "year": 2017,
            "doi": None,
            "authors": [],
        },
        "s2",
    )
    record = from_record(
        {
            "id": "W10",
            "title": "Global Warming and Recurrent Mass Bleaching of Corals",
            "doi": "https://doi.org/10.1038/nature21707",
            "year": 2017,
            "cited_by_count": 3000,
            "authors": ["Terry P. Hughes", "James T. Kerry"],
        }
    )
    assert local and other_seed and record
    pool.add(local)
    pool.add(other_seed)  # same normalised title + year (the '&' goes): one candidate
    pool.add(record)  # same DOI
    [only] = pool.candidates()
    assert only.cited_by_seeds == {"s1", "s2"}
    assert only.found_by == {"local", "openalex"}
    assert only.ids == {"doi": "10.1038/nature21707", "openalex": "W10"}
    assert only.cited_by_count == 3000
    assert only.authors == ["Terry P. Hughes", "James T. Kerry"]  # OpenAlex's record wins
    assert only.key == "doi:10.1038/nature21707"


def test_pool_joins_two_candidates_a_later_sighting_shows_are_one() -> None:
    pool = CandidatePool()
    pool.add(
        Candidate(
            title="A paper about reef fish counts",
            year=2010,
            ids={"doi": "10.1/a"},
            cited_by_seeds={"s1"},
        )
    )
    pool.add(
        Candidate(
            title="Some other title entirely here",
            ids={"arxiv": "1001.00001"},
            cited_by_seeds={"s2"},
        )
    )
    assert len(pool) == 2
    pool.add(
        Candidate(
            title="A paper about reef fish counts", ids={"doi": "10.1/a", "arxiv": "1001.00001"}
        )
    )
    [joined] = pool.candidates()
    assert joined.cited_by_seeds == {"s1", "s2"}


def test_a_reference_with_nothing_to_go_on_is_no_candidate() -> None:
    assert from_reference({"raw": "ibid.", "title": None}, "s1") is None
    only_doi = from_reference({"raw": "[3] doi:10.5555/xyz", "doi": "10.5555/xyz"}, "s1")
    assert only_doi is not None and only_doi.title == "[3] doi:10.5555/xyz"
    assert from_record({"id": "nonsense", "title": ""}) is None


def test_library_index_by_alias_and_fuzzy_title_with_year() -> None:
    index = LibraryIndex.build(
        {"doi:10.1/in", "arxiv:2101.00001", "openalex:W5"},
        [
            ("w1", "Ocean acidification and calcifying organisms", 2015),
            ("w2", "Deep learning for coral reef monitoring", None),
        ],
    )
    assert index.match(Candidate(title="x", ids={"doi": "10.1/in"})) == "doi:10.1/in"
    assert index.match(Candidate(title="x", ids={"arxiv": "2101.00001v2"})) == "arxiv:2101.00001"
    assert index.match(Candidate(title="x", ids={"openalex": "W5"})) == "openalex:W5"
    # a typo and a year one off (preprint vs published): the same work
    assert (
        index.match(Candidate(title="Ocean acidification and calcifying organism", year=2016))
        == "w1"
    )
    # the same title five years apart is another work (a sequel, a replication)
    assert (
        index.match(Candidate(title="Ocean acidification and calcifying organisms", year=2020))
        is None
    )
    # no year on the library side: only a near-identical title
    assert (
        index.match(Candidate(title="Deep learning for coral reef monitoring.", year=2019)) == "w2"
    )
    assert index.match(Candidate(title="Deep learning for coral reef monitor", year=2019)) is None
    # different works with related titles stay apart
    assert index.match(Candidate(title="Ocean warming and calcifying organisms", year=2015)) is None
    assert TITLE_MATCH_THRESHOLD == 92.0


def test_score_formula_and_why() -> None:
    strong = Candidate(
        title="Coral bleaching",
        year=2026,
        cited_by_count=9999,
        cited_by_seeds={"s1", "s2"},
        cites_seeds={"s3"},
        found_by={"local"},
    )
    weak = Candidate(title="Unrelated", year=None, cited_by_seeds={"s1"}, found_by={"openalex"})
    ranked = score_candidates(
        [weak, strong],
        seeds=3,
        similarities={id(strong): 0.8, id(weak): None},
        this_year=2026,
        seed_titles={"s1": "Seed one", "s2": "Seed two", "s3": "Seed three"},
    )
    assert ranked == [strong, weak]
    why = strong.why
    links = min(1.0, math.log1p(3) / math.log1p(3))
    citations = math.log1p(9999) / math.log1p(10000)
    expected = 0.40 * links + 0.35 * 0.8 + 0.10 * 1.0 + 0.15 * citations
    assert strong.score == pytest.approx(expected, abs=1e-4)
    assert why["backward"] == 2 and why["cited_by_seeds"] == ["s1", "s2"]
    assert why["forward"] == 1 and why["cites_seeds"] == ["s3"]
    assert why["similarity"] == 0.8 and why["recency"] == 1.0
    assert why["weights"] == WEIGHTS and sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert sum(why["contributions"].values()) == pytest.approx(strong.score, abs=1e-3)
    assert "cited by 2 of your 3 seed(s)" in why["summary"] and "“Seed one”" in why["summary"]
    assert "cites 1 of your 3 seed(s)" in why["summary"] and "close in topic" in why["summary"]
    assert weak.why["similarity"] is None and weak.why["recency"] == 0.0
    assert "topic not compared" in weak.why["summary"]
    # one link of one seed is a full link; of ten seeds a weak one
    one = Candidate(title="t one two three", cited_by_seeds={"s1"})
    score_candidates([one], seeds=1, similarities={}, this_year=2026)
    assert one.why["links"] == 1.0
    score_candidates([one], seeds=10, similarities={}, this_year=2026)
    assert one.why["links"] == pytest.approx(math.log1p(1) / math.log1p(10), abs=1e-4)


def test_recency_halves_every_ten_years_and_ties_are_stable() -> None:
    a = Candidate(title="b title words here", year=2016, cited_by_seeds={"s"})
    b = Candidate(title="a title words here", year=2016, cited_by_seeds={"s"})
    ranked = score_candidates([a, b], seeds=1, similarities={}, this_year=2026)
    assert a.why["recency"] == 0.5
    assert ranked == [b, a]  # equal scores: by title


def test_directions() -> None:
    back = Candidate(cited_by_seeds={"s"})
    fwd = Candidate(cites_seeds={"s"})
    assert keep_direction(back, "backward") and not keep_direction(fwd, "backward")
    assert keep_direction(fwd, "forward") and not keep_direction(back, "forward")
    assert keep_direction(back, "both") and keep_direction(fwd, "both")


def test_seed_centroid() -> None:
    assert seed_centroid([]) is None
    assert seed_centroid([np.zeros(3)]) is None
    c = seed_centroid([np.array([1.0, 0, 0]), np.array([0, 2.0, 0])])
    assert c is not None and np.allclose(c, [math.sqrt(0.5), math.sqrt(0.5), 0])


def test_fetch_routes_follow_discoverys_ladder() -> None:
    arxiv = Candidate(
        title="t",
        ids={"arxiv": "2101.00001", "doi": "10.1/x"},
        pdf_url="https://x.org/a.pdf",
        is_oa=True,
    )
    assert arxiv.fetch_route() == {"provider": "arxiv", "identifier": "arxiv:2101.00001"}
    pmc = Candidate(title="t", ids={"pmcid": "PMC9"})
    assert pmc.fetch_route() == {"provider": "europepmc", "identifier": "europepmc:PMC9"}
    pdf = Candidate(title="t", ids={"doi": "10.1/x"}, pdf_url="https://x.org/a.pdf", is_oa=True)
    assert pdf.fetch_route() == {"pdf_url": "https://x.org/a.pdf", "version": None}
    unsafe = Candidate(title="t", ids={"doi": "10.1/x"}, pdf_url="javascript:alert(1)", is_oa=True)
    assert unsafe.fetch_route() == {"manual_upload": True}


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("doi:10.1/x", True),
        ("arxiv:2101.00001", True),
        ("openalex:W1", True),
        ("title:some title|2020", True),
        ("doi:", False),
        ("file:abc", False),
        ("doi:10.1/x\n", False),
        ("doi:" + "x" * 700, False),
        (None, False),
    ],
)
def test_candidate_keys_accepted_for_dismissal(key: object, ok: bool) -> None:
    assert is_candidate_key(key) is ok


def test_pool_joins_the_same_title_spelt_apart_but_never_two_dois() -> None:
    pool = CandidatePool()
    pool.add(
        Candidate(
            title="Global warming and recurrent mass bleaching of corals",
            year=2017,
            cited_by_seeds={"s1"},
        )
    )
    pool.add(
        Candidate(
            title="Global warming and recurent mass bleaching of coral",
            year=2018,
            cited_by_seeds={"s2"},
        )
    )
    pool.add(
        Candidate(
            title="Global warming and recurrent mass bleaching of corals",
            year=2017,
            ids={"doi": "10.1/a"},
            cited_by_seeds={"s3"},
        )
    )
    pool.add(
        Candidate(
            title="Global warming and recurrent mass bleaching of corals",
            year=2017,
            ids={"doi": "10.1/b"},
            cited_by_seeds={"s4"},
        )
    )
    pool.add(
        Candidate(
            title="Global warming and recurrent mass bleaching of corals",
            year=2009,
            cited_by_seeds={"s5"},
        )
    )
    pool.add(
        Candidate(
            title="Global cooling of ocean basins since the last glacial",
            year=2017,
            cited_by_seeds={"s6"},
        )
    )
    assert len(pool) == 5  # the first and the DOI a one share the title + year key
    assert pool.merge_similar() == 1  # the typo joins; DOI b, 2009 and the other title stay
    merged = {c.key: c for c in pool.candidates()}
    assert merged["doi:10.1/a"].cited_by_seeds == {"s1", "s2", "s3"}
    assert merged["doi:10.1/b"].cited_by_seeds == {"s4"}
    assert len(pool) == 4


def test_scores_with_many_seeds_cap_the_links_at_ten_seeds() -> None:
    """With 40 seeds a candidate tied to ten of them is fully linked (the cap at ten keeps
    a large seed set from making every link look weak), more links add nothing past 1,
    equal scores go to the more linked, and the words name three seeds and count the rest.
    The figures are written out from the formula in the module text."""
    seeds = [f"s{i:02d}" for i in range(40)]
    titles = {s: f"Seed paper {s}" for s in seeds}
    ten = Candidate(title="a ten", year=2020, cited_by_seeds=set(seeds[:10]))
    twelve = Candidate(
        title="z twelve", year=2020, cited_by_seeds=set(seeds[:6]), cites_seeds=set(seeds[6:12])
    )
    thirty = Candidate(title="m thirty", year=2020, cited_by_seeds=set(seeds[:30]))
    three = Candidate(title="b three", year=2020, cited_by_seeds=set(seeds[:3]))
    ranked = score_candidates(
        [ten, three, twelve, thirty],
        seeds=len(seeds),
        similarities={},
        this_year=2030,
        seed_titles=titles,
    )
    assert ten.why["links"] == twelve.why["links"] == thirty.why["links"] == 1.0
    assert three.why["links"] == pytest.approx(math.log1p(3) / math.log1p(10), abs=1e-4)
    expected = 0.40 * 1.0 + 0.10 * 0.5  # links, recency (ten years: a half); no citations
    assert ten.score == twelve.score == thirty.score == pytest.approx(expected, abs=1e-4)
    assert three.score == pytest.approx(0.40 * math.log1p(3) / math.log1p(10) + 0.05, abs=1e-4)
    assert ranked == [thirty, twelve, ten, three]  # equal scores: the more linked first
    assert "cited by 30 of your 40 seed(s)" in thirty.why["summary"]
    assert (
        "“Seed paper s00”; “Seed paper s01”; “Seed paper s02” and 27 more"
        in (thirty.why["summary"])
    )
    assert "cites 6 of your 40 seed(s)" in twelve.why["summary"]
    # the same candidates against 200 seeds score the same: the cap, not the seed count
    again = score_candidates([ten, three], seeds=200, similarities={}, this_year=2030)
    assert [c.score for c in again] == [ten.score, three.score]
