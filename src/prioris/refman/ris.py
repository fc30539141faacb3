"""A .ris file read into :class:`~prioris.refman.items.RefItem` values, through rispy.

RIS is a line format: ``TY  - JOUR`` opens a record, ``XX  - value`` lines give its
fields, ``ER  -`` closes it. The file is split into records here, each with the line it
starts on, and each record is read by rispy on its own, so a malformed record (one cut
off without its ``ER``, one without a type) is a :class:`RefError` with its line while
the records around it are read. Every tag is read as a list (rispy keeps only the first
of a repeated single-value tag, and Zotero writes one ``L1`` line per attachment).

What each record becomes (``source="ris"``):

- ``TY`` mapped to a CSL-like type (:data:`RIS_TYPES`; the tag as written is
  ``extra["entry_type"]``); an ``UNPB``/``GEN``/``ELEC`` record naming an arXiv id is a
  ``preprint``;
- ``AU``/``A1`` authors ("Last, First" shown "First Last"), ``A2``/``ED`` editors, ``A3``
  series editors, ``A4`` translators, in ``creators`` with their roles;
- ``TI``/``T1`` title; ``JF``, ``T2``, ``JO``, ``JA``, ``J2`` the venue (full names
  first; a book's ``T2`` is its series, not a venue); ``VL``, ``IS``, ``SP``+``EP``
  pages, ``PB`` publisher;
- ``PY``/``Y1``/``DA`` dates (``2020/05/17/``, ``2020///``, ``2020-05-17``): ``year``, and
  ``published`` when a month is known;
- ``DO`` (or a doi.org link) the DOI; arXiv from an arXiv DOI, link, or an
  ``arXiv:<id>`` note (how Prioris's own RIS export names a preprint);
- ``AB``/``N2`` abstract, ``KW`` keywords (also the item's tags), ``LA`` language,
  ``N1`` notes (Zotero's child notes, HTML turned into text);
- ``UR``, ``L1``, ``L2``, ``L4`` links: web links give the ``url``; ``file://`` URLs,
  paths relative to the .ris and EndNote's ``internal-pdf://`` are attachments resolved by
  :mod:`prioris.refman.filelinks` (an ``L1``/``L4`` web link is an attachment reported
  as a URL, so no file link is dropped unsaid);
- ``ID`` the key; without one a stable key from the first author, year and title
  (:func:`prioris.refman.fields.derived_key`). A repeated key is a RefError (the first
  record is kept). The version is a hash of the record's tags and values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rispy

from prioris.errors import InvalidRequestError
from prioris.refman import fields as F
from prioris.refman.filelinks import resolve, unique
from prioris.refman.html_text import has_tag, strip_tags
from prioris.refman.items import RefAttachment, RefError, RefItem, RefNote

SOURCE = "ris"

RIS_TYPES = {
    **dict.fromkeys(("JOUR", "JFULL", "EJOUR", "INPR", "ABST", "SER"), "article-journal"),
    "MGZN": "article-magazine",
    "NEWS": "article-newspaper",
    **dict.fromkeys(("CONF", "CPAPER"), "paper-conference"),
    **dict.fromkeys(("BOOK", "EBOOK", "EDBOOK", "CLSWK"), "book"),
    **dict.fromkeys(("CHAP", "ECHAP"), "chapter"),
    "ENCYC": "entry-encyclopedia",
    "DICT": "entry-dictionary",
    "THES": "thesis",
    **dict.fromkeys(("RPRT", "GOVDOC"), "report"),
    "UNPB": "manuscript",
    "MANSCPT": "manuscript",
    **dict.fromkeys(("ELEC", "WEB", "BLOG"), "webpage"),
    **dict.fromkeys(("DATA", "DBASE", "AGGR"), "dataset"),
    "COMP": "software",
    "PAT": "patent",
    "STAND": "standard",
    "GEN": "document",
}
"""RIS reference types and the CSL-like type each becomes (others: ``document``)."""

_PREPRINT_TYPES = ("UNPB", "GEN", "ELEC", "WEB", "MANSCPT", "JOUR", "INPR")
_BOOK_TYPES = ("BOOK", "EBOOK", "EDBOOK")
_TAG_LINE = re.compile(r"^([A-Z][A-Z0-9]) {1,2}-(?: (.*)|\s*)$")
_WEB = re.compile(r"^(?:https?|ftp)://", re.IGNORECASE)
_ONLY_ARXIV = re.compile(r"^arxiv:\s*\S+$", re.IGNORECASE)


class _EveryTag(dict[str, str]):
    """rispy's tag -> field-name map where every tag is its own name."""

    def __missing__(self, key: str) -> str:
        return key


