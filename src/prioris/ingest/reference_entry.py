"""One reference entry parsed: authors, title, year, venue, DOI, arXiv id, URL.

Given one entry's printed text (cut by :mod:`prioris.ingest.reference_list`),
:func:`parse_entry` tells its fields apart in each style a list is printed in: a quoted
title (``A. Smith, "Title," in Venue``), author-year (``Smith J, Jones B. 2019. Title.``),
authors then a full stop or a colon, family names with initials, comma-separated
``H. Smith`` names. Its identifiers are read first (:mod:`prioris.ingest.reference_ids`).
What it cannot tell stays None; the raw text is kept. Separate from finding the list
because it never sees more than one entry. Pure ``re``.
"""

from __future__ import annotations

import re

from prioris.ingest.reference_ids import read_identifiers
from prioris.ingest.reference_text import (
    MAX_FIELD_CHARS,
    MAX_RAW_CHARS,
    YEAR,
    author_prefix,
)
from prioris.ingest.reference_title import title_problem
from prioris.models import Reference

_QUOTED = re.compile(
    r"[\u201c\u201d\"\u201e]\s*(.+?)\s*(?:[\u201d\u201c\"]|,''|'')|``\s*(.+?)\s*''"
)
_INITIALS = re.compile(r"^(?:(?:[A-Z\u00c0-\u00de]\.?|[A-Z][a-z]\.)\s?-?){1,4}$")


