"""Header edges the seeded mutation samples found untested (issue 25): where a title may
stand on page 1, and a PDF whose first page was OCR'd to nothing while its second page
has a text layer. Built from lines made here (no PDF)."""

from __future__ import annotations

from prioris.ingest.header.header import parse_header
from prioris.ingest.header.layout import HeaderLine, HeaderPage, Span
from prioris.ingest.header.metadata import pdf_metadata


def _line(
    text: str, y: float, size: float = 10.0, *, block: int = 1, x: float = 100.0
) -> HeaderLine:
    width = 5.0 * len(text)
    span = Span(text, size, False, False, x, x + width)
    return HeaderLine((span,), x, y, x + width, y + size, True, block)


def _page(*lines: HeaderLine) -> HeaderPage:
    return HeaderPage(list(lines), width=612, height=792)


def test_a_large_line_in_the_lower_half_of_page_one_is_no_title() -> None:
    """A pull quote set larger than the title, below the middle of the page (and above
    where the search for a title ends without an abstract heading, three quarters down),
    is not taken for the title: a title stands in the upper 55% of the page."""
    page = _page(
        _line("Coral Reef Recovery After Heatwaves", 90, 18, block=0),
        _line("Ana Lima and Bo Chen", 130, 11, block=1),
        _line("Reefs Remember Every Summer", 0.6 * 792, 24, block=2),
    )
    assert parse_header(page, 10.0).title == "Coral Reef Recovery After Heatwaves"
    alone = _page(_line("Reefs Remember Every Summer", 0.6 * 792, 24))
    assert parse_header(alone, 10.0).title is None


def test_a_first_page_ocrd_to_nothing_before_a_page_with_a_text_layer() -> None:
    """Page 1 was OCR'd (no layout) and gave no text, page 2 has a text layer: the record
    is still read, from page 2's text, without touching page 1's missing layout."""
    page_two = _page(
        _line("Coral reef recovery after heatwaves", 80, 18),
        _line("Ana Lima and Bo Chen", 120, 11),
    )
    text_two = (
        "# Coral reef recovery after heatwaves\n\nAna Lima and Bo Chen\n\n"
        "https://doi.org/10.5555/reef.2019\n"
    )
    meta = pdf_metadata(
        info={}, xmp="", header_pages=[None, page_two], body_size=10.0, page_texts=["", text_two]
    )
    assert meta.identifiers == ["doi:10.5555/reef.2019"]
    assert meta.title is None  # page 1's header is the one read: it has none


def test_xmp_creators_written_family_first_are_turned_only_when_whole() -> None:
    """``Lima, Ana`` reads ``Ana Lima``; a suffix after the comma (``Chen, Jr.``) or a
    name missing its given part (``Diaz,``) is kept as written."""
    from prioris.ingest.header.embedded import read_embedded

    items = "".join(f"<rdf:li>{n}</rdf:li>" for n in ("Lima, Ana", "Chen, Jr.", "Diaz,"))
    xmp = f"<dc:creator><rdf:Seq>{items}</rdf:Seq></dc:creator>"
    assert read_embedded({}, xmp).creators == [["Ana Lima", "Chen, Jr.", "Diaz,"]]


def test_sizes_within_the_tolerance_are_one_size_up_to_its_edge() -> None:
    """Sizes within 4% of the larger (at least 0.35 pt) are one size, the edge included:
    a title's second line set at 12 pt under a 12.5 pt first line is the same title."""
    from prioris.ingest.header.cues import _same_size

    assert _same_size(12.5, 12.0)  # exactly 4% of 12.5
    assert _same_size(8.0, 8.25)
    assert not _same_size(12.6, 12.0)
    page = _page(
        _line("Coral Reef Recovery After", 90, 12.5, block=0),
        _line("Repeated Heatwaves", 106, 12.0, block=0),
    )
    assert parse_header(page, 10.0).title == "Coral Reef Recovery After Repeated Heatwaves"


def test_lower_case_elided_particles_start_a_name_word() -> None:
    """``d'`` and ``o'`` (straight or curly apostrophe) may begin a name word in lower
    case; another lower-case word may not."""
    from prioris.ingest.header.names import looks_like_name

    for name in ("Ana o'Brien", "Ana o’Brien", "Ana d'Souza", "Ana d’Souza"):
        assert looks_like_name(name), name
    assert not looks_like_name("Ana xBrien")
    assert not looks_like_name("Ana o'")  # the particle alone is no word


