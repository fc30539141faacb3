"""Bibliographic metadata a PDF gives about itself: title, authors, year, identifiers.

Pure functions over what :mod:`prioris.ingest.pdf.reader` read: the info dictionary, the XMP
packet, the layout of pages 1-2 (:mod:`prioris.ingest.header.header` reads title, authors,
affiliations and abstract from it) and every page's Markdown. What the paper *prints*
wins over the info dictionary, which is often a file name or a stale title, except where
:mod:`~prioris.ingest.header.embedded` finds the Info/XMP title or creators printed on
page 1 and the printed guess is something else (a journal's name set large).

A year comes only from a place a paper prints its own date, or else its arXiv id: the
rules are :mod:`~prioris.ingest.header.years`; this module weighs their year against the
embedded one. Identifiers become aliases of a work, so only one DOI and one arXiv id are
kept, each from the most trustworthy place it appears (the order of the places is here,
the search :mod:`~prioris.ingest.header.own_identifiers`). A cover sheet (JSTOR and the
like) hands the header over to page 2. ``printed_year``, ``arxiv_year`` and
``find_own_identifiers`` are still importable from here.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from prioris.ingest.header.embedded import (
    TITLE_RATIO,
    EmbeddedRecord,
    embedded_record,
    fold,
    plausible_title,
    real_title,
    split_authors,
)
from prioris.ingest.header.header import parse_header
from prioris.ingest.header.layout import Header, HeaderPage
from prioris.ingest.header.names import names_in_byline
from prioris.ingest.header.own_identifiers import cite_boxes, find_own_identifiers, ocr_stamp
from prioris.ingest.header.text import header_from_text
from prioris.ingest.header.venue import find_venue
from prioris.ingest.header.years import arxiv_year, dating_lines, doi_year, printed_year
from prioris.ingest.lines import MARGIN_BAND


@dataclass
class PdfMetadata:
    """Bibliographic record found in the PDF itself (what the paper printed)."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    identifiers: list[str] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)
    abstract: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    embedded: EmbeddedRecord = field(default_factory=EmbeddedRecord)
    """The fields of the PDF's Info dictionary and XMP that page 1 agrees with."""

    def pdf_metadata(self) -> dict[str, Any]:
        """JSON-ready record of the trusted embedded fields (``records['pdf_metadata']``),
        keeping only those the header chose or had nothing against.

        The record outranks the ``printed`` one when a work's records are merged
        (:mod:`prioris.provenance`), so an embedded value the header weighed and set aside
        must not be in it: a creator list of the first author alone, say, where the byline
        printed four (the header kept the four; the merge would keep one)."""
        record = self.embedded.as_record()
        chosen: dict[str, Any] = {
            "title": self.title,
            "authors": self.authors,
            "year": self.year,
            "venue": self.venue,
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
        }
        kept: dict[str, Any] = {}
        for key, value in record.items():
            mine = chosen.get(key)
            if key == "authors":
                if mine and [fold(a) for a in mine] == [fold(a) for a in value]:
                    kept[key] = list(mine)  # the byline's spelling (accents kept)
            elif key == "title":
                if mine and fold(mine) == fold(value):
                    kept[key] = mine
            elif not mine or mine == value:  # nothing printed against it
                kept[key] = value
        return kept

    def venue_fields(self) -> dict[str, str]:
        """Venue, volume, issue and pages for a new work: the printed venue line, else the
        PDF's own (page-checked) record; publisher from the latter only."""
        printed = {"venue": self.venue, "volume": self.volume}
        printed |= {"issue": self.issue, "pages": self.pages}
        source = printed if self.venue else self.embedded.as_record()
        fields = {key: source.get(key) for key in ("venue", "volume", "issue", "pages")}
        fields["publisher"] = self.embedded.publisher
        return {key: str(value) for key, value in fields.items() if value}

    def printed(self) -> dict[str, Any]:
        """JSON-ready record of what the paper printed (kept beside a provider's record)."""
        doi = next((i[4:] for i in self.identifiers if i.startswith("doi:")), None)
        arxiv = next((i[6:] for i in self.identifiers if i.startswith("arxiv:")), None)
        return {
            "title": self.title,
            "authors": list(self.authors),
            "year": self.year,
            "doi": doi,
            "arxiv_id": arxiv,
            "affiliations": list(self.affiliations),
            "abstract": self.abstract,
            "venue": self.venue,
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
        }


log = logging.getLogger(__name__)
_COVER = re.compile(
    r"(?is)(?:jstor.{0,400}stable url|this content downloaded from|"
    r"terms (?:&|and) conditions of use)"
)
_COVER_AUTHORS = re.compile(r"(?im)^\s*Author\(s\):\s*(.+)$")


def title_from_ocr_text(text: str) -> str | None:
    """A scanned page's title: its first paragraph that reads like a title."""
    title = header_from_text(text).title
    return real_title(title) if title else None


def choose_title(printed: str | None, embedded: str | None) -> str | None:
    """The printed title unless the PDF's own (page-checked) title says otherwise.

    Both agreeing (or the embedded one cut short inside the printed one), the printed form
    is kept; a printed guess that is something else (the journal's name set large, a book
    series) gives way to the embedded title, which is printed on page 1 as a whole run of
    lines.
    """
    if not embedded:
        return printed
    if not printed:
        return embedded
    a, b = fold(printed), fold(embedded)
    if a == b or b in a or fuzz.ratio(a, b) >= TITLE_RATIO:
        return printed
    return embedded


def _key(name: str) -> str:
    words = fold(name).split()
    return f"{words[0][0]} {words[-1]}" if len(words) > 1 else " ".join(words)


