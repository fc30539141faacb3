"""pdf_metadata: which title, authors, year and identifiers a PDF is trusted to give."""

from __future__ import annotations

import pytest

from prioris.ingest.pdf_metadata import find_own_identifiers, find_year, real_title, split_authors


@pytest.mark.parametrize(
    "title",
    [
        "",
        "   ",
        "Microsoft Word - thesis.docx",
        "untitled",
        "paper_final_v3",
        "main",
        "C:\\papers\\x.pdf",
        "slides.pdf",
        "Title",
    ],
)
def test_placeholder_titles_are_rejected(title: str) -> None:
    assert real_title(title) is None


def test_real_titles_are_kept_with_whitespace_normalised() -> None:
    assert real_title("  Attention Is\nAll You Need ") == "Attention Is All You Need"
    assert real_title("Input/Output Scheduling for Disks") == "Input/Output Scheduling for Disks"


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ("Ada Lovelace; Alan Turing", ["Ada Lovelace", "Alan Turing"]),
        ("Lovelace, Ada; Turing, Alan", ["Lovelace, Ada", "Turing, Alan"]),
        ("A. Gal, B. Eich and M. Shaver", ["A. Gal", "B. Eich", "M. Shaver"]),
        ("Administrator", []),
        ("", []),
    ],
)
def test_authors_are_split(raw: str, names: list[str]) -> None:
    assert split_authors(raw) == names


def test_year_from_creation_date_else_page_one() -> None:
    assert find_year("D:20090401163925-07'00'", "") == 2009
    assert find_year("", "Proceedings 1998, pages 1-9 and 2003") == 1998
    assert find_year("D:00000101", "no year here") is None


def test_one_identifier_per_kind_from_the_most_trusted_source() -> None:
    metadata = "doi:10.1000/OWN.1"
    page1 = (
        "Our method beats prior work (doi:10.2000/other.2), see arXiv:2301.00001.\n"
        "Available as arXiv:2401.01234v2"
    )
    assert find_own_identifiers([metadata, page1]) == ["doi:10.1000/own.1", "arxiv:2301.00001"]
    assert find_own_identifiers(["", "stamp arXiv:2501.10120v1 [cs.IR]", page1]) == [
        "doi:10.2000/other.2",
        "arxiv:2501.10120v1",
    ]


def test_references_and_cited_preprints_are_not_the_papers_own() -> None:
    page = (
        "Intro text. As shown by Smith et al., arXiv preprint arXiv:2305.11111, it works.\n\n"
        "## References\n\nJones. 2020. doi:10.3000/cited.3"
    )
    assert find_own_identifiers([page]) == []


def test_title_from_ocr_text_takes_a_title_like_first_line() -> None:
    from prioris.ingest.pdf_metadata import title_from_ocr_text

    assert (
        title_from_ocr_text(
            "The LinnSequencer 32 Track MIDI Sequence Recorder\n\nThe Linn is a tool."
        )
        == "The LinnSequencer 32 Track MIDI Sequence Recorder"
    )
    assert title_from_ocr_text("Vol. 12, No. 3 (1987), pp. 1-20\nCoral reefs in heat") == (
        "Coral reefs in heat"
    )
    # OCR debris, then a sentence running on: no title (the file name stays)
    assert (
        title_from_ocr_text("el y p\n\n; Wer went tip-toeing along a path,\nthe branches") is None
    )
    assert title_from_ocr_text("") is None
