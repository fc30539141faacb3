"""PDF pages rendered for reading, with a passage of the Markdown found and marked."""

from __future__ import annotations

import pymupdf
import pytest

from prioris.errors import InvalidRequestError, ParseError
from prioris.ingest.pdf.render import passage_rects, render_page_png

PASSAGE = "Glacier moraine sediment records past climate in alpine valleys."


def two_column_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_textbox(pymupdf.Rect(50, 60, 290, 800), "Unrelated opening words. " * 40)
    page.insert_textbox(
        pymupdf.Rect(305, 60, 545, 800), "Some context first. " + PASSAGE + " And after it."
    )
    data = doc.tobytes()
    doc.close()
    return data


def yellow_pixels(png: bytes) -> int:
    pix = pymupdf.Pixmap(png)
    s, n = pix.samples, pix.n
    return sum(1 for i in range(0, len(s), n) if s[i] > 200 and s[i + 1] > 170 and s[i + 2] < 120)


def test_the_passage_is_found_despite_markdown_marks_and_hyphens() -> None:
    doc = pymupdf.open(stream=two_column_pdf(), filetype="pdf")
    markdown = "**Glacier** moraine sediment-records past climate in alpine valleys."
    rects = passage_rects(doc[0], markdown)
    doc.close()
    assert rects and all(r.x0 >= 300 for r in rects)  # the right column, not the left one


def test_short_coincidences_are_not_marked() -> None:
    doc = pymupdf.open(stream=two_column_pdf(), filetype="pdf")
    assert passage_rects(doc[0], "the words nowhere on this page at all opening") == []
    doc.close()


def test_render_marks_the_passage_only_when_asked() -> None:
    data = two_column_pdf()
    marked, found = render_page_png(data, 1, passage=PASSAGE)
    plain, none = render_page_png(data, 1)
    assert marked.startswith(b"\x89PNG") and found and not none
    assert yellow_pixels(marked) > 300 and yellow_pixels(plain) == 0


def test_bad_pages_and_bytes_are_clear_errors() -> None:
    with pytest.raises(InvalidRequestError, match="page 3 does not exist"):
        render_page_png(two_column_pdf(), 3)
    with pytest.raises(ParseError):
        render_page_png(b"not a pdf", 1)
