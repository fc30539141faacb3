"""A .bib file read into :class:`~prioris.refman.items.RefItem` values, through bibtexparser 2.

What each entry becomes (``source="bibtex"``, ``key`` the citation key):

- **fields**: LaTeX to Unicode in every text field (:mod:`prioris.refman.latex`); ``url``,
  ``doi``, ``eprint`` and file links only lose their TeX escapes. ``journal`` /
  ``journaltitle`` / ``booktitle`` are the venue; ``school``, ``institution`` or
  ``organization`` the publisher where the entry has none; ``number`` the issue (a
  report's number stays in ``extra``); pages are normalised to ``12-34``.
- **names**: ``author``, ``editor``, ``translator`` split on ``and`` (BibTeX's rules:
  ``Last, First``, ``First von Last``, ``Last, Jr, First``) and shown "First von Last Jr";
  a braced name (``{World Health Organization}``) is one name. ``others`` ("and others",
  BibTeX's et al.) is no person: it is dropped and ``extra["authors_truncated"]`` says so.
- **dates**: biblatex ``date`` first, else ``year`` + ``month`` (``jan``, ``January``,
  ``1``) + ``day``. ``year`` is always set when known; ``published`` only when a month
  is known, so a bare year never replaces a provider's full date in the merge.
- **identifiers**: ``doi`` without its ``https://doi.org/`` prefix (from a doi.org ``url``
  when there is no ``doi``); arXiv from ``eprint`` (``archivePrefix``/``eprinttype`` arXiv,
  or an id alone), Mendeley's ``arxivId``, an arXiv DOI or link, or Google Scholar's
  ``journal = {arXiv preprint arXiv:…}``; ``pmid``, ``pmcid``.
- **type**: the BibTeX type mapped to a CSL-like one (:data:`ENTRY_TYPES`); an arXiv
  eprint in ``@misc``/``@unpublished``/``@online`` or an ``@article`` without a journal is
  a ``preprint``. The type as written is ``extra["entry_type"]`` (``mastersthesis`` and
  ``phdthesis`` are both CSL ``thesis``).
- **tags and collections**: ``keywords`` (how Zotero, Better BibTeX and JabRef export tags)
  split on ``,`` or ``;`` are both the ``keywords`` field and the item's tags, with
  Mendeley's ``mendeley-tags``; JabRef's ``groups`` and Mendeley's ``mendeley-groups`` are
  collections, a JabRef group with its path in the group tree JabRef keeps in an
  ``@Comment{jabref-meta: grouping: ...}`` block (``Thesis / Chapter 2``).
- **notes**: ``annote`` (Zotero's child notes and extra) and JabRef's ``comment`` fields
  are the item's notes; ``note`` is the record's ``extra``.
- **files**: ``file`` in the Zotero, JabRef, Mendeley and Better BibTeX forms, JabRef's
  older ``pdf``, BibDesk's ``bdsk-file-N`` and ``local-url``, resolved by
  :mod:`prioris.refman.filelinks`; the folders JabRef's ``fileDirectory`` metadata names
  are searched too.

A malformed entry is a :class:`RefError` with the line it starts on; the entries around it
are read. A second entry with a citation key already seen is a RefError too (the first
is kept: the key is the item's identity). A field given twice in one entry keeps its first
value, except notes, keywords, groups and files, whose values are joined (Zotero writes
``annote`` twice). The ``version`` is a hash of the entry's type, key and field values
(after ``@string`` substitution), so an unchanged entry keeps its version however the
file around it changes. A file that is not UTF-8 is read as Windows-1252 and each item
says so in ``extra["encoding"]``.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares.enclosing import REMOVED_ENCLOSING_KEY
from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ExplicitComment,
    ParsingFailedBlock,
    String,
)

from prioris.refman import fields as F
from prioris.refman.filelinks import bibdesk_path, resolve, resolve_field, unique
from prioris.refman.items import RefAttachment, RefError, RefItem, RefNote
from prioris.refman.latex import decode, verbatim

SOURCE = "bibtex"

# the splitter logs each malformed block it skips; each is a RefError here instead
logging.getLogger("bibtexparser").setLevel(logging.ERROR)

ENTRY_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "proceedings": "book",
    "mvproceedings": "book",
    "book": "book",
    "mvbook": "book",
    "booklet": "book",
    "collection": "book",
    "mvcollection": "book",
    "manual": "book",
    "incollection": "chapter",
    "inbook": "chapter",
    "bookinbook": "chapter",
    "suppbook": "chapter",
    "inreference": "entry-encyclopedia",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "unpublished": "manuscript",
    "online": "webpage",
    "electronic": "webpage",
    "www": "webpage",
    "misc": "document",
    "patent": "patent",
    "dataset": "dataset",
    "software": "software",
    "periodical": "periodical",
}
"""BibTeX/biblatex entry types and the CSL-like type each becomes (others: ``document``)."""

NAME_ROLES = {"author": "author", "editor": "editor", "translator": "translator"}
_JOINED = {
    "annote": "\n\n",
    "comment": "\n\n",
    "note": " ",
    "keywords": ", ",
    "mendeley-tags": ", ",
    "groups": ", ",
    "mendeley-groups": ", ",
    "file": ";",
}
_PREPRINT_TYPES = ("misc", "unpublished", "online", "electronic", "www")
_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()=]+)\s*,")
_HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z][^>]*>")


def read_bibtex(path: Path, *, roots: Sequence[Path] = ()) -> tuple[list[RefItem], list[RefError]]:
    """The entries of the .bib file at ``path`` as items, and those that could not be read.

    File links are resolved against the file's folder, then re-rooted under it and under
    ``roots`` (:mod:`prioris.refman.filelinks`). A missing file is NotFoundError, a
    folder, a binary or an unreadable file InvalidRequestError; never anything but a
    PriorisError.
    """
    text, encoding = F.read_text(path, kind="BibTeX")
    return parse_bibtex(text, base=path.absolute().parent, roots=roots, encoding=encoding)


def parse_bibtex(
    text: str, *, base: Path, roots: Sequence[Path] = (), encoding: str = "utf-8"
) -> tuple[list[RefItem], list[RefError]]:
    """:func:`read_bibtex` of text already read (``base``: the folder links are under)."""
    items: list[RefItem] = []
    errors: list[RefError] = []
    seen: dict[str, int | None] = {}
    blocks = _blocks(text)
    strings = {
        F.clean_line(b.key).lower(): str(b.value) for b, _ in blocks if isinstance(b, String)
    }
    directories, group_paths = _jabref_meta([b for b, _ in blocks], base)
    context = _Context(strings, base, (*directories, *roots), group_paths, encoding)
    for block, offset in blocks:
        line = block.start_line + 1 + offset if block.start_line is not None else None
        # bibtexparser hands these back without its middlewares run on them
        raw = isinstance(block, DuplicateFieldKeyBlock | DuplicateBlockKeyBlock)
        if raw:
            inner = block.ignore_error_block
            if not isinstance(inner, Entry):
                continue
            block = inner
        if isinstance(block, ParsingFailedBlock):
            errors.append(_failed(block, line))
            continue
        if not isinstance(block, Entry):
            continue
        try:
            item = _item(block, context, raw=raw, line=line)
        except Exception as exc:  # one entry fails alone, whatever went wrong
            key = F.clean_key(block.key)
            errors.append(RefError(key, f"cannot read this entry: {_reason(exc)}", line))
            continue
        if item.key in seen:
            first = seen[item.key]
            where = f" at line {first}" if first is not None else ""
            errors.append(
                RefError(
                    item.key,
                    f"duplicate citation key {item.key!r}: the first entry{where} is kept",
                    line,
                )
            )
            continue
        seen[item.key] = line
        items.append(item)
    return items, errors


# -- parsing --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Context:
    """What the whole file tells about each entry: ``@string`` values, where links are
    looked for, and JabRef's group tree."""

    strings: dict[str, str]
    base: Path
    roots: tuple[Path, ...]
    group_paths: dict[str, str]
    encoding: str