class _AllTags:
    """rispy's list-tag set holding every tag: each tag's values come back as a list."""

    def __contains__(self, tag: object) -> bool:
        return True


class _Parser(rispy.RisParser):
    """rispy's parser, every tag kept by its own name as a list, no ``UR`` splitting."""

    PATTERN = r"^[A-Z][A-Z0-9]  - "
    DEFAULT_MAPPING = _EveryTag()
    DEFAULT_LIST_TAGS = _AllTags()  # type: ignore[assignment]
    DEFAULT_DELIMITER_MAPPING: dict[str, str] = {}  # noqa: RUF012  rispy's own class field


@dataclass(frozen=True)
class _Chunk:
    """The lines of one record (tags normalised to ``XX  - value``) and where it starts."""

    line: int
    lines: list[str]
    closed: bool


def read_ris(path: Path, *, roots: Sequence[Path] = ()) -> tuple[list[RefItem], list[RefError]]:
    """The records of the .ris file at ``path`` as items, and those that could not be read.

    Links are resolved against the file's folder and re-rooted under ``roots``
    (:mod:`prioris.refman.filelinks`). A missing file is NotFoundError; a folder, a binary
    file, or a file with text but no ``TY  -`` record InvalidRequestError; never anything
    but a PriorisError.
    """
    text, encoding = F.read_text(path, kind="RIS")
    return parse_ris(
        text, base=path.absolute().parent, roots=roots, encoding=encoding, name=str(path)
    )


def parse_ris(
    text: str,
    *,
    base: Path,
    roots: Sequence[Path] = (),
    encoding: str = "utf-8",
    name: str = "the RIS text",
) -> tuple[list[RefItem], list[RefError]]:
    """:func:`read_ris` of text already read (``base``: the folder links are under)."""
    chunks = list(_chunks(text))
    if not chunks and text.strip():
        raise InvalidRequestError(f"{name} holds no RIS record (a 'TY  - ' line starts one)")
    items: list[RefItem] = []
    errors: list[RefError] = []
    seen: dict[str, int] = {}
    for chunk in chunks:
        try:
            item = _item(chunk, base=base, roots=roots, encoding=encoding)
        except _Malformed as exc:
            errors.append(RefError(exc.key, str(exc), chunk.line))
            continue
        except Exception as exc:  # one record fails alone, whatever went wrong
            reason = F.clean_line(str(exc) or type(exc).__name__)[:300]
            errors.append(RefError("", f"cannot read this RIS record: {reason}", chunk.line))
            continue
        if item.key in seen:
            errors.append(
                RefError(
                    item.key,
                    f"duplicate record id {item.key!r}: the first record "
                    f"(line {seen[item.key]}) is kept",
                    chunk.line,
                )
            )
            continue
        seen[item.key] = chunk.line
        items.append(item)
    return items, errors


