"""Headers, third round (issue 39): rules that follow how a first page is typeset.

Each rule is tested on a page or lines built here, never on a fixture paper: accents
placed by their glyph boxes, rows by their baselines, any raised symbol read as a
marker, names glued to their initials or followed by a suffix, a collaboration named
with "and", an institution after a name, an acronym under a byline, a given name that
wraps, a bold title set barely larger than the text, a parallel title and a subtitle,
what publishers append to titles, the fuller printed name, the years a page prints in
other languages, in a copyright line, a venue line or the DOI itself, and the latest
version of a versioned DOI."""

from __future__ import annotations

import pymupdf
import pytest

from prioris.ingest.header.cues import _rows
from prioris.ingest.header.header import parse_header
from prioris.ingest.header.layout import (
    HeaderLine,
    HeaderPage,
    Span,
    _is_marker_text,
    read_header_page,
    span_text,
)
from prioris.ingest.header.metadata import choose_authors
from prioris.ingest.header.names import (
    MARK,
    looks_like_name,
    names_in_byline,
    strip_trailing,
)
from prioris.ingest.header.own_identifiers import find_own_identifiers
from prioris.ingest.header.years import dating_lines, doi_year, printed_year
from prioris.ingest.lines import join_lines
from prioris.ingest.pdf.reader import extract_pdf

FONT = pymupdf.Font("tiro")


