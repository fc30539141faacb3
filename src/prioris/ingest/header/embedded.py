"""What a PDF says about itself in its Info dictionary and XMP packet, checked against page 1.

Embedded metadata is right more often than a header heuristic on the papers publishers
made (``dc:title``, ``dc:creator``, ``prism:doi``, ``prism:publicationName``), and wrong
in ways of its own on the rest: ``Microsoft Word - draft3.docx``, ``untitled``, a file
name, a typesetter's job number (``418578_1_En_BookFrontmatter 1..11``), author
``Administrator`` or the login of whoever made the file. So a field is *trusted* only
when the first page agrees with it:

* the title must read like one (:func:`~prioris.ingest.header.metadata.real_title` and
  no job numbers) and match, near enough (rapidfuzz ratio >= 90 after folding case,
  accents and punctuation), a run of consecutive lines of page 1 as a whole, so a phrase
  that only occurs inside a sentence or a keyword list ("Lyapunov functions") is no
  title;
* each creator must be a full name (two words or more) whose every word is printed on
  page 1; one name that is not there drops the whole list (it is then not this paper's);
* the venue, volume, issue, pages and DOI are kept when the record says them; a year only
  when that year is printed on page 1.

:func:`embedded_record` returns the trusted fields only; :mod:`~prioris.ingest.header.metadata`
prefers them over a weaker printed guess and keeps them apart as the ``pdf_metadata``
record.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from prioris.ingest.header.layout import HeaderLine, HeaderPage
from prioris.ingest.header.names import looks_like_name, split_byline

TITLE_RATIO = 90.0  # rapidfuzz ratio between the embedded title and a run of page-1 lines
_RUN_LINES = 6  # a title is printed on at most this many lines

_JOB_TITLE = re.compile(
    r"\d+\.\.\d+\s*$|^\d[\d_ -]{5,}|frontmatter|backmatter|^front matter$|^back matter$|"
    r"^doi:|^opmaak\b|^layout \d|^paper\.|\.(?:dvi|pdf)$|^\(?microsoft (?:word|powerpoint)",
    re.IGNORECASE,
)
_JUNK_CREATORS = re.compile(
    r"^(?:admin(?:istrator)?|user|owner|author|unknown|default|guest|root|editor|"
    r"pc|hp|dell|lenovo|microsoft|ibm|acrobat|adobe)$",
    re.IGNORECASE,
)
_ET_AL = re.compile(r"\{?\bet\.?\s+al\.?\}?", re.IGNORECASE)
_LI = re.compile(r"<rdf:li\b[^>]*>(.*?)</rdf:li>", re.S)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_JUNK_TITLES = re.compile(
    r"^(?:microsoft (?:word|powerpoint|excel) - |untitled|title$|document\d*$|slide \d+|"
    r"(?:main|paper|manuscript|draft|article|preprint)$)",
    re.IGNORECASE,
)
_FILE_SUFFIX = re.compile(r"\.(?:pdf|docx?|tex|dvi|ps|eps|rtf|odt|indd|qxd)$", re.IGNORECASE)


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


def split_authors(raw: str) -> list[str]:
    """The info dictionary's author field as names; junk (``admin``, ``et al.``) dropped.

    ``;`` separates names when present, so ``"Lovelace, Ada; Turing, Alan"`` keeps its
    family-first names.
    """
    raw = re.sub(r"\([^)]*\)|\{[^}]*\}|\bet\.? al\.?", " ", raw)
    if ";" in raw:
        names = [" ".join(part.split()) for part in raw.split(";")]
        return [
            name
            for name in names
            if looks_like_name(" ".join(reversed(name.split(",", 1))).replace(",", " "))
        ]
    return [name for name in split_byline(raw) if looks_like_name(name)]


def fold(text: str) -> str:
    """Letters and digits only, lower case, no accents: the form texts are compared in."""
    text = unicodedata.normalize("NFKD", html.unescape(text or "")).casefold()
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Mn", "Sk", "Lm"))
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def _xmp_tag(xmp: str, tag: str) -> str | None:
    """The text of ``<tag>…</tag>`` (or its first ``rdf:li``), markup and entities removed."""
    match = re.search(rf"<{tag}\b[^>]*?(?:/>|>(.*?)</{tag}>)", xmp, re.S)
    if match is None or match.group(1) is None:
        attribute = re.search(rf'\b{tag}="([^"]*)"', xmp)
        return _text(attribute.group(1)) if attribute else None
    inner = match.group(1)
    items = _LI.findall(inner)
    return _text(items[0] if items else inner)


def _xmp_list(xmp: str, tag: str) -> list[str]:
    match = re.search(rf"<{tag}\b[^>]*>(.*?)</{tag}>", xmp, re.S)
    if match is None:
        return []
    items = _LI.findall(match.group(1)) or [match.group(1)]
    return [text for text in (_text(item) for item in items) if text]


def _text(raw: str) -> str | None:
    text = html.unescape(re.sub(r"<[^>]+>", " ", raw))
    text = " ".join(text.replace("\u00a0", " ").split())
    return text or None


@dataclass
class EmbeddedFields:
    """Everything the Info dictionary and XMP packet offer, before any check."""

    titles: list[str] = field(default_factory=list)
    creators: list[list[str]] = field(default_factory=list)  # one list per source
    doi: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    dates: list[str] = field(default_factory=list)  # texts that may carry the year


def read_embedded(info: dict[str, str], xmp: str) -> EmbeddedFields:
    """The candidate fields of the Info dictionary and the XMP packet (XMP first)."""
    found = EmbeddedFields()
    for title in (_xmp_tag(xmp, "dc:title"), _text(info.get("title", "") or "")):
        if title and title not in found.titles:
            found.titles.append(title)
    creators = _xmp_list(xmp, "dc:creator")
    if len(creators) == 1:  # one item holding every name ("A; B", "A, B and C")
        creators = split_authors(_ET_AL.sub(" ", creators[0]))
    else:
        creators = [_ET_AL.sub(" ", name).strip() for name in creators]
    for names in (creators, split_authors(_ET_AL.sub(" ", info.get("author", "") or ""))):
        names = [_family_last(name) for name in names if name.strip()]
        if names and names not in found.creators:
            found.creators.append(names)
    found.doi = next(
        (v for t in ("prism:doi", "pdfx:doi", "crossmark:DOI") if (v := _xmp_tag(xmp, t))), None
    )
    found.venue = _xmp_tag(xmp, "prism:publicationName")
    found.volume = _xmp_tag(xmp, "prism:volume")
    found.issue = _xmp_tag(xmp, "prism:number") or _xmp_tag(xmp, "prism:issueIdentifier")
    first, last = _xmp_tag(xmp, "prism:startingPage"), _xmp_tag(xmp, "prism:endingPage")
    page_range = _xmp_tag(xmp, "prism:pageRange")
    found.pages = f"{first}-{last}" if first and last and first != last else page_range or first
    found.publisher = _xmp_tag(xmp, "dc:publisher")
    for tag in ("prism:coverDate", "prism:coverDisplayDate", "prism:publicationDate"):
        value = _xmp_tag(xmp, tag)
        if value:
            found.dates.append(value)
    subject = _text(info.get("subject", "") or "")
    if subject and len(subject) < 200:  # "J. ACM 1985.32:374-382", "acl 2020"
        found.dates.append(subject)
    return found


def _family_last(name: str) -> str:
    """``Stein Shiromoto, Humberto`` as ``Humberto Stein Shiromoto``."""
    name = " ".join(name.split())
    if name.count(",") == 1:
        family, given = (part.strip() for part in name.split(","))
        if given and family and not re.search(r"\b(?:jr|sr|ii|iii)\.?$", given, re.I):
            return f"{given} {family}"
    return name


def plausible_title(title: str) -> str | None:
    """The title unless it is junk (a file name, a Word default, a typesetter's job)."""
    title = real_title(title) or ""
    return None if not title or _JOB_TITLE.search(title) else title


def good_title(title: str) -> str | None:
    """A plausible title of two words or more (what may stand in for a printed one)."""
    title = plausible_title(title) or ""
    if not title or len(fold(title).split()) < 2:
        return None  # "Bigtable", "MapReduce": a short name, not the title
    return title


def _runs(lines: list[HeaderLine]) -> list[str]:
    """Texts of every run of 1.._RUN_LINES consecutive lines of the page (reading order)."""
    ordered = [ln for ln in lines if ln.horizontal and ln.text]
    ordered.sort(key=lambda ln: (ln.block, ln.y0, ln.x0))
    texts = [ln.text for ln in ordered]
    runs = []
    for start in range(len(texts)):
        for end in range(start + 1, min(start + _RUN_LINES, len(texts)) + 1):
            runs.append(" ".join(texts[start:end]))
    return runs


def title_on_page(title: str, page: HeaderPage | None, text: str) -> bool:
    """Whether the title is printed on the page as a whole run of lines (not inside one)."""
    wanted = fold(title)
    if not wanted:
        return False
    if page is not None:
        candidates = _runs(page.lines)
    else:
        lines = [ln.strip(" #*") for ln in text.splitlines() if ln.strip()]
        candidates = [
            " ".join(lines[i:j])
            for i in range(len(lines))
            for j in range(i + 1, min(i + _RUN_LINES, len(lines)) + 1)
        ]
    for candidate in candidates:
        folded = fold(candidate)
        if abs(len(folded) - len(wanted)) > 0.25 * len(wanted) + 4:
            continue
        if folded == wanted or fuzz.ratio(folded, wanted) >= TITLE_RATIO:
            return True
    return False


def names_on_page(names: list[str], page_words: set[str]) -> bool:
    """Whether every name is a full name whose words are all printed on the page."""
    if not names:
        return False
    for name in names:
        if "@" in name or _JUNK_CREATORS.match(name.strip()):
            return False
        words = [w for w in fold(name).split() if len(w) > 1]
        if len(name.split()) < 2 or not words or not looks_like_name(name):
            return False
        if not all(word in page_words for word in words):
            return False
    return True


@dataclass
class EmbeddedRecord:
    """The trusted fields of a PDF's own metadata (None / empty where not trusted)."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doi: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None

    def as_record(self) -> dict[str, Any]:
        """JSON-ready record of the trusted fields only (``records['pdf_metadata']``)."""
        record: dict[str, Any] = {
            "title": self.title,
            "authors": list(self.authors) or None,
            "year": self.year,
            "doi": self.doi,
            "venue": self.venue,
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
            "publisher": self.publisher,
        }
        return {key: value for key, value in record.items() if value}


def embedded_record(
    info: dict[str, str], xmp: str, page: HeaderPage | None, page_text: str
) -> EmbeddedRecord:
    """The Info/XMP fields the first page agrees with."""
    fields = read_embedded(info, xmp)
    lines_text = "\n".join(ln.text for ln in page.lines) if page is not None else ""
    all_text = f"{lines_text}\n{page_text}"
    words = set(fold(all_text).split())
    record = EmbeddedRecord()
    for title in fields.titles:
        if good_title(title) and title_on_page(title, page, page_text):
            record.title = " ".join(title.split())
            break
    for names in fields.creators:
        if names_on_page(names, words):
            record.authors = names
            break
    if fields.doi and re.match(r"^10\.\d{4,9}/\S+$", fields.doi):
        record.doi = fields.doi
    printed_years = set(_YEAR.findall(all_text))
    for text in fields.dates:
        years = [y for y in _YEAR.findall(text) if y in printed_years]
        if years:
            record.year = int(years[0])
            break
    venue = fields.venue
    if venue and fold(venue) and fold(venue) in fold(all_text):
        record.venue = venue
        record.volume = fields.volume
        record.issue = fields.issue
        record.pages = fields.pages
    if fields.publisher and fold(fields.publisher) in fold(all_text):
        record.publisher = fields.publisher
    return record