def test_a_page_without_a_header_still_gives_its_small_print_as_notes() -> None:
    """No title, no byline: the header zone is empty, and the small lines at the foot of
    the page (where a paper prints Received/Published) are still its date notes."""
    page = _page(_line("Received 3 May 2019; published 4 June 2019", 720, 8, block=2))
    header = parse_header(page, 10.0)
    assert header.title is None
    assert header.notes == ["Received 3 May 2019; published 4 June 2019"]


def test_body_text_low_on_the_page_is_no_note() -> None:
    """Only small print (at most 95% of the body size) at the top or foot of the page is
    a note: a body-size sentence low on the page that mentions a year is not."""
    page = _page(
        _line("Coral Reef Recovery After Heatwaves", 90, 18, block=0),
        _line("Ana Lima and Bo Chen", 130, 11, block=1),
        _line("In 2016 the reefs bleached again.", 600, 10, block=5),
        _line("Received 3 May 2019", 740, 9.5, block=6),
    )
    assert parse_header(page, 10.0).notes[-1:] == ["Received 3 May 2019"]
    assert "In 2016 the reefs bleached again." not in parse_header(page, 10.0).notes


def test_small_print_in_the_middle_of_the_page_is_no_note() -> None:
    """Small print counts as a note at the top 12% or the lower 45% of the page (running
    heads, footnotes), not between: a figure's small label mid-page is none."""
    page = _page(
        _line("Coral Reef Recovery After Heatwaves", 90, 18, block=0),
        _line("Ana Lima and Bo Chen", 130, 11, block=1),
        _line("Abstract", 200, 10, block=2),  # the header ends here
        _line("Figure 1. Sites surveyed in 2016", 350, 8, block=4),
        _line("Received 3 May 2019", 740, 8, block=6),
    )
    assert parse_header(page, 10.0).notes == ["Received 3 May 2019"]


def test_a_left_column_header_keeps_a_byline_ending_at_the_column_s_edge() -> None:
    """A title in the left column bounds its header to that column (half the page, one
    point of slack): a byline ending exactly there is still in it."""
    byline = "Ana Lima and Bo Chen and Carla Diaz Ferre"  # 41 characters: ends at x = 307
    page = _page(
        _line("Coral Reef Recovery", 90, 18, block=0),
        HeaderLine(
            (Span(byline, 11, False, False, 102.0, 307.0),), 102.0, 130, 307.0, 141, True, 1
        ),
    )
    assert 612 * 0.5 + 1 == 307.0
    assert parse_header(page, 10.0).authors == ["Ana Lima", "Bo Chen", "Carla Diaz Ferre"]


def test_a_two_word_title_is_a_title() -> None:
    page = _page(_line("Reef Recovery", 90, 18, block=0), _line("Ana Lima and Bo Chen", 130, 11))
    assert parse_header(page, 10.0).title == "Reef Recovery"


def test_a_right_column_header_leaves_the_left_column_out() -> None:
    """A title in the right half bounds its header to that half: a name-like line in the
    left column beside the byline is no author."""
    page = _page(
        _line("Coral Reef Recovery", 90, 18, x=320, block=0),
        _line("Carla Diaz", 130, 11, x=50, block=1),
        _line("Ana Lima and Bo Chen", 130, 11, x=320, block=2),
    )
    assert parse_header(page, 10.0).authors == ["Ana Lima", "Bo Chen"]


def test_each_prism_date_of_the_xmp_packet_is_a_date_candidate() -> None:
    from prioris.ingest.header.embedded import read_embedded

    for tag in ("prism:coverDate", "prism:coverDisplayDate", "prism:publicationDate"):
        assert read_embedded({}, f"<{tag}>2019-05-03</{tag}>").dates == ["2019-05-03"], tag


def test_an_embedded_title_must_fit_in_a_run_of_at_most_run_lines_lines() -> None:
    """Without a layout the page's text lines are tried in runs of up to ``_RUN_LINES``:
    a title only found across one more line is not on the page."""
    from prioris.ingest.header.embedded import _RUN_LINES, title_on_page

    long = ["Thermotolerantsymbiontcommunities", "Recolonisationafterrepeatedbleaching"]
    words = [long[0], *[f"Reef{chr(ord('a') + i)}" for i in range(_RUN_LINES - 1)], long[1]]
    text = "\n".join([*words, "Ana Lima and Bo Chen"])
    assert title_on_page(" ".join(words[:_RUN_LINES]), None, text)
    assert not title_on_page(" ".join(words), None, text)


