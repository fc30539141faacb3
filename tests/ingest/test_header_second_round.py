"""Headers, second round (issue 21): the PDF's own metadata checked against page 1, names
cleaned of what a byline prints after them, printed years and venue lines.

Each rule is tested on lines built here; the goals are checked on the real papers of
../shared/fixtures/pdfmeta (skipped when that folder is absent)."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from prioris.ingest.header.embedded import (
    embedded_record,
    good_title,
    names_on_page,
    read_embedded,
    title_on_page,
)
from prioris.ingest.header.header import parse_header
from prioris.ingest.header.layout import HeaderLine, HeaderPage, Span
from prioris.ingest.header.metadata import choose_authors, choose_title
from prioris.ingest.header.names import looks_like_name, names_in_byline, strip_trailing
from prioris.ingest.header.venue import venue_line
from prioris.ingest.header.years import printed_year
from prioris.ingest.pdf.reader import extract_pdf

from conftest import shared_path


def _line(
    text: str, y: float, size: float = 10.0, *, x: float = 100.0, block: int = 1, bold: bool = False
) -> HeaderLine:
    """One line of a page; ``^`` before a character makes it a superscript marker."""
    spans = []
    left = x
    for index, part in enumerate(text.split("^")):
        if index and part:
            spans.append(Span(part[0], size * 0.7, bold, True, x, x + 4))
            x += 4
            part = part[1:]
        if part:
            spans.append(Span(part, size, bold, False, x, x + 5.0 * len(part)))
            x += 5.0 * len(part)
    return HeaderLine(tuple(spans), left, y, x, y + size, True, block)


def _page(*lines: HeaderLine) -> HeaderPage:
    return HeaderPage(list(lines), width=612, height=792)


XMP = """<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>
<rdf:Description dc:format="application/pdf">
 <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Sports analytics &#x2014;&#x00A0;Evaluation
  of basketball players</rdf:li></rdf:Alt></dc:title>
 <dc:creator><rdf:Seq><rdf:li>Vangelis Sarlis</rdf:li><rdf:li>Christos Tjortjis</rdf:li>
 </rdf:Seq></dc:creator>
 <prism:publicationName>Information Systems</prism:publicationName>
 <prism:volume>93</prism:volume><prism:number>7</prism:number>
 <prism:startingPage>101562</prism:startingPage>
 <prism:doi>10.1016/j.is.2020.101562</prism:doi>
 <prism:coverDisplayDate>November 2020</prism:coverDisplayDate>
</rdf:Description></rdf:RDF></x:xmpmeta>"""


def _journal_page() -> HeaderPage:
    """An Elsevier-like first page: the journal's name set larger than the title."""
    return _page(
        _line("Information Systems 93 (2020) 101562", 40, 8, block=0),
        _line("Information Systems", 70, 20, block=1),
        _line("Sports analytics — Evaluation of", 120, 16, block=2),
        _line("basketball players", 138, 16, block=2),
        _line("Vangelis Sarlis^a, Christos Tjortjis^b", 170, 11, block=3),
        _line("Keywords: basketball players, sports analytics", 200, 9, block=4),
    )


# -- embedded metadata ---------------------------------------------------------------------
def test_xmp_fields_are_read_item_by_item_with_entities_decoded() -> None:
    fields = read_embedded({"title": "Microsoft Word - draft.docx", "author": "admin"}, XMP)
    assert fields.titles[0] == "Sports analytics — Evaluation of basketball players"
    assert fields.creators[0] == ["Vangelis Sarlis", "Christos Tjortjis"]
    assert (fields.venue, fields.volume, fields.issue) == ("Information Systems", "93", "7")
    assert fields.pages == "101562" and fields.doi == "10.1016/j.is.2020.101562"


@pytest.mark.parametrize(
    "title",
    [
        "Microsoft Word - AVE2008 Report.doc",
        "untitled",
        "418578_1_En_BookFrontmatter 1..11",
        "6489122611071476 1..10",
        "paper.dvi",
        "google.PDF",
        "doi:10.1080/17461391.2011.606834",
        "Front Matter",
        "Bigtable",  # one word: a system's name, not the paper's title
    ],
)
def test_junk_embedded_titles_are_not_titles(title: str) -> None:
    assert good_title(title) is None