_JABREF_DIRECTORY = re.compile(
    r"^\s*jabref-meta:\s*fileDirectory(?:Latex)?(?:-[^:]*)?:(.*?);?\s*$", re.DOTALL
)
_JABREF_GROUP = re.compile(r"^(\d+) [A-Za-z]*Group:(.*)$")


def _jabref_unescape(text: str) -> str:
    return re.sub(r"\\([\\;:])", r"\1", text)


def _jabref_meta(blocks: Sequence[Block], base: Path) -> tuple[list[Path], dict[str, str]]:
    """JabRef's file directories (where its relative links point, when set) and the path of
    each group in its group tree (``"Thesis / Chapter 2"`` for ``Chapter 2``), from the
    ``@Comment{jabref-meta: ...}`` blocks. A group name used twice in the tree keeps its
    plain name (which of the two an entry means is unknown)."""
    directories: list[Path] = []
    paths: dict[str, str] = {}
    repeated: set[str] = set()
    for block in blocks:
        if not isinstance(block, ExplicitComment):
            continue
        comment = str(block.comment)
        match = _JABREF_DIRECTORY.match(comment)
        if match:
            folder = _jabref_unescape(match.group(1).strip())
            if folder:
                directories.append(base / folder)  # an absolute folder stays absolute
            continue
        if not re.match(r"^\s*jabref-meta:\s*grouping:", comment):
            continue
        stack: list[str] = []
        for line in comment.split("\n")[1:]:
            group = _JABREF_GROUP.match(line.strip())
            if not group:
                continue
            level = int(group.group(1))
            name = F.clean_line(_jabref_unescape(re.split(r"(?<!\\)\\;", group.group(2))[0]))
            if level == 0 or not name:
                continue
            stack = [*stack[: level - 1], name]
            if name in paths:
                repeated.add(name)
            paths[name] = " / ".join(stack)
    return directories, {k: v for k, v in paths.items() if k not in repeated}


