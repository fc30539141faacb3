"""A paper's header from plain text, for first pages that were OCR'd (no fonts, no layout).

Tesseract's Markdown has one paragraph per line, in its own reading order, with the
superscript markers of a byline turned into stray characters (``Kowalski!``,
``Webb’``, ``Theurer*”``). The byline is the anchor: the first paragraph before the
abstract that reads as a list of names (markers and e-mail addresses read as
separators; an affiliation glued to its end is cut off) fixes where the header is. The
title is the title-like paragraph just above it (an article-type label in front
removed), and the authors are every byline paragraph between the title and the abstract
(a grid of names comes out one column at a time, so their order may differ from the
page). Without a byline the title is the first title-like line, as for any scan.
"""

from __future__ import annotations

import re

from prioris.ingest.header.cues import ABSTRACT, AFFILIATION, HEADING, LABEL
from prioris.ingest.header.layout import Header
from prioris.ingest.header.names import MARK, looks_like_name, split_byline

HEADER_PARAGRAPHS = 25  # the abstract of a first page starts before this paragraph
_OCR_MARKERS = re.compile(
    r"(?<=[^\W\d_])[*!?‘’'”\"+#$§¶†‡°®©™¹²³⁴⁵⁶⁷⁸⁹⁰]+(?=[\s,;]|$)"
    r"|(?<=\s)[*!?‘’'”+#$§¶†‡®©™]+(?=\s)"
)
_OCR_EMAIL = re.compile(r"\{[^}]*\}\s?@\s?\S+|\S+\s?@\s?\S+|\be-?mail\s*:?", re.IGNORECASE)
_INSTITUTION = re.compile(
    r"^(?:universit|institut|department|cent(?:er|re)|laborator|school|college|faculty|"
    r"hospital|academy)",
    re.IGNORECASE,
)
_LEADING_LABEL = re.compile(
    r"^(?:(?:original|research|review|short|brief)\s+(?:article|paper|communication|report)"
    r"|research article|open access)\s+",
    re.IGNORECASE,
)


def ocr_byline(paragraph: str) -> list[str] | None:
    """The names of an OCR'd byline, or None when the paragraph is not one.

    Names must come first; whatever follows them must be an affiliation or an address
    (tesseract often glues those to the byline), else most pieces must be names.
    """
    text = _OCR_EMAIL.sub(MARK, _OCR_MARKERS.sub(MARK, paragraph))
    pieces = split_byline(text)
    leading = 0
    while leading < len(pieces) and looks_like_name(pieces[leading]):
        leading += 1
    if 0 < leading < len(pieces):  # "A B, Marco Baroni Center for Mind/Brain Sciences"
        name = _name_before_affiliation(pieces[leading])
        if name:
            pieces = [*pieces[:leading], name, pieces[leading][len(name) :].strip()]
            leading += 1
    if not leading:
        return None
    rest = pieces[leading:]
    if rest and leading < 0.75 * len(pieces) and not AFFILIATION.search(rest[0]):
        return None
    names = [p for p in pieces if looks_like_name(p)] if leading >= 0.75 * len(pieces) else []
    return names or pieces[:leading]


def _name_before_affiliation(piece: str) -> str | None:
    """The name at the start of a piece that runs on into an affiliation, if any."""
    words = piece.split()
    for cut in range(2, min(len(words) - 1, 6) + 1):
        if _INSTITUTION.match(words[cut]):
            name = " ".join(words[:cut])
            return name if looks_like_name(name) else None
    return None


def _looks_like_title(line: str, *, max_words: int = 20, max_chars: int = 200) -> bool:
    """A few words starting with a capital, mostly letters, not a sentence cut short."""
    words = line.split()
    letters = sum(ch.isalpha() or ch.isspace() for ch in line)
    real_words = [w for w in words if sum(ch.isalpha() for ch in w) >= 3]
    return (
        2 <= len(words) <= max_words
        and (line[0].isupper() or line[0].isdigit())
        and len(line) <= max_chars
        and letters >= 0.7 * len(line)
        and len(real_words) >= 2
        and not line.endswith((",", "-", ";"))
        and not LABEL.match(line)
        and "@" not in line
    )


def header_from_text(text: str) -> Header:
    """Title, authors, affiliations and abstract from an OCR'd first page's text."""
    paragraphs = [" ".join(line.strip(" #*").split()) for line in text.splitlines()]
    paragraphs = [p for p in paragraphs if p]
    header = Header()
    end = next(
        (
            i
            for i, p in enumerate(paragraphs[:HEADER_PARAGRAPHS])
            if ABSTRACT.match(p) or HEADING.match(p)
        ),
        min(len(paragraphs), 15),
    )
    bylines = [i for i in range(end) if ocr_byline(paragraphs[i])]
    title_at = None
    if bylines:
        for i in range(bylines[0] - 1, -1, -1):
            candidate = _LEADING_LABEL.sub("", paragraphs[i])
            if LABEL.match(paragraphs[i]):
                continue
            if _looks_like_title(candidate, max_words=40, max_chars=320):
                title_at, header.title = i, candidate
            break
    if title_at is None:
        for i, paragraph in enumerate(paragraphs[:3]):
            if _looks_like_title(paragraph):
                title_at, header.title = i, paragraph
                break
    if title_at is not None:
        for i in range(title_at + 1, end):
            names = ocr_byline(paragraphs[i])
            if names:
                header.authors.extend(n for n in names if n not in header.authors)
            elif AFFILIATION.search(paragraphs[i]) and "@" not in paragraphs[i]:
                header.affiliations.append(paragraphs[i])
    for index, paragraph in enumerate(paragraphs):
        match = ABSTRACT.match(paragraph)
        if match:
            body = match.group(1) or (paragraphs[index + 1] if index + 1 < len(paragraphs) else "")
            header.abstract = body or None
            break
    # the header, and the short paragraphs (footnotes, running heads); body text is long
    header.notes = paragraphs[:end] + [p for p in paragraphs[end + 1 :] if len(p) <= 300]
    return header