def test_an_embedded_title_must_be_a_whole_run_of_lines_of_page_one() -> None:
    page = _journal_page()
    assert title_on_page("Sports analytics - Evaluation of Basketball Players", page, "")
    # printed, but only inside a keyword line: no title
    assert not title_on_page("basketball players, sports", page, "")
    assert not title_on_page("A Different Paper Altogether", page, "")


def test_embedded_creators_must_all_be_printed_full_names() -> None:
    words = set("vangelis sarlis christos tjortjis information systems".split())
    assert names_on_page(["Vangelis Sarlis", "Christos Tjortjis"], words)
    assert not names_on_page(["Vangelis Sarlis", "Anna Other"], words)  # one not printed
    assert not names_on_page(["Administrator"], words | {"administrator"})
    assert not names_on_page(["Sarlis"], words)  # a login, not a full name


def test_embedded_record_keeps_only_what_page_one_agrees_with() -> None:
    record = embedded_record({"author": "mita@ASUS-A2"}, XMP, _journal_page(), "")
    assert record.title == "Sports analytics — Evaluation of basketball players"
    assert record.authors == ["Vangelis Sarlis", "Christos Tjortjis"]
    assert record.year == 2020  # the cover date's year, printed on page 1
    assert record.venue == "Information Systems" and record.volume == "93"
    assert record.as_record()["doi"] == "10.1016/j.is.2020.101562"
    other = embedded_record({}, XMP, _page(_line("Something Else Entirely", 60, 18)), "")
    assert other.title is None and other.authors == [] and other.year is None


def test_a_trusted_title_beats_the_journal_name_taken_as_title() -> None:
    embedded = "Sports analytics — Evaluation of basketball players"
    assert choose_title("Information Systems", embedded) == embedded
    assert choose_title(None, embedded) == embedded
    # agreeing (or cut short inside the printed one): the printed form stays
    assert choose_title("Sports Analytics - Evaluation of Basketball Players", embedded) == (
        "Sports Analytics - Evaluation of Basketball Players"
    )
    full = "Bigtable: A Distributed Storage System for Structured Data"
    assert choose_title(full, "Bigtable: A Distributed Storage System") == full


def test_trusted_creators_correct_the_byline() -> None:
    printed = ["Zoltán Gyöngyi", "Hector Garcia-Molina", "Jan Pedersen"]
    embedded = ["Zoltan Gyongyi", "Hector Garcia-Molina", "Jan Pedersen"]
    assert choose_authors(printed, embedded) == printed  # the printed accents are kept
    assert choose_authors(["Football Outcomes"], ["Qingrong Zou", "Kai Song"]) == [
        "Qingrong Zou",
        "Kai Song",
    ]
    # the first author only: it repairs the name it is part of, the rest stays
    assert choose_authors(["Aryan Mittal", "Divya Daryanani Students"], ["Divya Daryanani"]) == [
        "Aryan Mittal",
        "Divya Daryanani",
    ]
    assert choose_authors(["FAY CHANG", "WILSON C. HSIEH"], []) == ["Fay Chang", "Wilson C. Hsieh"]


def test_a_journal_name_set_large_gives_way_to_the_xmp_title_in_a_real_pdf() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Journal of Statistical Software", fontsize=22)
    page.insert_text((72, 130), "Spectral Methods for Reef Acoustics", fontsize=16)
    page.insert_text((72, 160), "Ngozi Okafor", fontsize=11)
    page.insert_text((72, 175), "University of Lagos", fontsize=9)
    page.insert_text((72, 220), "Abstract", fontsize=11)
    for row in range(30):
        page.insert_text(
            (72, 240 + 14 * row), "We listened to the reefs at night. " * 3, fontsize=10
        )
    doc.set_metadata({"title": "Spectral Methods for Reef Acoustics", "author": "Ngozi Okafor"})
    meta = extract_pdf(doc.tobytes(), ocr_mode="never").metadata
    assert meta.title == "Spectral Methods for Reef Acoustics"
    assert meta.authors == ["Ngozi Okafor"]
    assert meta.pdf_metadata() == {
        "title": "Spectral Methods for Reef Acoustics",
        "authors": ["Ngozi Okafor"],
    }