def _line(
    text: str,
    y: float,
    size: float = 10.0,
    *,
    x: float = 100.0,
    block: int = 1,
    bold: bool = False,
    baseline: float | None = None,
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
    return HeaderLine(tuple(spans), left, y, x, y + size, True, block, baseline)


def _page(*lines: HeaderLine) -> HeaderPage:
    return HeaderPage(list(lines), width=612, height=792)


def _body(page: pymupdf.Page, top: float) -> None:
    """Thirty lines of running text under the header (the body size is 10 pt)."""
    for row in range(30):
        page.insert_text((72, top + 14 * row), "We listened to the reefs at night. " * 3)


# -- glyphs ----------------------------------------------------------------------------------
def _put(page: pymupdf.Page, text: str, x: float, y: float) -> float:
    page.insert_text((x, y), text, fontname="tiro", fontsize=12)
    return x + FONT.text_length(text, fontsize=12)


def _centred_over(letter: str, x: float) -> float:
    """Where a diaeresis is drawn to sit over ``letter`` starting at ``x``."""
    return x + (FONT.text_length(letter, fontsize=12) - FONT.text_length("¨", fontsize=12)) / 2


def test_a_spacing_accent_goes_with_the_letter_it_is_drawn_over() -> None:
    """A typesetter that draws the accent after its letter (``Gu¨nter``) and TeX, which
    draws it before (``Gy¨ongyi``), give the same text: the glyph box decides, not the
    order, which text cleaning alone has to guess (it would read ``Gun̈ter``)."""
    doc = pymupdf.open()
    page = doc.new_page()
    x = _put(page, "Gu", 72, 100)
    _put(page, "¨", _centred_over("u", x - FONT.text_length("u", fontsize=12)), 100)
    _put(page, "nter Jost", x, 100)
    x = _put(page, "Gy", 72, 130)
    _put(page, "¨", _centred_over("o", x), 130)
    _put(page, "ongyi Bo", x, 130)

    lines = read_header_page(page).lines

    assert [line.text for line in lines] == ["Günter Jost", "Gyöngyi Bo"]


def test_glyphs_without_a_letter_under_the_accent_are_left_as_printed() -> None:
    def char(c: str, x0: float, x1: float) -> dict[str, object]:
        return {"c": c, "bbox": (x0, 0.0, x1, 10.0)}

    a_acute = [char("a", 0, 6), char("´", 1, 4), char("l", 6, 8)]
    apart = [char("a", 0, 6), char(" ", 6, 9), char("´", 9, 12), char(" ", 12, 15)]
    dotless = [char("´", 1, 4), char("ı", 0, 5), char("n", 5, 10)]

    assert span_text(a_acute) == "ál"
    assert span_text(apart) == "a ´ "  # over no letter: the text cleaning decides
    assert span_text(dotless) == "ín"  # a dotless i takes the accent of an i


def test_a_line_sits_in_its_row_by_its_baseline_not_its_top() -> None:
    """A radical printed larger raises the top of its line into the line above; the
    baseline keeps the two lines apart, and a real page gives every line one."""
    first = _line("Combined Measurement of the Higgs Boson Mass in pp", 233, 17, baseline=247)
    tall = _line("Collisions at √s = 7 and 8 TeV", 241, 17, baseline=268)
    assert [[ln.text for ln in row] for row in _rows([first, tall])] == [
        [first.text],
        [tall.text],
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Reef Recovery", fontsize=18)
    assert read_header_page(page).lines[0].baseline == pytest.approx(100.0, abs=0.5)


# -- markers and bylines ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "marker"),
    [("α", True), ("α,τ", True), ("□", True), ("\uf02a", True), ("**, ***", True)],
)
def test_raised_symbols_greek_letters_and_symbol_font_glyphs_are_markers(
    text: str, marker: bool
) -> None:
    assert _is_marker_text(text) is marker


@pytest.mark.parametrize("text", ["√", "∑", "Jr", "MIT"])
def test_a_raised_radical_or_a_word_in_capitals_is_no_marker(text: str) -> None:
    assert not _is_marker_text(text)


def test_names_tied_by_greek_or_box_markers_are_split_at_them() -> None:
    title = _line("PaperMage: A Unified Toolkit for Scientific Documents", 70, 14, bold=True)
    first = _line("Kyle Lo^α Zejiang Shen^α Regan Huff^□ Bailey Kuehl^β", 110, 12, bold=True)
    second = _line("Marti A. Hearst^β Doug Downey^η", 125, 12, bold=True)
    header = parse_header(_page(title, first, second), 10.0)
    assert header.authors == [
        "Kyle Lo",
        "Zejiang Shen",
        "Regan Huff",
        "Bailey Kuehl",
        "Marti A. Hearst",
        "Doug Downey",
    ]


def test_initials_printed_without_spaces_make_a_name() -> None:
    byline = f"Yu.A.Pusep{MARK}, L.Fernandes dos Santos{MARK}, D.Smirnov{MARK}, and A.I.Toropov"
    assert names_in_byline(byline) == [
        "Yu.A.Pusep",
        "L.Fernandes dos Santos",
        "D.Smirnov",
        "A.I.Toropov",
    ]
    assert not looks_like_name("STAT.BERKELEY.EDU")  # an address in capitals stays none


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        (
            "Bryan S. Frazier, William B. Driggers III, Glenn F. Ulrich",
            ["Bryan S. Frazier", "William B. Driggers III", "Glenn F. Ulrich"],
        ),
        ("Ana Lima, Jr., Bo Chen, PhD", ["Ana Lima Jr.", "Bo Chen"]),
    ],
)
def test_a_suffix_stays_with_its_name_and_a_degree_goes(byline: str, names: list[str]) -> None:
    assert names_in_byline(byline) == names


def test_a_collaboration_named_with_and_is_one_author() -> None:
    assert names_in_byline(f"The ATLAS and CMS Collaborations{MARK}") == [
        "The ATLAS and CMS Collaborations"
    ]


def test_an_institution_after_a_name_ends_the_names_of_its_row() -> None:
    """``Michigan State University`` is an institution named after a place, not the name
    ``Michigan State`` followed by one; its address after it holds no names either."""
    line = "C. Contreras, Michigan State University, 48823 East Lansing, MI, USA"
    assert names_in_byline(line) == ["C. Contreras"]
    both = "Ana Lima, Google Research, Bo Chen, Google Research"
    assert names_in_byline(both) == ["Ana Lima", "Bo Chen"]
    assert strip_trailing("Michigan State University") == "Michigan State University"
    assert strip_trailing("Robert E. Gruber Google") == "Robert E. Gruber"


def test_an_acronym_under_a_byline_does_not_continue_its_last_name() -> None:
    title = _line(
        "Tuner Testing of a Dressed 3.9 GHz Cavity for LCLS-II at Fermilab", 60, 14, bold=True
    )
    names = _line("Y. Pischalnikov^1, S. Aderhold, J. C. Yun", 90, 12)
    place = _line("FNAL, Batavia, IL 60510, USA", 104, 12)
    other = _line("C. Contreras, Michigan State University, East Lansing, MI, USA", 118, 12)
    header = parse_header(_page(title, names, place, other), 10.0)
    assert header.authors == ["Y. Pischalnikov", "S. Aderhold", "J. C. Yun", "C. Contreras"]