def _uncapped(name: str) -> str:
    """``ROBERT E. GRUBER`` as ``Robert E. Gruber`` (a name set in capitals)."""
    if any(ch.islower() for ch in name) or sum(ch.isalpha() for ch in name) < 4:
        return name
    return re.sub(r"[^\W\d_]+", lambda m: m.group(0).capitalize(), name)


def _fuller(printed: str, embedded: str) -> bool:
    """Whether the printed name is the embedded one, whole or with more of it printed
    (an initial the metadata left out): same family name, every embedded word in it."""
    mine, theirs = fold(printed).split(), fold(embedded).split()
    return bool(mine and theirs) and mine[-1] == theirs[-1] and set(theirs) <= set(mine)


def choose_authors(printed: list[str], embedded: list[str]) -> list[str]:
    """The byline's names, corrected by the PDF's own (page-checked) creators.

    A trusted embedded list at least as long as the byline's wins (in the byline's
    spelling where the two agree: it keeps accents the metadata often drops); a shorter one
    (often the first author only) only repairs the byline's names it is part of
    (``Divya Daryanani Students`` -> ``Divya Daryanani``).
    """
    printed = [_uncapped(name) for name in printed]
    if not embedded:
        return printed
    if not printed:
        return list(embedded)
    spelled = {fold(name): name for name in printed}
    if len(embedded) == len(printed) and all(map(_fuller, printed, embedded)):
        return printed  # "H. Sebastian Seung" printed, "Sebastian Seung" in the metadata
    if len(embedded) > len(printed) or (
        len(embedded) == len(printed) and [_key(n) for n in embedded] != [_key(n) for n in printed]
    ):
        return [spelled.get(fold(name), name) for name in embedded]
    repaired = []
    for name in printed:
        folded = fold(name)
        better = next((e for e in embedded if folded.startswith(fold(e) + " ")), None)
        repaired.append(better or name)
    return repaired


def _margin_texts(page: HeaderPage | None) -> tuple[str, str]:
    """(rotated lines, top/bottom band lines) of a page: where stamps and running heads are."""
    if page is None:
        return "", ""
    rotated = "\n".join(line.text for line in page.lines if not line.horizontal)
    band = page.height * MARGIN_BAND
    margins = "\n".join(
        line.text
        for line in page.lines
        if line.horizontal and (line.y1 <= band or line.y0 >= page.height - band)
    )
    return rotated, margins


def _header_of(page: HeaderPage | None, text: str, body_size: float) -> Header:
    """The page's header; a layout the heuristics trip over gives an empty one (logged)
    rather than refusing the paper."""
    try:
        if page is not None:
            return parse_header(page, body_size)
        return header_from_text(text) if text else Header()
    except (ValueError, IndexError, KeyError, TypeError, ZeroDivisionError) as exc:
        log.warning("could not read the header of page 1: %s", exc)
        return Header()


def pdf_metadata(
    *,
    info: dict[str, str],
    xmp: str,
    header_pages: list[HeaderPage | None],
    body_size: float,
    page_texts: list[str],
) -> PdfMetadata:
    """Metadata of a parsed PDF.

    ``header_pages`` are pages 1-2 as :class:`HeaderPage` where their text layer was used
    (None where a page was OCR'd); ``page_texts`` every page's Markdown.
    """
    pages = list(header_pages[:2]) + [None] * (2 - len(header_pages[:2]))
    texts = list(page_texts[:2]) + [""] * (2 - len(page_texts[:2]))
    first_text = texts[0] or ("\n".join(line.text for line in pages[0].lines) if pages[0] else "")
    cover = bool(_COVER.search(first_text or "")) and bool(texts[1] or pages[1])
    header = _header_of(pages[1] if cover else pages[0], texts[1] if cover else texts[0], body_size)
    notes = list(header.notes)
    if cover:
        notes += [*_header_of(pages[0], texts[0], body_size).notes, first_text or ""]
        if not header.authors:
            match = _COVER_AUTHORS.search(first_text or "")
            header.authors = (names_in_byline(match.group(1)) or []) if match else []

    # line by line (the Markdown joins a paragraph's lines): a copyright, how-to-cite or
    # Received/Published line dates the paper wherever it stands on page 1
    lines_one = "\n".join(line.text for line in pages[0].lines) if pages[0] else ""
    notes += dating_lines(lines_one or first_text or "")
    page_one = pages[1] if cover else pages[0]
    embedded = embedded_record(info, xmp, page_one, texts[1] if cover else first_text)
    title = choose_title(real_title(header.title or ""), embedded.title)
    title = title or plausible_title(info.get("title", ""))
    authors = choose_authors(header.authors, embedded.authors)
    authors = authors or split_authors(info.get("author", ""))

    order = [1, 0] if cover else [0, 1]
    sources = ["\n".join(info.get(k, "") for k in ("title", "subject", "keywords")), xmp]
    for index in order:
        rotated, margins = _margin_texts(pages[index])
        scanned = pages[index] is None
        sources += [rotated, margins, ocr_stamp(texts[index]) if scanned else texts[index]]
    sources.append(cite_boxes(page_texts))
    identifiers = find_own_identifiers(sources)

    venue = find_venue([_margin_texts(page_one)[1], *header.notes])
    found = printed_year(notes, prefer=doi_year(identifiers))
    year = found[0] if found and found[1] <= 1 else None
    year = year or embedded.year or (found[0] if found and found[1] <= 2 else None)
    year = year or arxiv_year(identifiers) or (found[0] if found else None)
    return PdfMetadata(
        title=title,
        authors=authors,
        year=year,
        identifiers=identifiers,
        affiliations=header.affiliations,
        abstract=header.abstract,
        venue=venue.venue if venue else None,
        volume=venue.volume if venue else None,
        issue=venue.issue if venue else None,
        pages=venue.pages if venue else None,
        embedded=embedded,
    )
