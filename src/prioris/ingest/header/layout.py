"""The text layer of a first page kept with its fonts, for header parsing.

:func:`read_header_page` is the only code of the header parser that touches MuPDF: per
line it keeps the spans with their font size, weight, superscript flag and position, so
:mod:`prioris.ingest.header.header` can tell a title from a byline and an affiliation
marker from a name. :class:`Header` is what the parsers return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import pymupdf

from prioris.ingest.header.names import MARK
from prioris.ingest.lines import TEXT_FLAGS, clean_text

_SUPERSCRIPT, _BOLD = 1, 16
_MARKER_TEXT = re.compile(r"^[\s\d,*∗†‡§¶‖#$+⋆✝✉⊥♮♭♯°∥⁎☆★♣♠♦♥⊕⊗⋄◇△▽♢a-z]{1,8}$")


@dataclass(frozen=True)
class Span:
    """A run of text in one font on one line."""

    text: str
    size: float
    bold: bool
    superscript: bool
    x0: float
    x1: float


@dataclass(frozen=True)
class HeaderLine:
    """One line of the page with its spans; ``block`` is MuPDF's block number."""

    spans: tuple[Span, ...]
    x0: float
    y0: float
    x1: float
    y1: float
    horizontal: bool
    block: int

    @cached_property
    def size(self) -> float:
        """Character-weighted size of the line's text, footnote markers left out."""
        spans = [s for s in self.spans if not s.superscript] or list(self.spans)
        chars = sum(len(s.text.strip()) for s in spans) or 1
        return sum(s.size * len(s.text.strip()) for s in spans) / chars

    @cached_property
    def bold(self) -> bool:
        spans = [s for s in self.spans if not self._is_marker(s)] or list(self.spans)
        bold = sum(len(s.text.strip()) for s in spans if s.bold)
        return bold * 2 > sum(len(s.text.strip()) for s in spans)

    def _is_marker(self, span: Span) -> bool:
        """A footnote / affiliation marker: raised, or small digits and symbols."""
        text = span.text.strip()
        if not text:
            return False
        base = max((s.size for s in self.spans if not s.superscript), default=span.size)
        small = span.size < 0.85 * base
        return (span.superscript or small) and bool(_MARKER_TEXT.match(text))

    def _joined(self, marker: str | None) -> str:
        out = ""
        previous: Span | None = None
        for span in self.spans:
            is_marker = self._is_marker(span)
            text = (marker or "") if is_marker else span.text
            if previous is not None and out and text and not out.endswith(" "):
                gap = span.x0 - previous.x1
                if gap > 2.0 * self.size and marker is not None:
                    out += MARK  # names spaced apart on one line
                elif gap > 0.15 * self.size and not text.startswith(" "):
                    out += " "
            out += text
            previous = span
        return clean_text(" ".join(out.split()))

    @cached_property
    def text(self) -> str:
        """The line's text without footnote markers."""
        return self._joined(None)

    @cached_property
    def byline(self) -> str:
        """The line's text with each footnote marker as :data:`MARK` (a name separator)."""
        return self._joined(MARK)

    @cached_property
    def starts_with_marker(self) -> bool:
        first = next((s for s in self.spans if s.text.strip()), None)
        return first is not None and self._is_marker(first)


@dataclass
class HeaderPage:
    """The lines of one page in MuPDF's order, with the page size."""

    lines: list[HeaderLine]
    width: float
    height: float


@dataclass
class Header:
    """What a paper's first page says about itself (empty where it is not clear)."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    abstract: str | None = None
    notes: list[str] = field(default_factory=list)
    """Texts where a paper prints its dates: header, running heads, footnotes, margins."""


def read_header_page(page: pymupdf.Page) -> HeaderPage:
    """The page's text lines with span fonts and positions (MuPDF ``dict`` output)."""
    data = page.get_text("dict", flags=TEXT_FLAGS)
    lines: list[HeaderLine] = []
    for number, block in enumerate(data.get("blocks", [])):
        if block.get("type") != 0:
            continue
        for raw in block.get("lines", []):
            spans = tuple(
                Span(
                    s["text"],
                    float(s["size"]),
                    bool(s.get("flags", 0) & _BOLD),
                    bool(s.get("flags", 0) & _SUPERSCRIPT),
                    float(s["bbox"][0]),
                    float(s["bbox"][2]),
                )
                for s in raw.get("spans", [])
                if s.get("text", "").strip()
            )
            if not spans:
                continue
            dx, dy = raw.get("dir", (1.0, 0.0))
            x0, y0, x1, y1 = (float(v) for v in raw["bbox"])
            horizontal = dx > 0.99 and abs(dy) < 0.01
            lines.append(HeaderLine(spans, x0, y0, x1, y1, horizontal, number))
    return HeaderPage(lines, float(page.rect.width) or 612.0, float(page.rect.height) or 792.0)
