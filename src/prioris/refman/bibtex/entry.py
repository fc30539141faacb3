"""One BibTeX entry's fields as a :class:`~prioris.refman.items.RefItem`.

Names, dates, identifiers, the type, keywords and groups, notes and file links: what
each becomes is described in :mod:`prioris.refman.bibtex`. LaTeX is decoded by
:mod:`prioris.refman.latex`, values normalised by :mod:`prioris.refman.fields` and file
links resolved by :mod:`prioris.refman.filelinks`. Separate from the reading of the file:
it sees one entry's fields and the file-wide :class:`Context`, never the parser's blocks
beyond the entry, so the mapping can change without touching how the file is split.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import Entry

from prioris.refman import fields as F
from prioris.refman.bibtex.blocks import entry_fields
from prioris.refman.filelinks import bibdesk_path, resolve, resolve_field, unique
from prioris.refman.html_text import has_tag, strip_tags
from prioris.refman.items import RefAttachment, RefItem, RefNote
from prioris.refman.latex import decode, verbatim
from prioris.strings import without_surrogates
from prioris.text_clean import remove_controls

SOURCE = "bibtex"

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
_PREPRINT_TYPES = ("misc", "unpublished", "online", "electronic", "www")


@dataclass(frozen=True)
class Context:
    """What the whole file tells about each entry: ``@string`` values, where links are
    looked for, and JabRef's group tree."""

    strings: dict[str, str]
    base: Path
    roots: tuple[Path, ...]
    group_paths: dict[str, str]
    encoding: str


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


_LINK_FIELDS = frozenset({"file", "pdf", "local-url", "groups", "mendeley-groups"})


def as_written(entry_type: str, fields: dict[str, str]) -> dict[str, Any]:
    """The entry as the user wrote it (its type and its fields' LaTeX, ``@string``s
    expanded), so an export gives back their own DOI spelling, URL, braces and fields
    Prioris has no column for; links to files on this disk and JabRef's groups are left
    out (they say where things are here, not what the work is)."""
    kept: dict[str, str] = {}
    for name, value in fields.items():
        key = remove_controls(without_surrogates(name)).strip()
        text = remove_controls(without_surrogates(value)).strip()  # the LaTeX kept
        if key and text and key not in _LINK_FIELDS and not key.startswith("bdsk-"):
            kept[key] = text
    return {"type": F.clean_line(entry_type), "fields": kept}


def name_parts(value: str) -> list[dict[str, str]]:
    """The author list split the BibTeX way into ``family`` / ``given`` (a name in one
    pair of braces, ``{World Health Organization}``, is a ``literal``): a double surname
    written ``García Márquez, Gabriel`` keeps both words as its family name."""
    try:
        names = split_multiple_persons_names(value)
    except Exception:
        names = re.split(r"\s+and\s+", value)
    parts: list[dict[str, str]] = []
    for name in names:
        text = F.clean_line(name)
        if not text or text.casefold() in ("others", "et al.", "et al"):
            continue
        if text.startswith("{") and text.endswith("}") and _one_group(text):
            parts.append({"literal": F.clean_line(decode(text))})
            continue
        try:
            split = parse_single_name_into_parts(text, strict=False)
        except Exception:
            parts.append({"literal": F.clean_line(decode(text))})
            continue
        family = F.clean_line(" ".join(decode(w) for w in [*split.von, *split.last]))
        given = F.clean_line(" ".join(decode(w) for w in split.first))
        suffix = F.clean_line(" ".join(decode(w) for w in split.jr))
        part = {"family": family, "given": given}
        if suffix:
            part["suffix"] = suffix
        parts.append(part if family else {"literal": F.clean_line(decode(text))})
    return parts


def _one_group(text: str) -> bool:
    """Whether ``{...}`` is one brace group (not ``{A} and {B}``)."""
    depth = 0
    for index, ch in enumerate(text):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0 and index < len(text) - 1:
            return False
    return depth == 0


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
        if has_tag(raw):  # a note with some HTML: its tags go, in one forward scan
            raw = strip_tags(raw)
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


def build_item(entry: Entry, context: Context, *, raw: bool, line: int | None) -> RefItem:
    """The entry as an item (``raw``: bibtexparser did not run its middlewares on it;
    ``line``: where it starts). Raises whatever goes wrong; the reader reports it."""
    entry_type = F.clean_line(entry.entry_type).lower()
    fields = entry_fields(entry, context.strings, raw=raw)
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
    record["author_parts"] = name_parts(fields.get("author", ""))
    record["as_written"] = as_written(entry_type, fields)
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
