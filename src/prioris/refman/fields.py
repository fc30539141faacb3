"""What the BibTeX and RIS readers share: reading the file, cleaning values, dates, keys.

A .bib or .ris file is whatever a reference manager, a colleague or a web page wrote:
any encoding, stray control characters, dates in several spellings, identifiers with and
without their URL prefix. The helpers here turn those into the record form of
:mod:`prioris.refman.items` the same way for both formats, so an item reads the same
whichever file it came from.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError
from prioris.identifiers import arxiv_id_from_doi, normalise_arxiv, normalise_doi
from prioris.regular_files import read_regular
from prioris.strings import without_surrogates
from prioris.text_clean import clean_text

MAX_FILE_BYTES = 256 * 1024 * 1024
"""A reference file larger than this is refused (a 10,000-entry .bib is about 10 MB)."""

MIN_YEAR, MAX_YEAR = 1000, 2999
"""The years :mod:`prioris.provenance` accepts; anything else is no year."""


# -- the file -------------------------------------------------------------------------------
def read_text(path: Path, *, kind: str) -> tuple[str, str]:
    """The text of a reference file and the encoding it was read in.

    UTF-8 (with or without a byte-order mark) and UTF-16 with its mark are read as such.
    A file that is not UTF-8 is read as Windows-1252 (what JabRef and EndNote wrote on
    Windows; every byte is a character there or in Latin-1, so nothing is refused): the
    caller notes the encoding on each item. Line ends become ``\\n``, so line numbers are
    those an editor shows. ``kind`` names the format in messages ("BibTeX", "RIS").
    Missing file: NotFoundError; a folder, an unreadable or a binary file:
    InvalidRequestError; above :data:`MAX_FILE_BYTES`: FileTooLargeError.
    """
    try:
        if path.is_dir():
            raise InvalidRequestError(f"{path} is a folder, not a {kind} file")
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise NotFoundError(f"no such {kind} file: {path}") from exc
    except (OSError, ValueError) as exc:
        raise InvalidRequestError(f"cannot read {kind} file {path}: {exc}") from exc
    if size > MAX_FILE_BYTES:
        raise FileTooLargeError(
            f"{path} is {size} bytes; a {kind} file may have at most {MAX_FILE_BYTES}"
        )
    try:  # a regular file only: a FIFO given as the file would wait forever
        data = read_regular(path, MAX_FILE_BYTES)
    except (InvalidRequestError, NotFoundError) as exc:
        raise InvalidRequestError(f"cannot read {kind} file: {exc.message}") from exc
    text, encoding = decode(data, name=str(path), kind=kind)
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def decode(data: bytes, *, name: str, kind: str) -> tuple[str, str]:
    """``data`` as text (see :func:`read_text`); a binary file is InvalidRequestError."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as exc:
            raise InvalidRequestError(f"{name} is not valid UTF-16 ({exc.reason})") from exc
    head = data[:8192]
    if head.count(0) > max(1, len(head) // 10):
        raise InvalidRequestError(
            f"{name} is not a {kind} text file (binary content; UTF-16 without a "
            "byte-order mark is not read)"
        )
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


# -- values ---------------------------------------------------------------------------------
def clean_line(value: Any) -> str:
    """One line of text fit to store: no control characters, NFC, whitespace folded."""
    if value is None:
        return ""
    text = clean_text(without_surrogates(str(value)))
    return " ".join(text.split())


def clean_block(value: Any) -> str:
    """A paragraph text (abstract, note): cleaned as :func:`clean_line`, paragraphs kept."""
    if value is None:
        return ""
    text = clean_text(without_surrogates(str(value)))
    paragraphs = re.split(r"\n\s*\n", text)
    return "\n\n".join(p for p in (" ".join(par.split()) for par in paragraphs) if p)


def clean_key(value: Any) -> str:
    """A citation key or record id: one token, no control characters or spaces."""
    return "".join(clean_line(value).split())


def split_list(value: str) -> list[str]:
    """Keywords or groups as one list: split on ``,`` and ``;``, each once, in order."""
    seen: dict[str, str] = {}  # folded: as first written (one set, not one a word)
    for part in re.split(r"[,;]", value):
        word = clean_line(part)
        if word and word.casefold() not in seen:
            seen[word.casefold()] = word
    return list(seen.values())


def unique(values: Iterable[str]) -> list[str]:
    """``values`` without empties and repeats (case-insensitively), in order."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        folded = value.casefold()
        if value and folded not in seen:
            seen.add(folded)
            out.append(value)
    return out


def pages(value: str) -> str:
    """A page range as ``12-34`` (``12--34``, ``12–34``, ``12 - 34``); other text as is."""
    text = clean_line(value)
    return re.sub(r"\s*[-\u2010-\u2015\u2212]+\s*", "-", text)


# -- dates ----------------------------------------------------------------------------------
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january", "janv", "januar"),
            ("feb", "february", "febr", "fev", "februar"),
            ("mar", "march", "mrz", "marz", "mars"),
            ("apr", "april", "avr"),
            ("may", "mai"),
            ("jun", "june", "juni", "juin"),
            ("jul", "july", "juli", "juil"),
            ("aug", "august", "aout"),
            ("sep", "september", "sept"),
            ("oct", "october", "okt", "oktober"),
            ("nov", "november"),
            ("dec", "december", "dez", "dezember"),
        ),
        start=1,
    )
    for name in names
}
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_ISO = re.compile(r"^\s*(\d{4})(?:([-/])(\d{1,2})?(?:\2(\d{1,2}))?)?")


def year_of(value: str) -> int | None:
    """The first four-digit year in ``value`` within :data:`MIN_YEAR`-:data:`MAX_YEAR`."""
    for match in _YEAR.finditer(value or ""):
        year = int(match.group(1))
        if MIN_YEAR <= year <= MAX_YEAR:
            return year
    return None


def month_of(value: str) -> int | None:
    """A month from ``jan``, ``January``, ``Jan.``, ``1`` or ``01``; None otherwise."""
    text = clean_line(value).strip(".").casefold()
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    if text.isdigit():
        number = int(text)
        return number if 1 <= number <= 12 else None
    word = re.match(r"[a-z]+", text)
    return _MONTHS.get(word.group(0)) if word else None


def iso_date(year: int | None, month: int | None, day: int | None = None) -> str:
    """``YYYY-MM`` or ``YYYY-MM-DD`` when a month is known, else '' (a year is ``year``)."""
    if year is None or month is None or not 1 <= month <= 12:
        return ""
    if day is not None and 1 <= day <= 31:
        return f"{year:04d}-{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}"


def parse_date(value: str) -> tuple[int | None, str]:
    """The year and the ISO date (see :func:`iso_date`) of ``2020-05-17``, ``2020/05//``.

    A biblatex range (``2020-05-17/2020-05-20``) gives its start; free text (``Spring
    2020``) gives its year only.
    """
    text = clean_line(value)
    match = _ISO.match(text)
    if match and MIN_YEAR <= int(match.group(1)) <= MAX_YEAR:
        year = int(match.group(1))
        month = int(match.group(3)) if match.group(3) else None
        day = int(match.group(4)) if match.group(4) else None
        return year, iso_date(year, month, day)
    return year_of(text), ""


# -- identifiers ----------------------------------------------------------------------------
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.|www\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# an old-style archive name is short (hep-th, cond-mat, physics): bounded, so a text of
# one long word is not scanned again from each of its letters (square time)
_ARXIV_IN_TEXT = re.compile(
    r"arxiv[:\s/]{0,8}(?:abs/|pdf/)?"
    r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]{1,24}(?:\.[a-z]{2})?/\d{7}(?:v\d+)?)",
    re.IGNORECASE,
)


def doi_of(value: str) -> str:
    """A DOI lower-cased without ``https://doi.org/`` or ``doi:``; '' when it is none."""
    text = clean_line(value)
    text = _DOI_PREFIX.sub("", text)
    if "%" in text:
        text = unquote(text)
    return normalise_doi(text) or ""


def doi_of_url(url: str) -> str:
    """The DOI a ``https://doi.org/...`` link names, else ''."""
    return doi_of(url) if _DOI_PREFIX.match(url.strip()) else ""


def arxiv_of(value: str, *, bare: bool = False) -> str:
    """An arXiv id in ``value``: ``arXiv:2101.00001``, an arxiv.org link, or (``bare``)
    the id alone as an ``eprint`` field holds it; '' when there is none."""
    text = clean_line(value)
    if not text:
        return ""
    if bare:
        found = normalise_arxiv(re.sub(r"^arxiv:\s*", "", text, flags=re.IGNORECASE))
        if found:
            return found
    host = urlsplit(text).hostname or ""
    if host.endswith("arxiv.org"):
        path = urlsplit(text).path
        match = re.match(r"^/(?:abs|pdf|html)/(.+?)(?:\.pdf)?/?$", path)
        return (normalise_arxiv(match.group(1)) or "") if match else ""
    match = _ARXIV_IN_TEXT.search(text)
    return (normalise_arxiv(match.group(1)) or "") if match else ""


def arxiv_of_doi(doi: str) -> str:
    """The arXiv id of a ``10.48550/arXiv.*`` DOI, else ''."""
    return arxiv_id_from_doi(doi) or "" if doi else ""


# -- keys and versions ----------------------------------------------------------------------
def derived_key(prefix: str, authors: Sequence[str], year: int | None, title: str) -> str:
    """A stable key for an entry that has none: ``<prefix>:<surname><year>-<hash>``.

    The hash is of the first author, the year and the title, case and punctuation folded,
    so re-reading the same entry (even re-wrapped or re-encoded) gives the same key.
    """
    first = authors[0] if authors else ""
    parts = [first, str(year or ""), title]
    folded = [
        "".join(ch for ch in unicodedata.normalize("NFKD", p.casefold()) if ch.isalnum())
        for p in parts
    ]
    digest = hashlib.sha256("\x1f".join(folded).encode()).hexdigest()[:10]
    surname = first.split()[-1] if first.split() else "anon"
    stem = "".join(ch for ch in unicodedata.normalize("NFKD", surname.casefold()) if ch.isascii())
    stem = re.sub(r"[^a-z0-9]", "", stem)[:24] or "anon"
    return f"{prefix}:{stem}{year or ''}-{digest}"


def version_of(*parts: Any) -> str:
    """A hash of an entry's normalised content (equal for an unchanged entry)."""
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:20]