def _blocks(text: str) -> list[tuple[Block, int]]:
    """The file's blocks with a line offset each (0, or the chunk's start).

    bibtexparser re-raises an unexpected error instead of skipping the block; then the
    file is parsed again one ``@`` block at a time, so only that block fails.
    """
    try:
        library = bibtexparser.parse_string(text)
    except Exception:  # a parser bug on odd input: fall back to chunks
        return _chunked(text)
    return [(block, 0) for block in library.blocks]


def _chunked(text: str) -> list[tuple[Block, int]]:
    """Each ``@`` block parsed alone; one that still breaks the parser is a failed block."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("@")] or [0]
    if starts[0] != 0:
        starts.insert(0, 0)
    out: list[tuple[Block, int]] = []
    for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        chunk = "\n".join(lines[begin:end])
        try:
            library = bibtexparser.parse_string(chunk)
        except Exception as exc:
            if chunk.strip():
                failed = ParsingFailedBlock(error=exc, start_line=0, raw=chunk)
                out.append((failed, begin))
            continue
        out.extend((block, begin) for block in library.blocks)
    return out


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "abort_reason", None) or str(exc) or type(exc).__name__
    return F.clean_line(reason)[:300]


def _failed(block: ParsingFailedBlock, line: int | None) -> RefError:
    match = _KEY_IN_RAW.search(block.raw or "")
    key = F.clean_key(match.group(1)) if match else ""
    return RefError(key, f"malformed BibTeX entry: {_reason(block.error)}", line)


def _concat(value: str, strings: dict[str, str]) -> str:
    """A ``"a" # name # {b}`` value joined, ``@string`` names replaced."""
    out: list[str] = []
    for piece in _split_top(value, "#"):
        piece = piece.strip()
        if len(piece) >= 2 and (piece[0], piece[-1]) in (("{", "}"), ('"', '"')):
            out.append(piece[1:-1])
        else:
            out.append(strings.get(piece.lower(), piece))
    return "".join(out)


def _split_top(value: str, sep: str) -> list[str]:
    """``value`` split on ``sep`` outside braces and quotes."""
    parts, depth, quoted, current = [], 0, False, []
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == sep and depth == 0 and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _unenclosed(value: str, strings: dict[str, str]) -> str:
    """A raw field value as bibtexparser's middlewares leave it: braces or quotes around it
    removed, ``@string`` names replaced, ``#`` joined. For an entry with a repeated field,
    which bibtexparser hands back without running its middlewares on it."""
    text = value.strip()
    pieces = _split_top(text, "#")
    if len(pieces) > 1:
        return _concat(text, strings)
    if len(text) >= 2 and (text[0], text[-1]) in (("{", "}"), ('"', '"')):
        return text[1:-1]
    return strings.get(text.lower(), text)