def _segments(text: str) -> list[str]:
    """The entry cut at its sentence ends (``. `` not after an initial or an abbreviation;
    ``? `` and ``! ``), each kept with its text."""
    parts: list[str] = []
    start = 0
    for match in re.finditer(r"(?<=[.?!])\s+", text):
        before = text[start : match.start()]
        last = before.rsplit(None, 1)[-1] if before.split() else ""
        word = last.rstrip(".")
        if before.endswith(".") and (
            len(word) <= 1
            or re.fullmatch(
                r"(?:[A-Z]\.?-?)+|[A-Z][a-z]?|al|vol|no|pp|eds?|Proc|Jr|Sr|St|Inc|Conf|Int|J|Tech|rep|Univ|Dept",
                word,
            )
        ):
            continue
        parts.append(before.strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def split_authors(text: str) -> list[str]:
    """An author list as names: ``A. Smith, B. Jones and C. Lee``, ``Smith, J., Jones, B.``
    (family name first: each family name joined to its initials), ``Smith J, Jones B``;
    ``et al.`` dropped."""
    text = re.sub(r"\bet\.? al\.?", "", text)
    text = re.sub(r"^[\s,.;]+|[\s,;:]+$", "", text)
    text = re.sub(r"(?<![A-Z])\.$", "", text)  # a full stop, not an initial's
    parts = [p.strip() for p in re.split(r"(?i:,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|;\s*)", text)]
    parts = [p for p in parts if p and p.lower() not in ("and", "others")]
    names: list[str] = []
    for part in parts:
        if (
            names
            and _INITIALS.match(part)
            and not _INITIALS.match(names[-1])
            and " " not in names[-1]
        ):
            names[-1] = f"{names[-1]}, {part}"
        else:
            names.append(part)
    return [n[:120] for n in names if re.search(r"[A-Za-z\u00c0-\u024f]", n)][:100]


def _clean_field(value: str | None) -> str | None:
    if not value:
        return None
    value = re.sub(r"^\s*(?:In:?|in:)\s+", "", value.strip())
    value = value.strip(" ,.;:\u201c\u201d\"'`-\u2013\u2014")
    return value[:MAX_FIELD_CHARS] or None


_INITIALS_END = re.compile(
    r"(?<=[\s,])(?:[A-Z]{1,3}|[A-Z]\.(?:\s?-?[A-Z]\.)*)\.?,?\s(?=[A-Z\u00c0-\u017f\"\u201c])"
)
_NAME_WITH_INITIALS = re.compile(
    r"^\s*(?:[A-Z]\.\s?-?)+\s?[A-Z\u00c0-\u017f][\w'\u2019-]+(?:\s[A-Z\u00c0-\u017f][\w'\u2019-]+)?\s*$"
)


def _initials_end(text: str) -> int | None:
    """Where an author list whose last name ends with initials ends (``Smith J, Lee KA.
    Title``, ``LAMPSON, B., AND STURGIS, H. Crash``): the last such place whose prefix is
    still an author list, or None."""
    best = None
    for match in _INITIALS_END.finditer(text, 0, 600):
        if not author_prefix(text[: match.start() + len(match.group(0).rstrip(" ,"))]):
            break
        if not re.match(r"[\w'\u2019-]+(?:\s[\w'\u2019-]+)?,", text[match.end() :]):
            best = match.end()  # not "J. Smith," (a name): the list may end here
    return best


def _comma_names_end(text: str) -> int | None:
    """Where a comma-separated list of ``H. Smith`` names ends and the title begins
    (``H. Stein Shiromoto, P. Feketa, Example demonstrating ...``), or None."""
    end = None
    pos = 0
    for part in text[:600].split(","):
        if _NAME_WITH_INITIALS.match(part) or (end and re.match(r"^\s*and\s", part)):
            pos += len(part) + 1
            end = pos
        else:
            break
    return end if end and end < len(text) else None


def _read_again(
    text: str, title: str | None, venue: str | None, authors: list[str]
) -> tuple[str | None, str | None, list[str]]:
    """A title that is no title, read again (issue 39): an author list is taken as the
    authors and the next sentence as the title (``Smith J. Lee K. Title. Venue``); a
    citation string or a venue's name is no title (the entry is shown by its raw text)."""
    for _ in range(3):
        if not title or title_problem(title) != "names":
            break
        authors = authors or split_authors(title)
        at = text.find(title)
        rest = text[at + len(title) :] if at >= 0 else ""
        parts = _segments(rest.lstrip(" .,:;"))
        title = parts[0] if parts else None
        venue = parts[1] if len(parts) > 1 else venue
        if title and YEAR.fullmatch(title.strip(" .()")):
            title, venue = venue, None  # "(2019)." between the names and the title
    problem = title_problem(title)
    if problem:
        return None, venue or (title if problem == "venue" else None), authors
    return title, venue, authors


def parse_entry(raw: str, ordinal: int) -> Reference:
    """One entry's fields; what it cannot tell stays None (the raw text is kept)."""
    raw = " ".join(raw.split())[:MAX_RAW_CHARS]
    # a DOI or URL broken at a line end ("10.4060/ cb2409en", "http:// www.fao.org")
    doi, arxiv, url, text = read_identifiers(re.sub(r"(\b10\.\d{4,9}/|\bhttps?://)\s+", r"\1", raw))
    text = re.sub(
        r"\[Online\]\.?|Available(?: online)?(?: at| from)?:?|\bURL:?(?=\s{2,}|\s*$)|\bDOI\b:?",
        " ",
        text,
    )
    text = " ".join(text.split())
    years = [m for m in YEAR.finditer(text)]
    year: int | None = None
    authors: list[str] = []
    title = venue = None
    quoted = _QUOTED.search(text)
    if quoted and len(quoted.group(1) or quoted.group(2) or "") >= 8:
        title = quoted.group(1) or quoted.group(2)
        authors = split_authors(text[: quoted.start()])
        venue = text[quoted.end() :]
    elif years and author_prefix(text[: years[0].start()].rstrip(" .,(")):
        # author-year: "Smith J, Jones B. 2019. Title. Venue" / "Smith, J. (2019). Title."
        first = years[0]
        authors = split_authors(text[: first.start()].rstrip(" (,."))
        parts = _segments(text[first.end() :].lstrip(" ).,:"))
        title = parts[0] if parts else None
        venue = parts[1] if len(parts) > 1 else None
        year = int(first.group(0)[:4])
    else:
        parts = _segments(text)
        head, sep, tail = text.partition(": ")
        if parts and author_prefix(parts[0]):  # "A. Smith and B. Lee. Title. Venue"
            authors = split_authors(parts[0])
            parts = parts[1:]
        elif sep and author_prefix(head) and len(head) < 300:  # "Smith, J., Lee, K.: Title."
            authors = split_authors(head)
            parts = _segments(tail)
        elif (split := _initials_end(text)) is not None:  # "Smith J, Lee K. Title. Venue"
            authors = split_authors(text[:split])
            rest = text[split:].lstrip(" .")
            if text[:split].rstrip().endswith(","):  # "Smith J. and Lee K., Title, Venue"
                title_end = re.search(r",\s", rest)
                parts = (
                    [rest[: title_end.start()], rest[title_end.end() :]] if title_end else [rest]
                )
            else:
                parts = _segments(rest)
        elif (split := _comma_names_end(text)) is not None:  # "J. Smith, K. Lee, Title, J"
            authors = split_authors(text[:split])
            rest = text[split:].lstrip(" ,")
            title_end = re.search(r",\s|\.\s", rest)
            parts = [rest[: title_end.start()], rest[title_end.end() :]] if title_end else [rest]
        title = parts[0] if parts else None
        venue = parts[1] if len(parts) > 1 else None
    if year is None and years:
        # the last year that is not in a page range ("1984–1990") or a volume ("2010:66")
        plain = [
            m
            for m in years
            if text[m.start() - 1 : m.start()] not in ("\u2013", "-", ":")
            and not re.match(r"[\u2013-]\d", text[m.end() : m.end() + 2])
        ]
        year = int((plain or years)[-1].group(0)[:4])
    if venue:
        venue = re.split(r",?\s*(?:vol\.|pp\.|pages|\d{1,4}\s*\(|\(?(?:1[89]|20)\d\d)", venue)[0]
    if title and (YEAR.fullmatch(title.strip(" .")) or re.fullmatch(r"\W*\w{1,5}\W*", title)):
        title = None  # a year or an abbreviation ("Phys. Rev. D 53"): no title printed
    title, venue, authors = _read_again(text, title, venue, authors)
    return Reference(
        ordinal=ordinal,
        raw=raw,
        authors=authors,
        title=_clean_field(title),
        year=year,
        venue=_clean_field(venue),
        doi=doi,
        arxiv=arxiv,
        url=url[:MAX_FIELD_CHARS] if url else None,
    )
