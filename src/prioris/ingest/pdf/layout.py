"""Turn a PDF page's text layer into Markdown: paragraphs, headings, no running headers.

Pure functions over small value objects (:class:`Line`, :class:`Block`) read once per page
from MuPDF's ``get_text("dict")``, so the document-wide decisions (the body font size,
which sizes are headings, which margin lines repeat on every page) are made before any
page is rendered. Headings are recognised by font size relative to the body text: the
page-1 title becomes ``#``, section sizes ``##`` and ``###``, and bold numbered lines at
body size (``3.1 Traces``) the next level down. Line-end hyphens are removed when the word
continues in lower case on the next line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from prioris.ingest.lines import (  # re-exported: the layout's text primitives
    MARGIN_BAND,
    TEXT_FLAGS,
    clean_text,
    compounds_in,
    join_lines,
)

_BOLD = 16  # span flag bit for bold fonts

HEADING_RATIO = 1.08  # a block this much larger than the body text may be a heading...
HEADING_DELTA = 0.75  # ...and at least this many points larger
TITLE_BAND = 0.35  # the page-1 title sits in the top third of the page

_NUMBERED_HEADING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.(?:\d+\.?)*)\s+\S")
_PAGE_NUMBER = re.compile(r"^\W*(?:page\s*)?[0-9ivxlc]{1,6}(?:\s*(?:of|/)\s*\d{1,5})?\W*$", re.I)


@dataclass(frozen=True)
class Line:
    """One text line: what MuPDF put on one baseline within a block."""

    text: str
    size: float
    bold: bool
    x0: float
    y0: float
    x1: float
    y1: float
    horizontal: bool


@dataclass
class Block:
    """A paragraph-like group of lines as MuPDF segmented it."""

    lines: list[Line]

    @cached_property
    def text(self) -> str:
        return join_lines([line.text for line in self.lines])

    @cached_property
    def size(self) -> float:
        """Character-weighted font size of the block."""
        total = sum(len(line.text) for line in self.lines) or 1
        return sum(line.size * len(line.text) for line in self.lines) / total


@dataclass
class PageLayout:
    """The text layer of one page."""

    blocks: list[Block]
    height: float

    def plain_text(self) -> str:
        """Raw text of the layer (for the usability test), one line per line."""
        return "\n".join(line.text for block in self.blocks for line in block.lines)


@dataclass
class DocumentStyle:
    """Document-wide typography: body size and the sizes that mark headings."""

    body_size: float = 10.0
    section_sizes: list[float] = field(default_factory=list)
    repeated_margin_lines: set[str] = field(default_factory=set)
    compounds: frozenset[str] = frozenset()
    """Hyphenated words the document prints whole: broken at a line end, they keep their
    hyphen (:func:`~prioris.ingest.lines.compounds_in`)."""


def read_layout(page: Any) -> PageLayout:
    """A ``pymupdf.Page``'s text blocks as :class:`Block` objects (images and empty spans
    skipped). Only the PDF parser process calls it: the rest of this module is pure."""
    data = page.get_text("dict", flags=TEXT_FLAGS)
    blocks: list[Block] = []
    for raw_block in data.get("blocks", []):
        if raw_block.get("type") != 0:
            continue
        lines: list[Line] = []
        for raw_line in raw_block.get("lines", []):
            spans = [span for span in raw_line.get("spans", []) if span.get("text", "").strip()]
            if not spans:
                continue
            text = " ".join("".join(span["text"] for span in raw_line["spans"]).split())
            chars = sum(len(span["text"]) for span in spans)
            size = sum(span["size"] * len(span["text"]) for span in spans) / chars
            bold = all(span.get("flags", 0) & _BOLD for span in spans)
            dx, dy = raw_line.get("dir", (1.0, 0.0))
            x0, y0, x1, y1 = raw_line["bbox"]
            horizontal = dx > 0.99 and abs(dy) < 0.01
            lines.append(Line(text, size, bold, x0, y0, x1, y1, horizontal))
        if lines:
            blocks.append(Block(lines))
    return PageLayout(blocks, float(page.rect.height) or 792.0)


def _size_key(size: float) -> float:
    return round(size * 2) / 2


def _margin_key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def in_margin(line: Line, height: float) -> bool:
    return line.y1 <= height * MARGIN_BAND or line.y0 >= height * (1 - MARGIN_BAND)


def _is_heading_size(size: float, body: float) -> bool:
    return size >= body * HEADING_RATIO and size - body >= HEADING_DELTA


def document_style(layouts: list[PageLayout], first_page: PageLayout | None) -> DocumentStyle:
    """Body size, heading sizes and repeated header/footer lines of a document.

    ``first_page`` (page 1 when its text layer is usable) is where the title is; the
    title's size is left out of the section sizes.
    """
    sizes: Counter[float] = Counter()
    for layout in layouts:
        for block in layout.blocks:
            for line in block.lines:
                sizes[_size_key(line.size)] += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    title = {id(line) for line in find_title_lines(first_page, body)} if first_page else set()
    candidates: Counter[float] = Counter()
    for layout in layouts:
        for block in layout.blocks:
            if all(id(line) in title for line in block.lines):
                continue
            if _heading_shape(block) and _is_heading_size(block.size, body):
                candidates[_size_key(block.size)] += 1
    recurring = sorted((s for s, n in candidates.items() if n >= 2), reverse=True)
    margin_pages: Counter[str] = Counter()
    for layout in layouts:
        keys = {
            _margin_key(line.text)
            for block in layout.blocks
            for line in block.lines
            if in_margin(line, layout.height)
        }
        margin_pages.update(keys)
    threshold = max(3, int(0.4 * len(layouts) + 0.5))
    repeated = {key for key, count in margin_pages.items() if count >= threshold}
    compounds = compounds_in(
        line.text for layout in layouts for block in layout.blocks for line in block.lines
    )
    return DocumentStyle(body, recurring or sorted(candidates, reverse=True), repeated, compounds)


def _letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


def _heading_shape(block: Block) -> bool:
    """Short, few lines, horizontal, with words: could be a heading by its shape."""
    text = block.text
    return (
        len(block.lines) <= 4
        and len(text) <= 200
        and _letters(text) >= 2
        and "@" not in text
        and "://" not in text
        and all(line.horizontal for line in block.lines)
    )


def find_title_lines(layout: PageLayout, body_size: float) -> list[Line]:
    """The page-1 title: the largest-font run of lines in the top third of the page."""
    top = [
        line
        for block in layout.blocks
        for line in block.lines
        if line.horizontal and line.y0 <= layout.height * TITLE_BAND and _letters(line.text) >= 3
    ]
    if not top:
        return []
    biggest = max(line.size for line in top)
    if biggest < body_size * 1.1:
        return []
    run: list[Line] = []
    for line in top:
        if abs(line.size - biggest) <= 0.6:
            if run and line.y0 - run[-1].y1 > 2.0 * biggest:
                break
            run.append(line)
        elif run:
            break
    return run


def _heading_level(block: Block, style: DocumentStyle) -> int | None:
    if not _heading_shape(block):
        return None
    size = block.size
    if _is_heading_size(size, style.body_size):
        if not style.section_sizes or size >= style.section_sizes[0] - 0.25:
            return 2
        return 3
    single_row = max(line.y1 for line in block.lines) - min(
        line.y0 for line in block.lines
    ) <= 2.0 * max(line.size for line in block.lines)
    if (
        single_row
        and all(line.bold for line in block.lines)
        and len(block.text) <= 100
        and _NUMBERED_HEADING.match(block.text)
    ):
        return min(3, 2 + len(style.section_sizes[:1]))
    return None


def _continues(previous: str, text: str) -> bool:
    """Whether ``text`` carries on ``previous`` (it starts in lower case mid-sentence)."""
    return text[:1].islower() and previous[-1:] not in ".!?:;"


def _paragraph(text: str) -> str:
    """Body text made safe for Markdown: no accidental headings, bullets as list items."""
    text = clean_text(text)
    if text.startswith(("•", "◦", "▪", "‣", "–")) and len(text) > 1:
        return "- " + text[1:].lstrip()
    if text.startswith(("#", ">", "=")):
        return "\\" + text
    return text


def page_markdown(layout: PageLayout, style: DocumentStyle, *, first_page: bool) -> str:
    """The page as Markdown: ``#`` title (page 1), ``##``/``###`` headings, paragraphs."""
    title_ids = (
        {id(line) for line in find_title_lines(layout, style.body_size)} if first_page else set()
    )
    parts: list[tuple[int, str]] = []  # (heading level or 0, text)
    previous_bottom = -1.0e9
    for block in layout.blocks:
        lines = [
            line
            for line in block.lines
            if not (
                in_margin(line, layout.height)
                and (
                    _margin_key(line.text) in style.repeated_margin_lines
                    or _PAGE_NUMBER.match(line.text)
                )
            )
        ]
        if not lines:
            continue
        kept = Block(lines)
        if title_ids and all(id(line) in title_ids for line in lines):
            level: int | None = 1
        else:
            level = _heading_level(kept, style)
        text = join_lines([line.text for line in lines], style.compounds)
        top = min(line.y0 for line in lines)
        close = 0 <= top - previous_bottom <= kept.size
        if level and parts and parts[-1][0] == level and close:
            parts[-1] = (level, f"{parts[-1][1]} {text}")  # a heading wrapped over two blocks
        elif not level and parts and parts[-1][0] == 0 and _continues(parts[-1][1], text):
            # split by a column/page break
            parts[-1] = (0, join_lines([parts[-1][1], text], style.compounds))
        else:
            parts.append((level or 0, text))
        previous_bottom = max(line.y1 for line in lines)
    rendered = [
        f"{'#' * level} {clean_text(text)}" if level else _paragraph(text) for level, text in parts
    ]
    return "\n\n".join(rendered)


def ocr_markdown(text: str) -> str:
    """OCR output as Markdown paragraphs: blank-line-separated blocks, lines joined."""
    paragraphs: list[str] = []
    current: list[str] = []
    for raw in text.replace("\x0c", "\n").splitlines():
        if raw.strip():
            current.append(raw)
        elif current:
            paragraphs.append(join_lines(current))
            current = []
    if current:
        paragraphs.append(join_lines(current))
    return "\n\n".join(_paragraph(p) for p in paragraphs if p)
