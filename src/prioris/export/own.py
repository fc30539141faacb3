"""What the user wrote, given back: a reference manager's record beside a work.

A work imported from a .bib file, Zotero or RIS keeps that record (``work_records``); the
export service puts it in ``work.extra["own_record"]`` (``services/catalog_export.py``).
Wherever the library's merged value of a field still agrees with that record (the user
did not correct it in Prioris, no other source filled what the record lacked), the
exporters write the user's own form: their DOI spelling, their URL, their names split
their way (``García Márquez, Gabriel``; ``{World Health Organization}``), and for a .bib
entry its own LaTeX, entry type and the fields Prioris has no column for. Where they
disagree, the library's value is written, so a correction made in Prioris is exported.

Pure functions of a :class:`~prioris.models.Work`; no storage.
"""

from __future__ import annotations

import re
from typing import Any

from prioris.models import Work

CONCEPTS: dict[str, tuple[str, ...]] = {
    "authors": ("author",),
    "title": ("title",),
    "venue": ("journal", "journaltitle", "booktitle"),
    "year": ("year", "date", "month", "day"),
    "volume": ("volume",),
    "issue": ("number", "issue"),
    "pages": ("pages",),
    "publisher": ("publisher", "school", "institution", "organization"),
    "abstract": ("abstract",),
    "keywords": ("keywords",),
    "doi": ("doi",),
    "arxiv": ("eprint", "archiveprefix", "eprinttype", "primaryclass", "eprintclass"),
    "url": ("url",),
}
"""The .bib fields that say each of the library's fields (an export writes either the
user's fields of a concept or the library's, never a mix)."""

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def own_record(work: Work) -> dict[str, Any] | None:
    """The reference manager's record the export service attached, if any."""
    record = work.extra.get("own_record") if isinstance(work.extra, dict) else None
    return record if isinstance(record, dict) else None


def _alias(work: Work, prefix: str) -> str | None:
    for value in (work.id, *work.aliases):
        if value.lower().startswith(prefix) and len(value) > len(prefix):
            return value[len(prefix) :]
    return None


def agrees(work: Work, record: dict[str, Any], concept: str) -> bool:
    """Whether the work's merged value of ``concept`` is still the record's."""
    if concept == "year":
        return work.year == _int(record.get("year")) and (work.published or None) == (
            record.get("published") or None
        )
    if concept in ("authors", "keywords"):
        return list(getattr(work, concept) or []) == list(record.get(concept) or [])
    if concept == "doi":
        mine = _alias(work, "doi:")
        return (mine or "").casefold() == str(record.get("doi") or "").casefold()
    if concept == "arxiv":
        mine = _alias(work, "arxiv:")
        return (mine or "") == str(record.get("arxiv") or "")
    if concept == "url":
        return (work.extra.get("url") or None) == (record.get("url") or None)
    return (getattr(work, concept) or None) == (record.get(concept) or None)


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def own_doi(work: Work, found: str | None) -> str | None:
    """The DOI as the user spelled it (``10.1000/ABC.Def``) where it is the work's DOI."""
    record = own_record(work)
    if not record or not found:
        return found
    written = (record.get("as_written") or {}).get("fields", {}).get("doi")
    for text in (written, record.get("doi")):
        if isinstance(text, str):
            bare = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", text.strip(), flags=re.I)
            if bare.casefold() == found.casefold():
                return bare
    return found


def own_names(work: Work) -> list[dict[str, str]] | None:
    """The authors split as the user's manager splits them (``family``/``given``, or a
    ``literal``), where the work's authors are still that record's."""
    record = own_record(work)
    if not record or not agrees(work, record, "authors"):
        return None
    parts = record.get("author_parts")
    if not isinstance(parts, list) or len(parts) != len(work.authors):
        return None
    return [p for p in parts if isinstance(p, dict)] or None


def as_written(work: Work) -> dict[str, Any] | None:
    """The .bib entry the work came from (``{"type", "fields"}``), if it did."""
    record = own_record(work)
    written = record.get("as_written") if record else None
    if isinstance(written, dict) and isinstance(written.get("fields"), dict):
        return written
    return None


def merge_entry(
    work: Work, generated: list[tuple[str, str, str]], bib_type: str
) -> tuple[str, list[tuple[str, str]]]:
    """The .bib entry to write: the user's own fields where the work still agrees with
    them, the library's (``generated``: ``(concept, field, value)``) where it does not;
    fields of no concept (``isbn``, ``note``, ``shorttitle``…) as the user wrote them."""
    written = as_written(work)
    record = own_record(work)
    if written is None or record is None:
        return bib_type, [(name, value) for _, name, value in generated]
    fields: dict[str, str] = dict(written["fields"])
    concept_of = {name: c for c, names in CONCEPTS.items() for name in names}
    out: list[tuple[str, str]] = []
    replaced: set[str] = set()
    for concept in CONCEPTS:
        if not agrees(work, record, concept):
            replaced.add(concept)
    for name, value in fields.items():
        concept = concept_of.get(name)
        if concept in replaced:
            continue
        out.append((name, value))
    for concept, name, value in generated:
        if concept in replaced or (concept not in CONCEPTS and name not in fields):
            out.append((name, value))
    same_type = (work.type or None) == (record.get("type") or None)
    return (str(written["type"]) if same_type else bib_type), out


def month_macro(name: str, value: str) -> bool:
    """A ``month`` written as BibTeX's macro (``mar``), to be written without braces."""
    return name == "month" and value.strip().lower() in _MONTHS