def _fields(entry: Entry, strings: dict[str, str], *, raw: bool) -> dict[str, str]:
    """The entry's fields by lower-case name (repeats: see the module text); ``raw``: the
    entry is one bibtexparser's middlewares did not run on."""
    removed = entry.parser_metadata.get(REMOVED_ENCLOSING_KEY) or {}
    out: dict[str, str] = {}
    for field in entry.fields:
        name = str(field.key).strip().lower()
        value = field.value if isinstance(field.value, str) else str(field.value)
        if raw:
            value = _unenclosed(value, strings)
        elif "#" in value and removed.get(field.key, "no-enclosing") == "no-enclosing":
            value = _concat(value, strings)
        if name in out:
            if name in _JOINED and value.strip():
                out[name] = f"{out[name]}{_JOINED[name]}{value}" if out[name].strip() else value
            continue
        out[name] = value
    return out


# -- one entry ------------------------------------------------------------------------------
def _text(fields: dict[str, str], *names: str) -> str:
    for name in names:
        value = F.clean_line(decode(fields.get(name, "")))
        if value:
            return value
    return ""


def _person(name: str) -> str:
    try:
        parts = parse_single_name_into_parts(name, strict=False)
        words = [*parts.first, *parts.von, *parts.last, *parts.jr]
        shown = " ".join(decode(w) for w in words)
    except Exception:  # a name bibtexparser cannot split is kept as written
        shown = decode(name)
    return F.clean_line(shown)


def _people(value: str) -> tuple[list[str], bool]:
    """Display names of a name list, and whether it ended in ``and others``."""
    try:
        names = split_multiple_persons_names(value)
    except Exception:
        names = re.split(r"\s+and\s+", value)
    out: list[str] = []
    truncated = False
    for name in names:
        if F.clean_line(name).casefold() in ("others", "et al.", "et al"):
            truncated = True
            continue
        shown = _person(name)
        if shown:
            out.append(shown)
    return out, truncated


def _date(fields: dict[str, str]) -> tuple[int | None, str]:
    if fields.get("date", "").strip():
        # biblatex: an ISO date, or a range whose start is the date
        year, published = F.parse_date(verbatim(fields["date"]).split("/")[0])
        if year is not None:
            return year, published
    year = F.year_of(verbatim(fields.get("year", "")))
    if year is None:
        return None, ""
    month = F.month_of(decode(fields.get("month", "")))
    day_text = F.clean_line(fields.get("day", ""))
    day = int(day_text) if day_text.isdigit() and len(day_text) <= 2 else None
    return year, F.iso_date(year, month, day)


def _url(fields: dict[str, str]) -> str:
    for name in ("url", "howpublished"):
        raw = verbatim(fields.get(name, ""))
        match = re.search(r"(?:https?|ftp)://\S+", raw)
        if match:
            return F.clean_line(match.group(0))
    return ""


def _arxiv(fields: dict[str, str], doi: str, url: str) -> str:
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    eprint = verbatim(fields.get("eprint", ""))
    if eprint and prefix in ("arxiv", ""):
        found = F.arxiv_of(eprint, bare=True)
        if found:
            return found
    for value in (
        verbatim(fields.get("arxivid", "")),
        verbatim(fields.get("arxiv", "")),
    ):
        found = F.arxiv_of(value, bare=True)
        if found:
            return found
    return (
        F.arxiv_of_doi(doi)
        or F.arxiv_of(url)
        or F.arxiv_of(verbatim(fields.get("journal", "")))
        or F.arxiv_of(verbatim(fields.get("note", "")))
    )


def _notes(fields: dict[str, str]) -> tuple[RefNote, ...]:
    notes: list[RefNote] = []
    names = ["annote", "comment", *sorted(n for n in fields if n.startswith("comment-"))]
    for name in names:
        raw = decode(fields.get(name, ""))
        if _HTML_TAG.search(raw):
            raw = html.unescape(_HTML_TAG.sub("\n", raw))
        text = F.clean_block(raw)
        if text:
            notes.append(RefNote(kind="note", text=text, key=name))
    return tuple(notes)