# -- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("Satoshi Nakamoto www.bitcoin.org", "Satoshi Nakamoto"),
        ("Satoshi Nakamoto satoshin@gmx.com", "Satoshi Nakamoto"),
        ("Robert E. Gruber Google", "Robert E. Gruber"),
        ("Sophia Papadopoulou National", "Sophia Papadopoulou"),
        ("Divya Daryanani Students", "Divya Daryanani"),
        ("Josephine Nana Afrakoma Agyeman-Duah", "Josephine Nana Afrakoma Agyeman-Duah"),
    ],
)
def test_what_is_printed_after_a_name_is_cut_off(raw: str, name: str) -> None:
    assert strip_trailing(raw) == name


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        ("Ada Lovelace and Alan Turing", ["Ada Lovelace", "Alan Turing"]),
        ("Ada Lovelace, Alan Turing", ["Ada Lovelace", "Alan Turing"]),
        ("By Darshika Shah*, Aryan Mittal", ["Darshika Shah", "Aryan Mittal"]),
        (
            "Humberto Stein Shiromoto, Vincent Andrieu, and",
            ["Humberto Stein Shiromoto", "Vincent Andrieu"],
        ),
        (
            "Stylianos Kampakis, University College London, s.kampakis@gmail.com",
            ["Stylianos Kampakis"],
        ),
        ("Robert E. Gruber Google, Inc.", ["Robert E. Gruber"]),
    ],
)
def test_bylines_split_into_clean_names(byline: str, names: list[str]) -> None:
    assert names_in_byline(byline) == names


@pytest.mark.parametrize("place", ["Redmond WA", "Redmond WA USA", "Beijing China", "New Haven"])
def test_places_are_not_names(place: str) -> None:
    assert not looks_like_name(place)
    assert looks_like_name("ANDREW NG")  # a name in capitals may end in two capitals


def test_authors_kept_across_a_line_break_small_capitals_and_an_and_row() -> None:
    page = _page(
        _line("Impossibility of Distributed Consensus", 50, 16, block=0),
        _line("MICHAEL", 100, 9, x=60, block=1),
        _line("J. FISCHER", 100, 9, x=100, block=1),
        _line("Yale University, New Haven, Connecticut", 115, 8, block=2),
        _line("NANCY", 130, 9, x=60, block=3),
        _line("A. LYNCH", 130, 9, x=90, block=3),
        _line("AND", 145, 9, x=60, block=4),
        _line("MICHAEL", 160, 9, x=60, block=5),
        _line("S. PATERSON", 160, 9, x=100, block=5),
        _line("Abstract. The consensus problem involves processes.", 190, 8, block=6),
    )
    header = parse_header(page, body_size=8.0)
    assert header.authors == ["MICHAEL J. FISCHER", "NANCY A. LYNCH", "MICHAEL S. PATERSON"]
    wrapped = _page(
        _line("A Region-Dependent Gain Condition for Stability", 60, 20, block=0),
        _line("Humberto Stein Shiromoto^1, Vincent Andrieu^2, and", 100, 14, block=1),
        _line("Christophe Prieur^3", 118, 14, block=2),
        _line("Abstract", 160, 11, block=3),
    )
    assert parse_header(wrapped, body_size=10.0).authors == [
        "Humberto Stein Shiromoto",
        "Vincent Andrieu",
        "Christophe Prieur",
    ]


def test_a_given_name_left_at_a_row_end_joins_its_family_name() -> None:
    page = _page(
        _line("Locally Optimal Controllers and Inverse Optimal Controllers", 60, 20, block=0),
        _line("Sofiane Benachour^1, Humberto Stein Shiromoto^2, and Vincent", 100, 14, block=1),
        _line("Andrieu^1", 118, 14, x=250, block=2),
        _line("Abstract", 160, 11, block=3),
    )
    assert parse_header(page, body_size=10.0).authors == [
        "Sofiane Benachour",
        "Humberto Stein Shiromoto",
        "Vincent Andrieu",
    ]


