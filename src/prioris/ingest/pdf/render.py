"""One PDF page as a PNG for reading, with a passage of the work's Markdown marked on it.

The Markdown of a page differs from its PDF text layer in small ways (heading marks,
joined hyphenations, ligatures, reading order), so the passage is found by aligning word
sequences rather than by searching for the exact string: the page's words and the
passage's words are normalised the same way, :class:`difflib.SequenceMatcher` finds the
runs they share, and runs long enough to be the passage (not a stray common word) are
marked line by line. A page without a text layer (a scan that was OCR'd) is rendered
unmarked: its words have no positions in the PDF.

The mark is a highlight annotation (blended under the text, as PDF viewers draw one) and
a dark bar in the left margin, so the passage stays findable when colour is not seen.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

import pymupdf

from prioris.errors import InvalidRequestError, ParseError
from prioris.ingest.pdf.magic import header_offset

MIN_RUN_WORDS = 3  # shorter shared runs are coincidences ("of the")
MAX_RENDER_PX = 2400  # the longest side of a rendered page, whatever the zoom
FILL = (1.0, 0.86, 0.2)
EDGE = (0.45, 0.3, 0.0)
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def _norm(word: str) -> str:
    return _NON_WORD.sub("", word.lower())


def passage_rects(page: pymupdf.Page, passage: str) -> list[pymupdf.Rect]:
    """Rectangles (one per line run) covering the words of ``passage`` on ``page``."""
    words = page.get_text("words", sort=True)
    tokens = [_norm(w[4]) for w in words]
    wanted = [t for t in (_norm(w) for w in passage.split()) if t]
    if not words or not wanted:
        return []
    keep = [i for i, t in enumerate(tokens) if t]
    matcher = SequenceMatcher(None, [tokens[i] for i in keep], wanted, autojunk=False)
    least = min(MIN_RUN_WORDS, len(wanted))
    marked: set[int] = set()
    for block in matcher.get_matching_blocks():
        if block.size >= least:
            marked.update(keep[block.a : block.a + block.size])
    rects: list[pymupdf.Rect] = []
    current: pymupdf.Rect | None = None
    line_of: tuple[int, int] | None = None
    for index in sorted(marked):
        x0, y0, x1, y1, _text, block_no, line_no, _ = words[index]
        rect = pymupdf.Rect(x0, y0, x1, y1)
        if current is not None and line_of == (block_no, line_no):
            current |= rect
        else:
            if current is not None:
                rects.append(current)
            current, line_of = rect, (block_no, line_no)
    if current is not None:
        rects.append(current)
    return rects


def open_pdf(data: bytes) -> pymupdf.Document:
    """Open stored PDF bytes in this process.

    Only bytes that ingest already accepted reach this module (their page costs were
    bounded in the parser process then), so one page is rendered here directly; a damaged
    or encrypted file still fails as ParseError rather than a MuPDF exception.
    """
    try:
        doc = pymupdf.open(stream=data[header_offset(data) :], filetype="pdf")
    except Exception as exc:  # MuPDF raises FileDataError, RuntimeError, mupdf.FzError...
        raise ParseError(f"could not open the PDF: {exc}") from exc
    if doc.needs_pass or doc.page_count < 1:
        doc.close()
        raise ParseError("the PDF is encrypted or has no readable pages")
    return doc


def render_page_png(
    data: bytes, number: int, *, passage: str | None = None, zoom: float = 1.6
) -> tuple[bytes, bool]:
    """``(png, marked)``: page ``number`` (1-based) rendered, ``passage`` marked if found.

    Raises InvalidRequestError for a page the PDF does not have, ParseError (from
    the same opening checks as ingest) for bytes that are not a readable PDF.
    """
    doc = open_pdf(data)
    try:
        if not 1 <= number <= doc.page_count:
            raise InvalidRequestError(
                f"page {number} does not exist; the PDF has {doc.page_count} page(s)"
            )
        page = doc[number - 1]
        rects = passage_rects(page, passage) if passage else []
        if rects:
            mark = page.add_highlight_annot(rects)  # multiplied over the text: stays crisp
            mark.set_colors(stroke=FILL)
            mark.update()
            top = min(r.y0 for r in rects) - 1
            bottom = max(r.y1 for r in rects) + 1
            left = max(2.0, min(r.x0 for r in rects) - 8)
            page.draw_line((left, top), (left, bottom), color=EDGE, width=3)
        longest = max(page.rect.width, page.rect.height, 1.0)
        scale = min(zoom, MAX_RENDER_PX / longest)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        return pix.tobytes("png"), bool(rects)
    finally:
        doc.close()
