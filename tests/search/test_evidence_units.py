"""The evidence room's parts on their own: quotable sentences, BM25 over a pool, the
rhetorical role of a sentence, the ranking with its per-leg ranks, and the collapsing of
near-duplicates."""

from __future__ import annotations

import numpy as np

from prioris.search.evidence import lexical, roles
from prioris.search.evidence.collapse import collapse
from prioris.search.evidence.ranking import Candidate, rank
from prioris.search.evidence.sentences import quotable_sentences


def test_quotable_sentences_skip_headings_tables_and_fragments() -> None:
    text = (
        "# A title without a stop\n\nFirst sentence is long enough. Second one wraps\n"
        "onto a new line.\n## Methods\nWe did a thing with mice [3].\n| a | b |\n| 1 | 2 |\n\n"
        "- the list item is prose too\n2. numbered items count as well here\nFig. 3\n"
        "12 34 56 78 9.1 2.3 4.5"
    )
    found = quotable_sentences(text)
    assert [s.text for s in found] == [
        "First sentence is long enough.",
        "Second one wraps\nonto a new line.",
        "We did a thing with mice [3].",
        "the list item is prose too",
        "numbered items count as well here\nFig. 3\n12 34 56 78 9.1 2.3 4.5",
    ]
    for s in found:
        assert text[s.start : s.end] == s.text
    assert quotable_sentences("Too short.\n\n1.2 3.4 5.6 7.8 9.0") == []


def test_bm25_prefers_the_rarer_shared_words() -> None:
    pool = [
        "Statins were given to patients.",
        "Statins reduced mortality in patients over 70.",
        "Patients were followed for years.",
    ]
    scores = lexical.bm25_scores("statins reduce mortality", pool)
    assert scores[1] > scores[0] > 0 and scores[2] == 0
    assert lexical.words("Increased increases") == ["increas", "increas"]
    assert lexical.coverage("statins reduce mortality", pool[1]) == 1.0
    assert lexical.bm25_scores("the of", pool) == [0.0, 0.0, 0.0]


def test_roles_tell_an_aim_from_a_finding() -> None:
    assert roles.role("OBJECTIVE To assess statins in older adults.") == -1
    assert roles.role("To determine whether statins lower mortality, we ...") == -1
    assert roles.role("We found that statins lowered mortality (p < 0.01).") == 1
    assert roles.role("CONCLUSIONS Statins help.") == 1
    assert roles.role("Statins are widely prescribed.") == 0


def candidates(texts: list[str], works: list[str]) -> list[Candidate]:
    ranks: dict[str, int] = {}
    out = []
    for i, (text, work) in enumerate(zip(texts, works, strict=True)):
        ranks.setdefault(work, len(ranks) + 1)
        out.append(Candidate(work, i, i * 100, i * 100 + len(text), text, ranks[work], 1.0))
    return out


def test_rank_fuses_the_legs_and_exposes_each_rank() -> None:
    texts = [
        "OBJECTIVE To study statins and mortality.",
        "Statins reduced mortality by a fifth.",
        "Coral reefs bleach in warm water.",
    ]
    pool = candidates(texts, ["a", "a", "b"])
    cosines = np.array([0.6, 0.55, 0.05])
    ranked = rank("statins reduce mortality", pool, cosines)
    assert ranked[0].candidate.text == texts[1]  # the finding beats the aim
    by_text = {r.candidate.text: r for r in ranked}
    assert by_text[texts[0]].vector_rank == 1 and by_text[texts[1]].vector_rank == 2
    assert by_text[texts[2]].fts_rank is None  # no word shared
    assert {by_text[texts[0]].fts_rank, by_text[texts[1]].fts_rank} == {1, 2}
    assert rank("anything", [], np.zeros(0)) == []


def test_collapse_keeps_the_first_and_lists_the_rest() -> None:
    items = [
        "Statin therapy reduced mortality by 20%.",
        "Coral reefs bleach.",
        "statin therapy  reduced mortality by 20 %",
        "Statin therapy reduced mortality by 40% in men.",
    ]
    groups = collapse(items, lambda t: t)
    assert [(first, others) for first, others in groups] == [
        (items[0], [items[2]]),
        (items[1], []),
        (items[3], []),
    ]
