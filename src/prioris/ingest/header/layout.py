"""The text layer of a first page kept with its fonts, for header parsing.

:func:`read_header_page` is the only code of the header parser that touches MuPDF: per
line it keeps the spans with their font size, weight, superscript flag and position, so
:mod:`prioris.ingest.header.header` can tell a title from a byline and an affiliation
marker from a name. :class:`Header` is what the parsers return.

Two things are read from the glyphs themselves rather than from the text order: a
*spacing accent* (``¨``, ``´``) goes with the letter it is drawn over (TeX draws it
before its letter, other typesetters after: ``Gu¨nter``, ``Gonza´lez``; only the glyph
boxes tell which), and a line's *baseline* (where most of its text sits), so a tall
radical or a raised marker does not move a line into the row above.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pymupdf

from prioris.ingest.header.names import MARK
from prioris.ingest.lines import TEXT_FLAGS, clean_text
from prioris.text_clean import ACCENTS_AFTER, ACCENTS_BEFORE

_SUPERSCRIPT, _BOLD = 1, 16
_MARKER_TEXT = re.compile(r"^[\s\d,*∗†‡§¶‖#$+⋆✝✉⊥♮♭♯°∥⁎☆★♣♠♦♥⊕⊗⋄◇△▽♢a-z\u03b1-\u03c9]{1,8}$")
_SPACING_ACCENTS = {**ACCENTS_BEFORE, **ACCENTS_AFTER}
_DOTLESS = {"\u0131": "i", "\u0237": "j"}
_ACCENTED = re.compile(f"[{''.join(_SPACING_ACCENTS)}]").search
_MATH_SIGNS = set("√∛∜∑∏∫∮")  # raised in a formula (``√s``), never a footnote's sign


def _is_marker_text(text: str) -> bool:
    """Text an affiliation or footnote marker is made of: digits, lower-case Latin or
    Greek letters (``a``, ``α,τ``), commas and any symbol (``*``, ``†``, ``□``, a
    symbol font's private-use glyph); never a word of capitals."""
    if _MARKER_TEXT.match(text):
        return True
    return (
        0 < len(text) <= 8
        and not set(text) & _MATH_SIGNS
        and all(
            ch.isspace()
            or ch.isdigit()
            or ch == ","
            or unicodedata.category(ch)[0] in "SP"
            or unicodedata.category(ch) == "Co"
            for ch in text
        )
    )


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
    baseline: float | None = None
    """Where most of the line's text sits (None: its bottom edge stands for it)."""

    @cached_property
    def base(self) -> float:
        """The line's baseline, or its bottom edge when the reader gave none."""
        return self.y1 if self.baseline is None else self.baseline

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
        return (span.superscript or small) and _is_marker_text(text)

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


def _over(char: dict[str, Any] | None, x: float) -> bool:
    """Whether ``char`` is a letter whose glyph box spans the abscissa ``x``."""
    return char is not None and char["c"].isalpha() and char["bbox"][0] <= x <= char["bbox"][2]


def span_text(chars: list[dict[str, Any]]) -> str:
    """A span's text from its glyphs, each spacing accent joined (as a combining mark) to
    the letter it is drawn over, the one before it or the one after it; an accent over
    neither is left for :func:`~prioris.ingest.lines.clean_text` to place."""
    out: list[str] = []
    pending = ""
    for index, char in enumerate(chars):
        text = char["c"]
        mark = _SPACING_ACCENTS.get(text)
        if mark is not None:
            x = (char["bbox"][0] + char["bbox"][2]) / 2
            before = chars[index - 1] if index else None
            after = chars[index + 1] if index + 1 < len(chars) else None
            if out and _over(before, x):
                out[-1] = _DOTLESS.get(out[-1], out[-1]) + mark
                continue
            if _over(after, x):
                pending += mark
                continue
        if pending and text.isalpha():
            text, pending = _DOTLESS.get(text, text) + pending, ""
        out.append(text)
    return unicodedata.normalize("NFC", "".join(out) + pending)


def _baseline(spans: list[dict[str, Any]]) -> float | None:
    """The baseline most of the line's characters sit on (raised markers left out)."""
    weights: Counter[float] = Counter()
    for raw in spans:
        if "origin" in raw and not raw.get("flags", 0) & _SUPERSCRIPT:
            weights[round(float(raw["origin"][1]), 1)] += len(raw.get("text", "")) or 1
    return max(weights, key=lambda y: weights[y]) if weights else None


class _Glyphs:
    """The page's glyph boxes (MuPDF ``rawdict``), read only when a span needs them."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page
        self.data: dict[str, Any] | None = None

    def text(self, where: tuple[int, int, int], fallback: str) -> str:
        """The span's text with its accents placed (:func:`span_text`), else as it was."""
        if self.data is None:
            self.data = self.page.get_text("rawdict", flags=TEXT_FLAGS) or {}
        block, line, span = where
        try:
            chars = self.data["blocks"][block]["lines"][line]["spans"][span]["chars"]
        except (KeyError, IndexError, TypeError):
            return fallback
        text = span_text(chars)
        return text if text.strip() else fallback


def read_header_page(page: pymupdf.Page) -> HeaderPage:
    """The page's text lines with span fonts and positions (MuPDF ``dict`` output; a span
    holding a spacing accent is read again from its glyph boxes to place the accent)."""
    data = page.get_text("dict", flags=TEXT_FLAGS)
    glyphs = _Glyphs(page)
    lines: list[HeaderLine] = []
    for number, block in enumerate(data.get("blocks", [])):
        if block.get("type") != 0:
            continue
        for index, raw in enumerate(block.get("lines", [])):
            kept = [
                (
                    glyphs.text((number, index, i), s["text"])
                    if _ACCENTED(s["text"])
                    else s["text"],
                    s,
                )
                for i, s in enumerate(raw.get("spans", []))
                if s.get("text", "").strip()
            ]
            spans = tuple(
                Span(
                    text,
                    float(s["size"]),
                    bool(s.get("flags", 0) & _BOLD),
                    bool(s.get("flags", 0) & _SUPERSCRIPT),
                    float(s["bbox"][0]),
                    float(s["bbox"][2]),
                )
                for text, s in kept
            )
            if not spans:
                continue
            dx, dy = raw.get("dir", (1.0, 0.0))
            x0, y0, x1, y1 = (float(v) for v in raw["bbox"])
            horizontal = dx > 0.99 and abs(dy) < 0.01
            base = _baseline([s for _, s in kept])
            lines.append(HeaderLine(spans, x0, y0, x1, y1, horizontal, number, base))
    return HeaderPage(lines, float(page.rect.width) or 612.0, float(page.rect.height) or 792.0)
