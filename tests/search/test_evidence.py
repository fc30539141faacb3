"""Evidence and citation checks through the Library, on both engines: every sentence is a
verbatim span of the stored text at the offsets it names, back matter stays out unless
asked, filters narrow, duplicates collapse with every work kept, PDF sentences name the
page they are printed on, and a check refuses a work that does not say the claim."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.library import Library

from pdf_factory import make_text_pdf

RECORDS = [
    {
        "_id": "statins",
        "title": "Statins in older adults",
        "authors": ["Ana Ruiz"],
        "year": 2019,
        "text": (
            "OBJECTIVE To determine whether statins change mortality in older adults. "
            "We followed 4,000 patients for five years. "
            "Statin therapy reduced cardiovascular mortality by 20% in adults over 70. "
            "Muscle pain was reported by few patients."
        ),
    },
    {
        "_id": "reefs",
        "title": "Coral reef bleaching",
        "authors": ["Ben Okafor"],
        "year": 2021,
        "text": (
            "Ocean warming causes coral bleaching in shallow reefs. "
            "Symbiotic algae leave the coral tissue when water is too warm. "
            "Reef recovery depends on larval supply after the heat wave."
        ),
    },
    {
        "_id": "review",
        "title": "A review of lipid lowering",
        "authors": ["Chen Wei"],
        "year": 2022,
        "text": (
            "Lipid lowering drugs are common in cardiology. "
            "Statin therapy reduced cardiovascular mortality by 20% in adults over 70. "
            "Diet changes had smaller effects on cholesterol levels."
        ),
    },
]

CLAIM = "Statins reduce cardiovascular mortality in adults over 70"


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


@pytest.fixture
def lib(settings: Any, library_factory: Any) -> Library:
    return library_factory(settings)


@pytest.fixture
def library_factory() -> Any:
    from prioris.embedding.fake import FakeEmbedder

    opened: list[Library] = []

    def open_one(settings: Any) -> Library:
        library = Library.open(settings, embedder=FakeEmbedder())
        library.import_records(RECORDS)
        opened.append(library)
        return library

    yield open_one
    for library in opened:
        library.close()


def stored_text(library: Library, work_id: str) -> str:
    return str(library.show(work_id)["markdown"])


def test_every_sentence_is_a_verbatim_span_at_its_offsets(lib: Library) -> None:
    found = lib.evidence(CLAIM, k=5)
    assert found["query"] == CLAIM
    items = found["evidence"]
    assert items, "the claim is stated in two works"
    for item in items:
        text = stored_text(lib, item["work_id"])
        assert text[item["start"] : item["end"]] == item["sentence"]
        assert item["sentence"] in item["context"]
        assert item["vector_rank"] >= 1
        assert set(item) >= {"citekey", "title", "year", "page", "section", "score", "fts_rank"}
    best = items[0]
    assert best["sentence"].startswith("Statin therapy reduced cardiovascular mortality")
    assert best["page"] is None  # a record's text has no printed pages


def test_the_same_sentence_in_two_works_comes_once_with_both(lib: Library) -> None:
    items = lib.evidence(CLAIM, k=5)["evidence"]
    same = [i for i in items if i["sentence"].startswith("Statin therapy reduced")]
    assert len(same) == 1
    works = {same[0]["work_id"], *(o["work_id"] for o in same[0]["also"])}
    assert works == {"statins", "review"}
    other = same[0]["also"][0]
    text = stored_text(lib, other["work_id"])
    assert text[other["start"] : other["end"]].startswith("Statin therapy reduced")


def test_sentence_vectors_are_kept_between_calls(lib: Library) -> None:
    embedder = lib.searcher.embedder
    seen: list[int] = []
    original = embedder.embed_passages

    def counting(texts: Any) -> Any:
        seen.append(len(texts))
        return original(texts)

    embedder.embed_passages = counting
    first = lib.evidence(CLAIM, k=3)
    assert sum(seen) > 0
    seen.clear()
    assert lib.evidence(CLAIM, k=3) == first  # the same answer, nothing embedded again
    assert sum(seen) == 0


def test_filters_narrow_the_works_quoted(lib: Library) -> None:
    items = lib.evidence(CLAIM, k=5, ids=["reefs"])["evidence"]
    assert {i["work_id"] for i in items} == {"reefs"}
    items = lib.evidence(CLAIM, k=5, from_year=2022)["evidence"]
    assert {i["work_id"] for i in items} == {"review"}


def test_bad_requests_are_clear(lib: Library) -> None:
    with pytest.raises(InvalidRequestError):
        lib.evidence("   ")
    with pytest.raises(InvalidRequestError):
        lib.evidence(CLAIM, k=0)
    with pytest.raises(InvalidRequestError):
        lib.evidence(CLAIM, k=51)
    with pytest.raises(NotFoundError):
        lib.cite_check(CLAIM, "no-such-work")


def test_cite_check_finds_support_and_refuses_an_unrelated_work(lib: Library) -> None:
    yes = lib.cite_check(CLAIM, "statins")
    assert yes["found"] is True
    assert yes["sentence"].startswith("Statin therapy reduced")
    assert stored_text(lib, "statins")[yes["start"] : yes["end"]] == yes["sentence"]
    assert yes["citekey"] == "ruiz2019statins"
    no = lib.cite_check(CLAIM, "reefs")
    assert no["found"] is False
    assert no["sentence"]  # the best it has, for the agent to see why
    # by the citation key export writes (ids, aliases and DOIs resolve as everywhere)
    assert lib.cite_check(CLAIM, "ruiz2019statins")["work_id"] == "statins"
    with pytest.raises(NotFoundError):
        lib.cite_check(CLAIM, "ruiz2018statins")


def test_search_hits_carry_each_legs_score(lib: Library) -> None:
    hits = lib.search(CLAIM, mode="hybrid", k=3).hits
    assert hits
    for hit in hits:
        assert set(hit.scores) == {"fts", "vector"}
        for leg in ("fts", "vector"):
            assert (hit.scores[leg] is None) == (hit.ranks[leg] is None)
    top = hits[0]
    assert top.scores["vector"] is not None and -1.0 <= top.scores["vector"] <= 1.0
    assert lib.search(CLAIM, mode="fts", k=3).hits[0].scores.keys() == {"fts"}


# -- real PDFs: pages and back matter (SQLite is enough: the engines share this code) --------
BODY_1 = (
    "Glacier retreat was measured with drone photogrammetry over three summers. "
    "The tongue lost forty metres of length each year."
)
BODY_2 = (
    "Meltwater discharge doubled during the warmest weeks of August. "
    "Sediment plumes reached the lake within two days of each storm."
)
BACK = (
    "Acknowledgements\n\nWe thank the glacier guides for the meltwater discharge samples "
    "taken during the warmest weeks of August."
)


def normalised(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def test_pdf_sentences_name_the_page_they_are_printed_on(tmp_path: Path, library: Any) -> None:
    pdf = make_text_pdf(tmp_path / "glacier.pdf", "Glacier retreat study", [BODY_1, BODY_2])
    library.ingest_paths([pdf])
    items = library.evidence("meltwater discharge doubled in August", k=3)["evidence"]
    assert items[0]["sentence"].startswith("Meltwater discharge doubled")
    with pymupdf.open(pdf) as doc:
        printed = [normalised(page.get_text()) for page in doc]
    for item in items:
        assert item["page"] in (1, 2)
        assert normalised(item["sentence"]) in printed[item["page"] - 1]


def test_back_matter_is_quoted_only_when_asked(tmp_path: Path, library: Any) -> None:
    body = BODY_2 + "\n\n" + BACK
    pdf = make_text_pdf(tmp_path / "thanks.pdf", "Meltwater of an alpine glacier", [body])
    library.ingest_paths([pdf])
    chunks = library.search("glacier guides", mode="fts", k=10, chunks=True).hits
    if not any(h.section == "acknowledgements" for h in chunks):
        pytest.skip("the generated PDF's acknowledgements were not labelled as such")
    claim = "the glacier guides took meltwater discharge samples"
    plain = library.evidence(claim, k=10)["evidence"]
    assert all(i["section"] != "acknowledgements" for i in plain)
    asked = library.evidence(claim, k=10, back_matter=True)["evidence"]
    assert any(i["section"] == "acknowledgements" for i in asked)