def test_a_ring_marker_and_a_postcode_state_are_no_name_and_no_year() -> None:
    assert names_in_byline("Humberto Stein Shiromoto˚, Petro Feketa:, Sergey Dashkovskiy;") == [
        "Humberto Stein Shiromoto",
        "Petro Feketa",
        "Sergey Dashkovskiy",
    ]
    assert printed_year(["The University of Sydney, NSW 2006, Australia"]) is None


def test_a_lower_case_logo_or_a_book_series_is_no_title() -> None:
    logo = _page(
        _line("applied", 50, 19, bold=True, block=0),
        _line("sciences", 69, 19, bold=True, block=0),
        _line("A Bayesian In-Play Prediction Model for Football", 115, 17.9, block=1),
        _line("Qingrong Zou^1, Kai Song^2 and Jian Shi^3", 165, 10, block=2),
        _line("Abstract: Point process models have made a contribution.", 200, 10, block=3),
    )
    header = parse_header(logo, body_size=10.0)
    assert header.title == "A Bayesian In-Play Prediction Model for Football"
    assert header.authors == ["Qingrong Zou", "Kai Song", "Jian Shi"]
    series = _page(_line("Springer Texts in Statistics", 60, 20, block=0))
    assert parse_header(series, body_size=10.0).title is None
    masthead = _page(
        _line("Journal of Statistical Software", 50, 20, block=0),
        _line("Spectral Methods for Reef Acoustics", 100, 16, block=1),
        _line("Ngozi Okafor^1 and Kenji Tanaka^2", 130, 11, block=2),
        _line("Abstract", 160, 11, block=3),
    )
    assert parse_header(masthead, body_size=10.0).title == "Spectral Methods for Reef Acoustics"


# -- years ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("notes", "year"),
    [
        (
            [
                "To cite this article: S. M. Dobson & J. A. Goddard (1998) Performance and",
                "Published online: 04 Oct 2010.",
            ],
            1998,
        ),
        (["Information Systems 93 (2020) 101562", "Received 3 May 2019"], 2020),
        (["Int J Data Sci Anal (2018) 5:213–222", "Published online: 17 Nov 2017"], 2018),
        (["ACM Trans. Comput. Syst. 2008.26:1-26"], 2008),
        (["Received: 19 March 2019; Accepted: 20 April 2020; Published: 22 April 2020"], 2020),
        (["Manuscript received May 2, 2018; date of current version December 16, 2019."], 2019),
        (["Article · February 2009", "All content uploaded on 25 February 2016."], 2009),
        (["Proceedings of the 52nd Annual Meeting of the ACL, pages 624–633, 2014"], 2014),
        (["Vol. 7, No. 2, 2014, pp. 1-8"], 2014),
        (
            [
                "© Springer International Publishing AG, part of Springer Nature 2018",
                "Received: 9 August 2017 / Accepted: 28 December 2017",
            ],
            2018,
        ),
        (["MathSport International 2019 Conference Proceedings"], 2019),
    ],
)
def test_printed_years_prefer_the_publication(notes: list[str], year: int) -> None:
    found = printed_year(notes)
    assert found is not None and found[0] == year


def test_received_alone_is_the_weakest_year() -> None:
    found = printed_year(["Received: 3 January 2017"])
    assert found is not None and found == (2017, 4)