def test_a_given_name_at_a_row_end_waits_for_its_family_name() -> None:
    """``..., Hairui Wang, Zhihe`` / ``Zhang, Liang Zhang``: the rest of the row reads as
    a byline, and the lone given name still goes with the next row's first word."""
    title = _line("Prolonged transition time between colostrum and milk", 40, 24)
    first = _line("Kate Griffiths^1, Rong Hou^2, Hairui Wang^2, Zhihe", 90, 15)
    second = _line("Zhang^2, Liang Zhang^2, Tong Zhang^3", 112, 15)
    header = parse_header(_page(title, first, second), 10.0)
    assert header.authors == [
        "Kate Griffiths",
        "Rong Hou",
        "Hairui Wang",
        "Zhihe Zhang",
        "Liang Zhang",
        "Tong Zhang",
    ]


def test_the_printed_name_wins_over_metadata_that_drops_an_initial() -> None:
    printed = ["Viren Jain", "H. Sebastian Seung"]
    assert choose_authors(printed, ["Viren Jain", "Sebastian Seung"]) == printed
    # a different person in the metadata still wins (the byline was misread)
    assert choose_authors(["Ana Lima"], ["Bo Chen"]) == ["Bo Chen"]


# -- titles ----------------------------------------------------------------------------------
def test_a_bold_title_set_barely_larger_than_the_text_is_the_title() -> None:
    """Conference styles set the title in bold 12 pt over 10.95 pt text, under a
    running head in 9 pt that names the volume and its editors."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text(
        (107, 90), "Asymmetrical Nebulae II: From Origins to Microstructures", fontsize=9
    )
    page.insert_text((107, 100), "ASP Conference Series, Vol. 199, 2000", fontsize=9)
    page.insert_text((107, 110), "J. H. Kastner, N. Soker, & S. Rappaport, eds.", fontsize=9)
    page.insert_text(
        (140, 140), "Theory of the Interaction of Planetary Nebulae", fontsize=12, fontname="hebo"
    )
    page.insert_text((140, 185), "Ruth Dgani", fontsize=10.95)
    page.insert_text((140, 200), "Department of Astronomy, University of Texas", fontsize=10.95)
    page.insert_text((140, 240), "Abstract.", fontsize=10.95)
    for row in range(30):
        page.insert_text((107, 260 + 14 * row), "The interaction of nebulae. " * 3, fontsize=10.95)

    meta = extract_pdf(doc.tobytes(), ocr_mode="never").metadata

    assert meta.title == "Theory of the Interaction of Planetary Nebulae"
    assert meta.authors == ["Ruth Dgani"]
    assert meta.year == 2000


def test_a_parallel_title_set_apart_is_not_part_of_the_title() -> None:
    """Two lines at the title's leading, then the same size again further down than the
    leading allows: a title in a second language, a block of its own."""
    page = _page(
        _line("Compromiso de los Ayuntamientos Malagueños", 85, 17, block=1),
        _line("con la divulgación de información responsable", 107, 17, block=1),
        _line("The Málaga city councils commitment on the", 152, 17, block=2),
        _line("dissemination of responsible information", 174, 17, block=2),
        _line("María Pache-Durán^1", 234, 9.5, block=3),
    )
    header = parse_header(page, 9.0)
    assert header.title == (
        "Compromiso de los Ayuntamientos Malagueños con la divulgación de información responsable"
    )


def test_a_subtitle_right_under_its_title_is_kept_a_block_of_rows_is_not() -> None:
    title = [
        _line("DISCOURS ÉPILINGUISTIQUES EN", 74, 20, x=140, bold=True),
        _line("FRANCOPHONIE MANITOBAINE", 108, 20, x=145, bold=True),
    ]
    subtitle = _line("Une vue d’ensemble", 139, 18, x=165)  # centred under the title
    byline = _line("Sandrine Hallion", 184, 12, x=170)
    kept = parse_header(_page(*title, subtitle, byline), 11.0)
    assert kept.title == "DISCOURS ÉPILINGUISTIQUES EN FRANCOPHONIE MANITOBAINE Une vue d’ensemble"
    assert kept.authors == ["Sandrine Hallion"]

    second = _line("analyse des représentations", 158, 18, x=165)
    apart = parse_header(_page(*title, subtitle, second, byline), 11.0)
    assert apart.title == "DISCOURS ÉPILINGUISTIQUES EN FRANCOPHONIE MANITOBAINE"


@pytest.mark.parametrize(
    ("printed", "title"),
    [
        (
            "Longevity of Sharks [v2; ref status: indexed, http://f1000r.es/4fj]",
            "Longevity of Sharks",
        ),
        ("Zur Hydrolyse von Imidazolium [1]", "Zur Hydrolyse von Imidazolium"),
        (
            "The “new normal” of the Chinese economy \uf02a",
            "The “new normal” of the Chinese economy",
        ),
        ("Reefs [in Press] at Night", "Reefs [in Press] at Night"),
    ],
)
def test_what_a_publisher_prints_after_a_title_is_no_part_of_it(printed: str, title: str) -> None:
    page = _page(_line(printed, 80, 16), _line("Ana Lima and Bo Chen", 110, 11))
    assert parse_header(page, 10.0).title == title


def test_a_locant_hyphen_at_a_line_end_is_kept_without_a_space() -> None:
    assert join_lines(["1,3-Di-tert-butyl-4,5-", "dimethylimidazolium"]) == (
        "1,3-Di-tert-butyl-4,5-dimethylimidazolium"
    )


# -- years -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("notes", "year"),
    [
        (["Recibido el 4 del septiembre del 2020 y aprobado el 23 del febrero del 2021."], 2021),
        (["Recebido 30 nov. 2022", "Aprovado 29 mar. 2023"], 2023),
        (["Eingegangen am 3. Mai 2007"], 2007),
        (["TransInformação I Campinas I v. 35 I e227169 I 2023"], 2023),
        (["TransInformação, Campinas, 33:e200057, 2021"], 2021),
        # the first version's date printed twice does not outvote the version in hand
        (["published 12 Aug 2014", "published\n12 Aug 2014", "published 27 Jan 2015"], 2015),
    ],
)
def test_years_of_review_lines_in_other_languages_and_of_venue_lines(
    notes: list[str], year: int
) -> None:
    found = printed_year(notes)
    assert found is not None and found[0] == year


def test_a_copyright_year_dates_the_paper_wherever_the_line_starts() -> None:
    text = "Introduction\n978-1-4577-9538-2/11/$26.00 ©2011 IEEE\nWe study routing."
    assert dating_lines(text) == ["978-1-4577-9538-2/11/$26.00 ©2011 IEEE"]
    assert printed_year(dating_lines(text)) == (2011, 1)


@pytest.mark.parametrize(
    ("doi", "year"),
    [
        ("10.1016/j.is.2020.101562", 2020),
        ("10.1590/2318-0889202133e200057", 2021),
        ("10.1590/1982-3533.2024v33n3.282794", 2024),
        ("10.1155/2010/157939", 2010),
        ("10.1002/zaac.200700576", None),  # digits that may be a year: not read as one
        ("10.1038/nature14539", None),
    ],
)
def test_the_year_a_doi_spells_out(doi: str, year: int | None) -> None:
    assert doi_year([f"doi:{doi}"]) == year


def _page_with(lines: list[tuple[float, str]]) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Spectral Methods for Reef Acoustics", fontsize=18)
    page.insert_text((72, 130), "Ngozi Okafor and Kenji Tanaka", fontsize=11)
    page.insert_text((72, 180), "Abstract", fontsize=11)
    _body(page, 200)
    for y, text in lines:
        page.insert_text((72, y), text, fontsize=8)
    return doc.tobytes()


def test_a_page_that_dates_nothing_has_no_year_even_with_a_doi_that_spells_one() -> None:
    """No year is guessed from a page that prints none (the file's dates are not the
    paper's, and a DOI is minted near publication, not always in its year)."""
    undated = extract_pdf(_page_with([]), ocr_mode="never").metadata
    assert undated.year is None
    doi = extract_pdf(
        _page_with([(760, "https://doi.org/10.1016/j.reef.2019.04.002")]), ocr_mode="never"
    )
    assert doi.metadata.year is None


def test_the_doi_year_settles_a_tie_between_printed_years() -> None:
    notes = ["Received 12 December 2019", "Received by the editors 3 January 2020"]
    assert printed_year(notes) == (2020, 4)  # the latest, without a DOI
    assert printed_year(notes, prefer=2019) == (2019, 4)
    assert printed_year(["Received 3 May 2018"], prefer=2019) == (2018, 4)  # no tie: printed


def test_the_latest_version_of_a_versioned_doi_is_the_papers() -> None:
    text = (
        "version 1 published 12 Aug 2014 (doi: 10.12688/f1000research.4767.1)\n"
        "version 2 published 27 Jan 2015 (doi: 10.12688/f1000research.4767.2)"
    )
    assert find_own_identifiers([text]) == ["doi:10.12688/f1000research.4767.2"]
    other = "doi: 10.1000/reef.1 and doi: 10.1000/coral.2"
    assert find_own_identifiers([other]) == ["doi:10.1000/reef.1"]


def test_a_house_number_or_postcode_makes_a_piece_an_address_not_a_name() -> None:
    """``De Boelelaan 1081, 1081 HV Amsterdam`` under a byline holds no names; a marker of
    one or two digits glued to a name still goes."""
    assert names_in_byline("De Boelelaan 1081, 1081 HV Amsterdam,") is None
    assert names_in_byline("Jana Grote, 34 Kerstin Mammitzsch, 3") == [
        "Jana Grote",
        "Kerstin Mammitzsch",
    ]


def test_a_conference_line_split_over_two_blocks_is_read_as_one() -> None:
    """MuPDF puts a conference's name and its place and date in two blocks; set alike,
    one under the other, they are one note, and its year dates the paper."""
    page = _page(
        _line("IEEE Instrumentation and Measurement Technology Conference", 73, 8.6, block=0),
        _line("Brussels, Belgium, June 4-6, 1996", 83, 8.6, block=1),
        _line("A New Instrument to Measure the Shape of the Cornea", 120, 14, block=2),
        _line("Frans Vos and Frans Groen", 150, 10.7, block=3),
        _line("Abstract", 200, 10, block=4),
    )
    notes = parse_header(page, 9.6).notes
    assert (
        "IEEE Instrumentation and Measurement Technology Conference Brussels, Belgium, "
        "June 4-6, 1996" in notes
    )
    assert printed_year(notes) == (1996, 2)


def test_names_in_small_capitals_are_read_whole() -> None:
    """Small capitals are a larger capital and smaller ones (``M`` ``ICHAEL``): the
    smaller letters are no marker, and the name comes out whole, in mixed case."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Spectral Methods for Reef Acoustics", fontsize=18)
    x = 72.0
    for text, size in [("M", 11), ("ICHAEL", 8.5), (" J. F", 11), ("ISCHER", 8.5)]:
        page.insert_text((x, 130), text, fontsize=size)
        x += pymupdf.get_text_length(text, fontsize=size)
    for text, size in [(" and ", 11), ("A", 11), ("NA", 8.5), (" L", 11), ("IMA", 8.5)]:
        page.insert_text((x, 130), text, fontsize=size)
        x += pymupdf.get_text_length(text, fontsize=size)
    page.insert_text((72, 180), "Abstract", fontsize=11)
    _body(page, 200)
    meta = extract_pdf(doc.tobytes(), ocr_mode="never").metadata
    assert meta.authors == ["Michael J. Fischer", "Ana Lima"]


def test_a_cjk_byline_is_split_at_its_own_commas_and_names_kept_as_printed() -> None:
    assert names_in_byline("王小明，李华、张伟") == ["王小明", "李华", "张伟"]
    assert names_in_byline(f"王小明{MARK}，李华{MARK}") == ["王小明", "李华"]


def test_a_glyph_the_text_layer_could_not_map_does_not_join_the_doi() -> None:
    text = "IEEE Trans. Autom. Control, doi: 10.1109/TAC.2013.2263613\uffff 2013"
    assert find_own_identifiers([text]) == ["doi:10.1109/tac.2013.2263613"]