def _attachments(
    fields: dict[str, str], base: Path, roots: Sequence[Path]
) -> tuple[RefAttachment, ...]:
    found: list[RefAttachment] = []
    if fields.get("file", "").strip():
        found.extend(resolve_field(fields["file"], base=base, roots=roots))
    for name in ("pdf", "local-url"):
        link = verbatim(fields.get(name, "")).strip()
        if link:
            found.append(resolve(link, base=base, roots=roots))
    for name in sorted(n for n in fields if n.startswith("bdsk-file-")):
        link = bibdesk_path(fields[name])
        if link:
            found.append(resolve(link, base=base, roots=roots))
        else:
            found.append(RefAttachment(name, "", None, "unreadable BibDesk file link"))
    return unique(found)


def _item(entry: Entry, context: _Context, *, raw: bool, line: int | None) -> RefItem:
    entry_type = F.clean_line(entry.entry_type).lower()
    fields = _fields(entry, context.strings, raw=raw)
    extra: dict[str, Any] = {"entry_type": entry_type}
    record: dict[str, Any] = {}
    record["title"] = _text(fields, "title")
    creators: list[dict[str, str]] = []
    for field_name, role in NAME_ROLES.items():
        names, truncated = _people(fields.get(field_name, ""))
        if truncated:
            extra[f"{field_name}s_truncated"] = True
        creators.extend({"name": n, "role": role} for n in names)
        if role == "author":
            record["authors"] = names
    record["creators"] = creators
    year, published = _date(fields)
    record["year"] = year
    record["published"] = published
    record["venue"] = _text(fields, "journaltitle", "journal", "booktitle")
    record["volume"] = _text(fields, "volume")
    if entry_type in ("techreport", "report"):
        if fields.get("number"):
            extra["number"] = _text(fields, "number")
        record["issue"] = _text(fields, "issue")
    else:
        record["issue"] = _text(fields, "number", "issue")
    record["pages"] = F.pages(decode(fields.get("pages", "")))
    record["publisher"] = _text(fields, "publisher", "school", "institution", "organization")
    record["abstract"] = F.clean_block(decode(fields.get("abstract", "")))
    keywords = F.split_list(decode(fields.get("keywords", "")))
    record["keywords"] = keywords
    url = _url(fields)
    doi = F.doi_of(verbatim(fields.get("doi", ""))) or F.doi_of_url(url)
    record["doi"] = doi
    arxiv = _arxiv(fields, doi, url)
    record["arxiv"] = arxiv
    pmid = re.sub(r"\D", "", verbatim(fields.get("pmid", "")))
    record["pmid"] = pmid if 0 < len(pmid) <= 10 else ""
    pmcid = F.clean_line(verbatim(fields.get("pmcid", ""))).upper()
    record["pmcid"] = pmcid if re.fullmatch(r"PMC\d+", pmcid) else ""
    record["url"] = url
    record["language"] = _text(fields, "langid", "language")
    record["extra"] = F.clean_block(decode(fields.get("note", "")))
    journal_named = bool(fields.get("journal", "").strip() or fields.get("journaltitle", ""))
    if arxiv and (entry_type in _PREPRINT_TYPES or (entry_type == "article" and not journal_named)):
        record["type"] = "preprint"
    else:
        record["type"] = ENTRY_TYPES.get(entry_type, "document")
    for name in ("isbn", "issn"):
        value = F.clean_line(verbatim(fields.get(name, "")))
        if value:
            extra[name] = value
    if context.encoding != "utf-8":
        extra["encoding"] = context.encoding
    record = {k: v for k, v in record.items() if v not in (None, "", [], {})}
    key = F.clean_key(entry.key) or F.derived_key(
        SOURCE, record.get("authors", []), year, record.get("title", "")
    )
    tags = F.unique([*keywords, *F.split_list(decode(fields.get("mendeley-tags", "")))])
    groups = F.split_list(decode(fields.get("groups", "")))
    collections = F.unique(
        [context.group_paths.get(g, g) for g in groups]
        + F.split_list(decode(fields.get("mendeley-groups", "")))
    )
    version = F.version_of(entry_type, entry.key, sorted(fields.items()))
    return RefItem(
        source=SOURCE,
        key=key,
        record=record,
        version=version,
        collections=tuple(collections),
        tags=tuple(tags),
        attachments=_attachments(fields, context.base, context.roots),
        notes=_notes(fields),
        line=line,
        extra=extra,
    )
