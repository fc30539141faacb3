"""Bibliographic hints from a PDF itself: title, authors, year and its own identifiers.

Pure functions over what :mod:`prioris.ingest.pdf` read: the info dictionary, the XMP
packet, the page-1 layout and the first pages' Markdown. Identifiers become aliases of a
work, and a wrong alias would merge two papers, so only one DOI and one arXiv id are kept,
each from the most trustworthy place it appears: the metadata (publishers put
``prism:doi`` in XMP), then page 1's rotated margin text (the arXiv stamp), page 1's
header and footer, page 1's text, and last page 2. References sections and
``arXiv preprint arXiv:...`` citations are not searched.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from prioris.identifiers import find_identifiers_in_text
from prioris.ingest.pdf_layout import PageLayout, find_title_lines, in_margin, join_lines


@dataclass
class PdfMetadata:
    """Bibliographic hints found in the PDF itself (the info dictionary and pages 1-2)."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    identifiers: list[str] = field(default_factory=list)


_JUNK_TITLES = re.compile(
    r"^(?:microsoft (?:word|powerpoint|excel) - |untitled|title$|document\d*$|slide \d+|"
    r"(?:main|paper|manuscript|draft|article|preprint)$)",
    re.IGNORECASE,
)
_FILE_SUFFIX = re.compile(r"\.(?:pdf|docx?|tex|dvi|ps|eps|rtf|odt|indd|qxd)$", re.IGNORECASE)
_JUNK_AUTHORS = {"administrator", "admin", "user", "owner", "unknown", "author", "authors"}
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
_REFERENCES = re.compile(r"(?im)^(?:#{1,3}\s*)?(?:\d+\.?\s*)?(?:references|bibliography)\s*$")
_CITED_PREPRINT = re.compile(r"(?i)arxiv\s+preprint\s*,?\s*(?:arxiv\s*:\s*)?\S+")


def real_title(title: str) -> str | None:
    """The title if it looks like one: not empty, not a file name, not a Word default."""
    title = " ".join(title.split())
    if len(title) < 4 or sum(ch.isalpha() for ch in title) < 4 or len(title) > 300:
        return None
    if _JUNK_TITLES.match(title) or _FILE_SUFFIX.search(title):
        return None
    if " " not in title and re.search(r"[_/\\]|\.\w{2,4}$", title):
        return None  # report_v3_final, C:\papers\x, draft.v2
    return title


def title_from_ocr_text(text: str, *, lines_to_try: int = 3) -> str | None:
    """A scanned page's title: one of its first lines, if it reads like a title (2-15
    words starting with a capital, mostly letters, at least two real words, not a
    sentence cut by a comma)."""
    candidates = [line.strip(" #*") for line in text.splitlines() if line.strip(" #*")]
    for line in candidates[:lines_to_try]:
        words = line.split()
        letters = sum(ch.isalpha() or ch.isspace() for ch in line)
        real_words = [w for w in words if sum(ch.isalpha() for ch in w) >= 3]
        if (
            2 <= len(words) <= 15
            and (line[0].isupper() or line[0].isdigit())
            and len(line) <= 150
            and letters >= 0.7 * len(line)
            and len(real_words) >= 2
            and not line.endswith((",", "-", ";"))
        ):
            return real_title(line)
    return None


def split_authors(raw: str) -> list[str]:
    """``"A; B"`` or ``"A, B and C"`` -> names (``;`` wins, so ``"Last, First; ..."`` works)."""
    separators = r"\s*;\s*|\s+and\s+|\s*&\s*" if ";" in raw else r"\s*,\s*|\s+and\s+|\s*&\s*"
    names = [" ".join(part.split()) for part in re.split(separators, raw.strip())]
    return [
        name
        for name in names
        if len(name) >= 2 and any(c.isalpha() for c in name) and name.lower() not in _JUNK_AUTHORS
    ]


def find_year(creation_date: str, first_page_text: str) -> int | None:
    """Year of the info dictionary's creation date, else a plausible year atop page 1."""
    this_year = time.gmtime().tm_year
    match = re.match(r"^(?:D:)?(\d{4})", creation_date.strip())
    if match and 1900 <= int(match.group(1)) <= this_year + 1:
        return int(match.group(1))
    for found in _YEAR.finditer(first_page_text[:2000]):
        year = int(found.group(1))
        if year <= this_year + 1:
            return year
    return None


def _searchable(text: str) -> str:
    cut = _REFERENCES.search(text)
    if cut:
        text = text[: cut.start()]
    return _CITED_PREPRINT.sub(" ", text)


def find_own_identifiers(sources: list[str]) -> list[str]:
    """At most one DOI and one arXiv id, each from the first source (most trusted) having one."""
    best: dict[str, str] = {}
    for text in sources:
        for ident in find_identifiers_in_text(_searchable(text)):
            best.setdefault(ident.scheme, ident.canonical)
    return [best[scheme] for scheme in ("doi", "arxiv") if scheme in best]


def pdf_metadata(
    *,
    info: dict[str, str],
    xmp: str,
    first_layout: PageLayout | None,
    body_size: float,
    page_texts: list[str],
) -> PdfMetadata:
    """Metadata of a parsed PDF; ``first_layout`` is page 1's text layer when usable."""
    title = real_title(info.get("title", ""))
    if title is None and first_layout is not None:
        lines = find_title_lines(first_layout, body_size)
        title = real_title(join_lines([line.text for line in lines]))
    if title is None and first_layout is None and page_texts:
        title = title_from_ocr_text(page_texts[0])  # a scan: no fonts to go by
    sources = ["\n".join(info.get(k, "") for k in ("title", "subject", "keywords")), xmp]
    if first_layout is not None:
        lines = [line for block in first_layout.blocks for line in block.lines]
        sources.append("\n".join(line.text for line in lines if not line.horizontal))
        sources.append(
            "\n".join(line.text for line in lines if in_margin(line, first_layout.height))
        )
    sources.extend(page_texts[:2])
    return PdfMetadata(
        title=title,
        authors=split_authors(info.get("author", "")),
        year=find_year(info.get("creationDate", ""), page_texts[0] if page_texts else ""),
        identifiers=find_own_identifiers(sources),
    )
