"""References and snowball candidates that are papers (issue 39), on both engines.

A reference entry whose parsed "title" is an author list is read again (the names are its
authors, the next sentence its title); one whose title is a citation string or a venue's
name has no title. What shows a reference (``references``, the offline snowball) shows
such an entry by its raw text with ``title_parsed`` False, never as a title, also for
references stored before the parser knew better; and a preprint and its published version
are one candidate.
"""

from __future__ import annotations

import pytest

from prioris.discovery.snowball_candidates import from_reference
from prioris.discovery.snowball_dedupe import CandidatePool
from prioris.ingest.reference_entry import parse_entry
from prioris.ingest.reference_title import title_problem
from prioris.models import Reference
from prioris.storage import references as reference_store


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Smith J, Lee KA, Chen W", "names"),
        ("A. Smith, B. Lee and C. Chen", "names"),
        ("Smith, J., Lee, K.", "names"),
        ("Y. LeCun, Y. Bengio, G. Hinton", "names"),
        ("Okafor et al.", "names"),
        ("JCAP12(2004)012, [ ]", "citation"),
        ("Nucl. Phys. B 234 (1984) 269", "citation"),
        ("Proceedings of the 2019 IEEE Conference on Robotics", "venue"),
        ("Deep Residual Learning for Image Recognition", None),
        ("Attention Is All You Need", None),
        ("Football, Soccer, and Statistics", None),
        ("A* search in 3D: the 2019 edition", None),
    ],
)
def test_what_is_not_a_title(text: str, problem: str | None) -> None:
    assert title_problem(text) == problem


def test_an_author_list_parsed_as_the_title_is_read_again() -> None:
    ref = parse_entry(
        "Okafor N, Lee KA, Chen W. Reef recovery after heatwaves. Reefs. 2019;3:1-5.", 1
    )
    assert ref.title == "Reef recovery after heatwaves"
    assert ref.authors[0] == "Okafor N"
    broken = parse_entry("S. Weinberg, JCAP12(2004)012, [ ]", 2)
    assert broken.title is None  # shown by its raw text


REFS = [
    Reference(1, "Okafor N, Lee KA. Reef recovery. 2019", ["Okafor N"], "Okafor N, Lee KA", 2019),
    Reference(2, "S. Weinberg, JCAP12(2004)012, [ ]", [], "JCAP12(2004)012, [ ]", 2004),
    Reference(
        3, "Baker A. Symbiont shuffling. 2008", ["Baker A"], "Symbiont shuffling in corals", 2008
    ),
]


def test_stored_references_that_are_no_titles_are_shown_as_raw_text(library) -> None:  # type: ignore[no-untyped-def]
    library.import_records([{"id": "doi:10.5555/seed", "title": "Seed", "text": "Seed text."}])
    work_id = library.resolve_work_id("doi:10.5555/seed")
    with library.lock:
        library.conn.execute("BEGIN IMMEDIATE")
        reference_store.replace_references(library.conn, work_id, REFS)
        library.conn.execute("COMMIT")
    shown = library.references(work_id)
    assert [r["title_parsed"] for r in shown] == [False, False, True]
    assert [r["title"] for r in shown] == [None, None, "Symbiont shuffling in corals"]
    answer = library.snowball([work_id], direction="backward", offline=True)
    by_raw = {c["title"]: c for c in answer["candidates"]}
    assert by_raw["Symbiont shuffling in corals"]["title_parsed"] is True
    raw = [c for c in answer["candidates"] if not c["title_parsed"]]
    assert {c["title"] for c in raw} == {REFS[0].raw, REFS[1].raw}
    for cand in answer["candidates"]:
        if cand["title_parsed"]:
            assert title_problem(cand["title"]) is None


def _ref(**fields: object) -> dict[str, object]:
    return {"raw": "raw", **fields}


def test_a_preprint_and_its_published_version_are_one_candidate() -> None:
    pool = CandidatePool()
    preprint = from_reference(
        _ref(
            title="Reef recovery after repeated marine heatwaves",
            authors=["N. Okafor", "J. Alvarez"],
            year=2018,
            doi="10.48550/arXiv.1806.01234",
        ),
        "s1",
    )
    published = from_reference(
        _ref(
            title="Reef recovery after repeated marine heatwaves: a six-year survey",
            authors=["Okafor, N.", "Alvarez, J."],
            year=2019,
            doi="10.5555/reef.2019.7",
        ),
        "s2",
    )
    versions = [
        from_reference(_ref(title="Coral bleaching thresholds", arxiv="2001.00001v1"), "s1"),
        from_reference(_ref(title="Coral bleaching thresholds", arxiv="2001.00001v3"), "s2"),
    ]
    other = from_reference(
        _ref(title="Reef recovery after repeated cyclones", authors=["B. Other"], year=2019),
        "s3",
    )
    renamed = [  # the published title drops the preprint's leading name
        from_reference(
            _ref(
                title="Reefwatch: Augmenting large-language models with reef survey tools",
                authors=["Ana M Bran", "Sam Cox"],
                year=2023,
                arxiv="2304.05376",
            ),
            "s1",
        ),
        from_reference(
            _ref(
                title="Augmenting large language models with reef survey tools",
                authors=["Ana M. Bran", "Sam Cox"],
                year=2024,
            ),
            "s1",
        ),
    ]
    for cand in (preprint, published, *versions, other, *renamed):
        assert cand is not None
        pool.add(cand)
    pool.merge_similar()
    titles = sorted((c.title, tuple(sorted(c.cited_by_seeds))) for c in pool.candidates())
    assert len(pool) == 4, titles
    merged = next(c for c in pool.candidates() if "s2" in c.cited_by_seeds and "doi" in c.ids)
    assert merged.cited_by_seeds == {"s1", "s2"} and merged.ids["arxiv"] == "1806.01234"