# -- venue line ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "parts"),
    [
        (
            "Journal of Machine Learning Research 12 (2011) 2493-2537",
            ("Journal of Machine Learning Research", "12", None, "2493-2537"),
        ),
        ("Information Systems 93 (2020) 101562", ("Information Systems", "93", None, "101562")),
        (
            "International Journal of Data Science and Analytics (2018) 5:213–222",
            ("International Journal of Data Science and Analytics", "5", None, "213-222"),
        ),
        (
            "Progress in Applied Mathematics, Vol. 7, No. 2, 2014, pp. 1-8",
            ("Progress in Applied Mathematics", "7", "2", "1-8"),
        ),
        (
            "Hindawi Publishing Corporation Rehabilitation Research and Practice Volume 2010",
            ("Rehabilitation Research and Practice", "2010", None, None),
        ),
        (
            "Proceedings of the 52nd Annual Meeting of the ACL, pages 624–633, Baltimore",
            ("Proceedings of the 52nd Annual Meeting of the ACL", None, None, "624-633"),
        ),
    ],
)
def test_venue_lines(line: str, parts: tuple[str | None, ...]) -> None:
    found = venue_line(line)
    assert found is not None
    assert (found.venue, found.volume, found.issue, found.pages) == parts


@pytest.mark.parametrize(
    "line",
    [
        "© 2020 Elsevier Ltd. All rights reserved.",
        "Received 3 May 2019; accepted 4 June 2019",
        "We measured recovery at 40 sites (2016) and found 12 more.",
        "Department of Physics, Volume Street 12",
        "P1 Mountain Research and Development 41 (2021) 3",
    ],
)
def test_lines_that_are_no_venue(line: str) -> None:
    assert venue_line(line) is None