class _Malformed(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def _chunks(text: str) -> Iterator[_Chunk]:
    """The records of ``text``: from a ``TY`` line to its ``ER`` line (or, cut off, to the
    next ``TY`` or the end). A line without a tag continues the value before it; lines
    outside records (rispy's ``1.`` counters) are skipped. A value's lines are gathered
    and joined once (adding each to the value so far would copy it again for every line:
    time growing with the square of a long note's lines)."""
    current: list[list[str]] | None = None  # each line of the record: its parts
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.lstrip("\ufeff").rstrip()
        match = _TAG_LINE.match(line)
        tag = match.group(1) if match else None
        if match:
            line = f"{tag}  - {(match.group(2) or '').strip()}"
        if tag == "TY":
            if current is not None:
                yield _Chunk(start, _joined(current), closed=False)
            current, start = [[line]], number
        elif current is None:
            continue
        elif tag is None:
            if line.strip() and len(current) > 1:  # a value continued on the next line
                current[-1].append(line.strip())
            continue
        elif tag == "ER":
            current.append([line])
            yield _Chunk(start, _joined(current), closed=True)
            current = None
        else:
            current.append([line])
    if current is not None:
        yield _Chunk(start, _joined(current), closed=False)


def _joined(lines: list[list[str]]) -> list[str]:
    return [" ".join(parts) for parts in lines]


def _values(record: dict[Any, Any], *tags: str) -> list[str]:
    out: list[str] = []
    for tag in tags:
        value = record.get(tag)
        if isinstance(value, list):
            out.extend(str(v) for v in value if str(v).strip())
        elif isinstance(value, str) and value.strip():
            out.append(value)
    return out


def _first(record: dict[Any, Any], *tags: str) -> str:
    for tag in tags:
        for value in _values(record, tag):
            text = F.clean_line(value)
            if text:
                return text
    return ""


def _person(value: str) -> str:
    """``Last, First`` (or ``Last, First, Jr.``) as "First Last Jr."; other forms as is."""
    parts = [F.clean_line(p) for p in value.split(",")]
    parts = [p for p in parts if p]
    if len(parts) == 2:
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3:
        return f"{parts[1]} {parts[0]} {parts[2]}"
    return F.clean_line(value)


def _date(record: dict[Any, Any]) -> tuple[int | None, str]:
    year: int | None = None
    published = ""
    for tag in ("PY", "Y1", "DA"):
        for value in _values(record, tag):
            found, iso = F.parse_date(value)
            if found is not None and year is None:
                year = found
            if iso and not published and (year is None or iso.startswith(str(year))):
                published = iso
    return year, published


def _notes(record: dict[Any, Any]) -> tuple[RefNote, ...]:
    notes: list[RefNote] = []
    for value in _values(record, "N1"):
        text = strip_tags(value) if has_tag(value) else value  # linear, whatever the note
        text = F.clean_block(text)
        if text and not _ONLY_ARXIV.match(text):
            notes.append(RefNote(kind="note", text=text, key="N1"))
    return tuple(notes)


def _links(
    record: dict[Any, Any], base: Path, roots: Sequence[Path]
) -> tuple[list[str], tuple[RefAttachment, ...]]:
    """The record's web links (``url`` candidates) and its attachments."""
    urls: list[str] = []
    attachments: list[RefAttachment] = []
    for tag in ("UR", "L2", "L1", "L4"):
        for value in _values(record, tag):
            link = value.strip()
            if _WEB.match(link) and tag in ("UR", "L2"):
                urls.append(F.clean_line(link))
                continue
            attachments.append(resolve(link, base=base, roots=roots))
    return urls, unique(attachments)


def _item(chunk: _Chunk, *, base: Path, roots: Sequence[Path], encoding: str) -> RefItem:
    lines = chunk.lines if chunk.closed else [*chunk.lines, "ER  - "]  # to read its ID
    parsed = _Parser().parse_lines(iter(lines))
    record_in: dict[Any, Any] = parsed[0] if parsed else {}
    record_in.pop(None, None)  # a continuation line before any tag
    type_tag = F.clean_line(record_in.get("TY") or "").upper()
    own_id = F.clean_key(_first(record_in, "ID"))
    if not chunk.closed:
        raise _Malformed(
            own_id, "RIS record without its 'ER  -' line: it is cut off (nothing after it read)"
        )
    if not type_tag:
        raise _Malformed(own_id, "RIS record without a type ('TY  - ' is empty)")
    tags = [t for t in record_in if t not in ("TY", "ER")]
    if not tags:
        raise _Malformed(own_id, "empty RIS record (a type and nothing else)")
    record: dict[str, Any] = {}
    creators: list[dict[str, str]] = []
    roles = (("author", ("AU", "A1")), ("editor", ("A2", "ED")), ("series-editor", ("A3",)))
    for role, role_tags in (*roles, ("translator", ("A4",))):
        names = F.unique(_person(v) for v in _values(record_in, *role_tags))
        creators.extend({"name": n, "role": role} for n in names)
        if role == "author":
            record["authors"] = names
    record["creators"] = creators
    record["title"] = _first(record_in, "TI", "T1", "CT") or (
        _first(record_in, "BT") if type_tag in _BOOK_TYPES else ""
    )
    year, published = _date(record_in)
    record["year"] = year
    record["published"] = published
    venue_tags = (
        ("JF", "JO", "JA", "J2")
        if type_tag in _BOOK_TYPES
        else ("JF", "T2", "JO", "BT", "JA", "J2")
    )
    record["venue"] = _first(record_in, *venue_tags)
    record["volume"] = _first(record_in, "VL")
    record["issue"] = _first(record_in, "IS")
    start, end = F.pages(_first(record_in, "SP")), F.pages(_first(record_in, "EP"))
    record["pages"] = f"{start}-{end}" if start and end and "-" not in start else start or end
    record["publisher"] = _first(record_in, "PB")
    abstract = " ".join(_values(record_in, "AB")) or " ".join(_values(record_in, "N2"))
    record["abstract"] = F.clean_block(abstract)
    keywords = F.unique(F.clean_line(k) for k in _values(record_in, "KW"))
    record["keywords"] = keywords
    urls, attachments = _links(record_in, base, roots)
    doi = F.doi_of(_first(record_in, "DO")) or next(
        (d for d in (F.doi_of_url(u) for u in urls) if d), ""
    )
    record["doi"] = doi
    arxiv = F.arxiv_of_doi(doi) or next((a for a in (F.arxiv_of(u) for u in urls) if a), "")
    for value in (*_values(record_in, "N1"), _first(record_in, "JO"), _first(record_in, "T2")):
        if arxiv:
            break
        arxiv = F.arxiv_of(value)
    record["arxiv"] = arxiv
    record["url"] = next((u for u in urls if not F.doi_of_url(u)), urls[0] if urls else "")
    record["language"] = _first(record_in, "LA")
    journal = _first(record_in, "JF", "JO", "T2")
    if arxiv and type_tag in _PREPRINT_TYPES and (type_tag != "JOUR" or not journal):
        record["type"] = "preprint"
    else:
        record["type"] = RIS_TYPES.get(type_tag, "document")
    record = {k: v for k, v in record.items() if v not in (None, "", [], {})}
    extra: dict[str, Any] = {"entry_type": type_tag}
    for tag, name in (("SN", "isbn_issn"), ("CY", "place"), ("T3", "series"), ("AN", "accession")):
        value = _first(record_in, tag)
        if value:
            extra[name] = value
    if encoding != "utf-8":
        extra["encoding"] = encoding
    key = own_id or F.derived_key(SOURCE, record.get("authors", []), year, record.get("title", ""))
    content = sorted((str(t), v if isinstance(v, list) else [v]) for t, v in record_in.items())
    return RefItem(
        source=SOURCE,
        key=key,
        record=record,
        version=F.version_of(content),
        tags=tuple(keywords),
        attachments=attachments,
        notes=_notes(record_in),
        line=chunk.line,
        extra=extra,
    )