def test_a_cover_page_without_an_author_line_gives_no_authors() -> None:
    """A JSTOR-like cover page before the paper, naming no ``Author(s):``, and a paper
    page whose header has no byline: no authors, and no error."""
    cover = "Stable URL: https://www.jstor.org/stable/1\n\nThis content downloaded from 1.2.3.4"
    meta = pdf_metadata(
        info={},
        xmp="",
        header_pages=[None, None],
        body_size=10.0,
        page_texts=[cover, "we measured the reefs again"],
    )
    assert meta.authors == []


def test_a_running_foot_in_the_bottom_band_gives_the_venue() -> None:
    """A venue line printed at body size in the page's bottom band (a running foot, not
    small print, so no date note) is read from the margins."""
    page = _page(
        _line("Coral Reef Recovery After Heatwaves", 90, 18, block=1),
        _line("Ana Lima and Bo Chen", 130, 11, block=2),
        _line("Journal of Reef Studies 12 (2019) 45-67", 740, 10, block=9),
    )
    meta = pdf_metadata(
        info={}, xmp="", header_pages=[page, None], body_size=10.0, page_texts=["", ""]
    )
    assert (meta.venue, meta.volume, meta.pages) == ("Journal of Reef Studies", "12", "45-67")


def test_a_cover_page_s_author_line_names_the_authors() -> None:
    cover = (
        "Coral Reef Recovery\nAuthor(s): Ana Lima and Bo Chen\n"
        "Stable URL: https://www.jstor.org/stable/1\n\nThis content downloaded from 1.2.3.4"
    )
    meta = pdf_metadata(
        info={},
        xmp="",
        header_pages=[None, None],
        body_size=10.0,
        page_texts=[cover, "we measured the reefs again"],
    )
    assert meta.authors == ["Ana Lima", "Bo Chen"]


def test_xmp_fields_written_as_attributes_are_read() -> None:
    from prioris.ingest.header.embedded import read_embedded

    xmp = '<rdf:Description prism:doi="10.5555/reef" prism:volume="12"/>'
    found = read_embedded({}, xmp)
    assert (found.doi, found.volume) == ("10.5555/reef", "12")


def test_info_authors_lose_their_et_al() -> None:
    from prioris.ingest.header.embedded import read_embedded

    assert read_embedded({"author": "Ana Lima et al."}, "").creators == [["Ana Lima"]]


def test_an_embedded_title_printed_with_a_typo_is_still_on_the_page() -> None:
    from prioris.ingest.header.embedded import title_on_page

    text = "Coral reef recovery after repeated heatwaves\nAna Lima and Bo Chen"
    assert title_on_page("Coral reef recovery after repeated heatwave", None, text)


def test_a_received_line_dates_the_paper_though_the_markdown_joins_it_into_a_paragraph() -> None:
    """Page 1's own lines are searched for Received/Published lines: the Markdown joins a
    paragraph's lines, so "Received: ..." set on a line of its own within body text no
    longer starts a line there, and the header's notes (its small print) do not hold it."""
    body = [
        "Reefs bleach when the water stays warm for weeks and recover",
        "Received: 3 May 2015; accepted 9 June 2015",
        "slowly over the following summers, as the surveys below show.",
    ]
    page = _page(
        _line("Coral Reef Recovery After Heatwaves", 90, 18, block=0),
        _line("Ana Lima and Bo Chen", 130, 11, block=1),
        *(_line(text, 400 + 12 * i, 10, block=2) for i, text in enumerate(body)),
    )
    text = (
        "# Coral Reef Recovery After Heatwaves\n\nAna Lima and Bo Chen\n\n" + " ".join(body) + "\n"
    )
    meta = pdf_metadata(info={}, xmp="", header_pages=[page], body_size=10.0, page_texts=[text])
    assert meta.title == "Coral Reef Recovery After Heatwaves"
    assert meta.year == 2015
    undated = pdf_metadata(
        info={},
        xmp="",
        header_pages=[_page(*page.lines[:3], *page.lines[4:])],
        body_size=10.0,
        page_texts=[text.replace(body[1] + " ", "")],
    )
    assert undated.year is None  # the year came from that line alone
