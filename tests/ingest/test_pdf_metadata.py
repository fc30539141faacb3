"""pdf_metadata: which title, authors, year and identifiers a PDF is trusted to give."""

from __future__ import annotations

import pytest

from prioris.ingest.header.metadata import real_title, split_authors
from prioris.ingest.header.names import MARK, looks_like_name, names_in_byline
from prioris.ingest.header.own_identifiers import find_own_identifiers
from prioris.ingest.header.years import arxiv_year, printed_year


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
        ("Nuala E. Tully {et al.}", ["Nuala E. Tully"]),
        (
            "Hector Garcia-Molina (Stanford Univ.), Jan Pedersen",
            ["Hector Garcia-Molina", "Jan Pedersen"],
        ),
        ("Administrator", []),
        ("ibm", []),
        ("", []),
    ],
)
def test_info_dictionary_authors_are_split_and_cleaned(raw: str, names: list[str]) -> None:
    assert split_authors(raw) == names


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        (
            "Nuala E. Tully, Karen M. Morgan, Helen M. Burke, and Hannah M. McGee",
            ["Nuala E. Tully", "Karen M. Morgan", "Helen M. Burke", "Hannah M. McGee"],
        ),
        (f"Rui Wang{MARK} and Günter Neumann{MARK}", ["Rui Wang", "Günter Neumann"]),
        (f"Yichen He{MARK}{MARK}{MARK}Weinan E{MARK}", ["Yichen He", "Weinan E"]),
        # an honorific and a degree go, a suffix is part of the printed name
        ("Dr. Jane Smith, PhD & John van der Berg Jr.", ["Jane Smith", "John van der Berg Jr."]),
        ("Zejiang Shen1 ( ), Ruochen Zhang2", ["Zejiang Shen", "Ruochen Zhang"]),
        ("Mary J. O’Connell∗†", ["Mary J. O’Connell"]),
        ("The ATLAS Collaboration", ["The ATLAS Collaboration"]),
    ],
)
def test_bylines_become_full_names_in_printed_order(byline: str, names: list[str]) -> None:
    assert names_in_byline(byline) == names


@pytest.mark.parametrize(
    "line",
    [
        "Department of Computer Science, Stanford University",
        "Google Brain",
        "New Zealand",
        "In this paper we consider online scheduling problems",
        "Received 9 November 2010",
        "Abstract",
        "Smith J.",
    ],
)
def test_lines_that_are_not_bylines(line: str) -> None:
    assert names_in_byline(line) is None


def test_name_shapes() -> None:
    assert looks_like_name("Zoltán Gyöngyi") and looks_like_name("Weinan E")
    assert looks_like_name("Łukasz Kaiser") and looks_like_name("Thomas A. Walsh")
    assert not looks_like_name("Kaiser") and not looks_like_name("de la Cruz")


def test_year_only_from_places_a_paper_prints_its_date() -> None:
    assert printed_year(["Copyright © 2010 Nuala E. Tully et al."]) == (2010, 1)
    assert printed_year(["PLDI’09, June 15–20, 2009, Dublin, Ireland."]) == (2009, 2)
    assert printed_year(["31st Conference on Neural Information Processing Systems (NIPS 2017)"])
    assert printed_year(["Proceedings of the 30th VLDB Conference, Toronto, Canada, 2004"]) == (
        2004,
        2,
    )
    assert printed_year(["Agyeman-Duah et al. BMC Health Services Research 2014, 14:1"]) == (
        2014,
        2,
    )
    # the publication beats the review dates; the arXiv stamp's version date is no year
    assert printed_year(["Received 25 March 2016 Accepted 9 May 2017 Published 5 June 2017"]) == (
        2017,
        1,
    )
    assert printed_year(["arXiv:1706.03762v7  [cs.CL]  2 Aug 2023"]) is None
    assert printed_year(["heatwaves in 2016 bleached much of the reef", "CA 94720, USA"]) is None
    assert printed_year(["Copyright 2099"]) is None  # the future is a typo, not a year
    assert printed_year(["Supported by the COVID 2019 response fund"]) is None


def test_arxiv_ids_carry_their_submission_year() -> None:
    assert arxiv_year(["doi:10.1/x", "arxiv:2103.15348v2"]) == 2021
    assert arxiv_year(["arxiv:0908.0054"]) == 2009
    assert arxiv_year(["arxiv:hep-th/9901001"]) == 1999
    assert arxiv_year(["doi:10.1/x"]) is None


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
    from prioris.ingest.header.metadata import title_from_ocr_text

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


def test_ocr_text_header_gives_title_byline_affiliation_and_abstract() -> None:
    from prioris.ingest.header.text import header_from_text

    header = header_from_text(
        "Coral Reef Recovery after Heatwaves\n\nNgozi Okafor, Kenji Tanaka and Ana Ferreira\n\n"
        "University of Lagos, Nigeria\n\nAbstract\n\nWe measured recovery at forty sites.\n\n"
        "1 Introduction\n\nReefs in 2016."
    )
    assert header.title == "Coral Reef Recovery after Heatwaves"
    assert header.authors == ["Ngozi Okafor", "Kenji Tanaka", "Ana Ferreira"]
    assert header.affiliations == ["University of Lagos, Nigeria"]
    assert header.abstract == "We measured recovery at forty sites."


def test_scanned_page_year_from_its_footnote_never_from_its_abstract() -> None:
    from prioris.ingest.header.metadata import pdf_metadata

    def year_of(*paragraphs: str) -> int | None:
        text = "\n\n".join(paragraphs)
        return pdf_metadata(
            info={"creationDate": "D:20230101"},
            xmp="",
            header_pages=[None],
            body_size=10.0,
            page_texts=[text],
        ).year

    head = ("Information Synthesis for Answer Validation", "Rui Wang! and Giinter Neumann?")
    abstract = "Abstract. This report is about our participation in the exercise (AVE2008). " * 4
    assert year_of(*head, abstract, "1 Introduction", "Body text. " * 40) is None
    footnote = "Proceedings of the 30th VLDB Conference, Toronto, Canada, 2004"
    assert year_of(*head, abstract, "Body text. " * 40, footnote) == 2004
    stamp = "1706.03762v7 [cs.CL] 2 Aug 2023"  # an OCR'd arXiv stamp without its prefix
    assert year_of(stamp, *head, abstract) == 2017