# -- the goals on real papers (../shared/fixtures/pdfmeta) ----------------------------------
def _fold(text: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def test_goals_on_the_pdfmeta_papers() -> None:
    """titles >= 0.95, author F1 >= 0.95, exact author lists >= 16 of 18, years >= 0.85."""
    folder = shared_path("fixtures", "pdfmeta")
    truths = [json.loads(row) for row in (folder / "truth.jsonl").read_text().splitlines()]
    titles = years = exact = matched = predicted = expected = 0
    for truth in truths:
        meta = extract_pdf((folder / truth["file"]).read_bytes(), ocr_mode="never").metadata
        titles += _fold(meta.title) == _fold(truth["title"])
        years += meta.year == truth["year"]
        got = [_fold(a) for a in meta.authors]
        want = [_fold(a) for a in truth["authors"]]
        exact += got == want
        pool = list(want)
        for name in got:
            if name in pool:
                pool.remove(name)
                matched += 1
        predicted += len(got)
        expected += len(want)
    precision, recall = matched / max(predicted, 1), matched / max(expected, 1)
    f1 = 2 * precision * recall / (precision + recall)
    n = len(truths)
    assert titles / n >= 0.95 and f1 >= 0.95 and years / n >= 0.85
    assert exact >= 16, f"{exact}/{n} exact author lists"


def test_bench_reads_the_reference_manager_records() -> None:
    """The refman set of bench_metadata: each attached PDF once, names given-name first."""
    shared_path("fixtures", "bibtex")
    bench = Path(__file__).resolve().parents[2] / "bench"
    sys.path.insert(0, str(bench))
    try:
        import bench_metadata
    finally:
        sys.path.remove(str(bench))
    truths = bench_metadata.refman_truths()
    paths = [t["path"] for t in truths]
    assert len(paths) == len(set(paths)) and len(truths) >= 40
    dobson = next(
        t for t in truths if t["file"].endswith("dobsonPerformanceRevenueProfessional1998")
    )
    assert dobson["authors"] == ["S. M. Dobson", "J. A. Goddard"] and dobson["year"] == 1998
    assert bench_metadata.refman_name("Dobson, S. M.".replace(",", "")) != ""
    assert bench_metadata.refman_name("Stephen Dobson") == bench_metadata.refman_name(
        "S. M. Dobson"
    )


def test_ingest_keeps_the_trusted_embedded_record_and_the_printed_venue(
    library: object, tmp_path: Path
) -> None:
    """``records['pdf_metadata']`` holds only the fields page 1 agrees with; the printed
    venue line fills the new work's venue, volume, issue and pages."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 40), "Journal of Reef Acoustics 12 (2019) 245-260", fontsize=8)
    page.insert_text((72, 100), "Spectral Methods for Reef Acoustics", fontsize=18)
    page.insert_text((72, 130), "Ngozi Okafor and Kenji Tanaka", fontsize=11)
    page.insert_text((72, 180), "Abstract", fontsize=11)
    for row in range(30):
        page.insert_text(
            (72, 200 + 14 * row), "We listened to the reefs at night. " * 3, fontsize=10
        )
    doc.set_metadata({"title": "Microsoft Word - reefs.docx", "author": "Administrator"})
    doc.set_xml_metadata(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description>'
        "<dc:title><rdf:Alt><rdf:li>Spectral Methods for Reef Acoustics</rdf:li></rdf:Alt>"
        "</dc:title><dc:creator><rdf:Seq><rdf:li>Ngozi Okafor</rdf:li>"
        "<rdf:li>Kenji Tanaka</rdf:li></rdf:Seq></dc:creator>"
        "<prism:doi>10.5555/reef.2019.12</prism:doi>"
        "<prism:publicationName>Journal of Reef Acoustics</prism:publicationName>"
        "<prism:volume>12</prism:volume></rdf:Description></rdf:RDF></x:xmpmeta>"
    )
    path = tmp_path / "reefs.pdf"
    path.write_bytes(doc.tobytes())
    result = library.ingest_file(path)  # type: ignore[attr-defined]
    records = library.metadata_records(result.id)  # type: ignore[attr-defined]
    records["pdf_metadata"].pop("recorded_at", None)
    assert records["pdf_metadata"] == {  # no year said there: none invented
        "title": "Spectral Methods for Reef Acoustics",
        "authors": ["Ngozi Okafor", "Kenji Tanaka"],
        "doi": "10.5555/reef.2019.12",
        "venue": "Journal of Reef Acoustics",
        "volume": "12",
    }
    assert records["printed"]["venue"] == "Journal of Reef Acoustics"
    work = library.get_work(result.id)  # type: ignore[attr-defined]
    assert (work.venue, work.volume, work.pages) == ("Journal of Reef Acoustics", "12", "245-260")
    assert work.title == "Spectral Methods for Reef Acoustics"
    assert work.authors == ["Ngozi Okafor", "Kenji Tanaka"]
    assert work.year == 2019


def test_a_first_author_only_creator_list_never_outranks_the_printed_byline(
    library: Any, tmp_path: Path
) -> None:
    """The PDF's Info names the first author alone while the byline prints three: the
    header keeps the three, and so must the stored work, whose ``pdf_metadata`` record
    outranks ``printed`` in the merge (it found 15 of 18 exact lists on pdfmeta before:
    bench_metadata --stored)."""
    import paper_factory

    path = tmp_path / "reef.pdf"
    path.write_bytes(
        paper_factory.single_column_lncs(
            metadata={"author": "Ngozi Okafor", "title": paper_factory.LNCS_TITLE}
        )
    )
    work = library.get_work(library.ingest_file(path).id)
    assert work.authors == ["Ngozi Okafor", "José Álvarez-Núñez", "Zoë van der Berg"]
    record = library.metadata_records(work.id).get("pdf_metadata", {})
    assert "authors" not in record  # weighed and set aside: not a source of the list
    assert record.get("title") == work.title


def test_a_text_header_keeps_only_affiliation_paragraphs_without_an_email() -> None:
    from prioris.ingest.header.text import header_from_text

    text = (
        "Coral Reef Recovery After Repeated Marine Heatwaves\n\n"
        "Ana Lima and Bo Chen\n\n"
        "Department of Biology, University of Oslo\n\n"
        "ana.lima@uio.no, University of Oslo\n\n"  # an email line naming the university
        "Presented in a poster session\n\n"  # neither: not an affiliation
        "Abstract\n\n"
        "Reefs recover after heatwaves when the water cools again for several years."
    )
    header = header_from_text(text)
    assert header.title == "Coral Reef Recovery After Repeated Marine Heatwaves"
    assert header.authors == ["Ana Lima", "Bo Chen"]
    assert header.affiliations == ["Department of Biology, University of Oslo"]
    assert header.abstract == (
        "Reefs recover after heatwaves when the water cools again for several years."
    )
