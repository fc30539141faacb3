"""A Zotero item's fields as a record in the :mod:`prioris.refman.items` form.

Zotero's fields arrive under their own names (and their base-field names, so
``proceedingsTitle`` is also ``publicationTitle``); this module names them as Prioris does:
the CSL type (:data:`ITEM_TYPES`), ``year`` and ``published`` from Zotero's multipart date
(:func:`parse_date`), the venue, the creators and primary authors, and the identifiers
found in the DOI field, Extra's ``Key: value`` lines and the URL. Pure: no database and no
files, so the mapping is tested on plain dicts, apart from the table readers that collect
the fields.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from prioris.errors import PriorisError
from prioris.identifiers import (
    arxiv_id_from_doi,
    find_identifiers_in_text,
    normalise_arxiv,
    normalise_doi,
)
from prioris.provenance import MAX_YEAR, MIN_YEAR, alias_of, alias_value
from prioris.refman.zotero.values import as_text

ITEM_TYPES: dict[str, str] = {
    "artwork": "graphic",
    "audioRecording": "song",
    "bill": "bill",
    "blogPost": "post-weblog",
    "book": "book",
    "bookSection": "chapter",
    "case": "legal_case",
    "computerProgram": "software",
    "conferencePaper": "paper-conference",
    "dataset": "dataset",
    "dictionaryEntry": "entry-dictionary",
    "document": "document",
    "email": "personal_communication",
    "encyclopediaArticle": "entry-encyclopedia",
    "film": "motion_picture",
    "forumPost": "post",
    "hearing": "hearing",
    "instantMessage": "personal_communication",
    "interview": "interview",
    "journalArticle": "article-journal",
    "letter": "personal_communication",
    "magazineArticle": "article-magazine",
    "manuscript": "manuscript",
    "map": "map",
    "newspaperArticle": "article-newspaper",
    "patent": "patent",
    "podcast": "broadcast",
    "preprint": "preprint",
    "presentation": "speech",
    "radioBroadcast": "broadcast",
    "report": "report",
    "standard": "standard",
    "statute": "legislation",
    "thesis": "thesis",
    "tvBroadcast": "broadcast",
    "videoRecording": "motion_picture",
    "webpage": "webpage",
}
"""Zotero item type -> CSL type, as Zotero's schema.json ``csl.types`` maps them, except
``preprint``: CSL calls it ``article``, which Prioris's exports read as a journal article,
so it stays ``preprint`` (the kind every export knows). Unknown types are ``document``."""

_MULTIPART = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:\s|$)")
_YEAR = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
_URL_DOI = re.compile(
    r"(?:^https?://(?:dx\.)?doi\.org/|/doi/(?:abs/|full/|pdf/|epdf/)?)(10\.\d{4,9}/[^\s?#]+)",
    re.IGNORECASE,
)
"""A DOI in a URL, only where the URL says it is one (doi.org, a publisher's /doi/ path):
a DOI-looking path elsewhere could join the item with the wrong work."""
_EXTRA_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z -]*?)\s*:\s*(.+?)\s*$")


def parse_date(value: str) -> tuple[int | None, str | None]:
    """``year`` and ISO ``published`` from Zotero's stored date.

    Zotero stores ``date`` as "YYYY-MM-DD original text" with zeros for unknown parts
    (``"2017-00-00 2017"``, ``"2016-12-00 12/2016"``); a date it could not parse is
    "0000-00-00 text". A value without that form (written by another tool) gives its first
    plausible four-digit year only.
    """
    value = as_text(value)
    match = _MULTIPART.match(value)
    if not match:
        found = _YEAR.search(value)
        year = int(found.group(1)) if found else None
        if year is None or not MIN_YEAR <= year <= MAX_YEAR:
            return None, None
        return year, f"{year:04d}"
    year, month, day = (int(g) for g in match.groups())
    if not MIN_YEAR <= year <= MAX_YEAR:
        rest = value[match.end() :]
        return parse_date(rest) if rest.strip() and _YEAR.search(rest) else (None, None)
    published = f"{year:04d}"
    if 1 <= month <= 12:
        published += f"-{month:02d}"
        if 1 <= day <= calendar.monthrange(year, month)[1]:
            published += f"-{day:02d}"
    return year, published


def _extra_fields(extra: str) -> dict[str, str]:
    """``Key: value`` lines of Extra, keys lower-cased (the first of each key wins)."""
    found: dict[str, str] = {}
    for line in extra.splitlines():
        match = _EXTRA_LINE.match(line)
        if match:
            found.setdefault(match.group(1).strip().lower(), match.group(2))
    return found


def _doi(value: str) -> str | None:
    value = value.strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        if value.lower().startswith(prefix):
            value = value[len(prefix) :]
            break
    return normalise_doi(value)


def _checked_id(name: str, value: str) -> str | None:
    """A PMID/PMCID as the record field holds it, or None when it is no such id."""
    try:
        return alias_value(name, alias_of(name, value))
    except PriorisError:
        return None


def build_record(
    type_name: str,
    fields: Mapping[str, str],
    creators: list[dict[str, str]],
    primary_roles: frozenset[str] = frozenset(("author",)),
) -> dict[str, Any]:
    """An item's record in the :mod:`prioris.refman.items` form, empty values left out."""
    record: dict[str, Any] = {"type": ITEM_TYPES.get(type_name, "document")}
    title = fields.get("title")
    if title:
        record["title"] = title
    if creators:
        record["creators"] = [dict(c) for c in creators]
        chosen = [c for c in creators if c["role"] in (primary_roles or {"author"})] or creators
        record["authors"] = [c["name"] for c in chosen]
        record["author_parts"] = [
            {k: c[k] for k in ("family", "given", "literal") if c.get(k)} for c in chosen
        ]
    year, published = parse_date(fields.get("date", ""))
    if year is not None:
        record["year"] = year
    if published:
        record["published"] = published
    venue = fields.get("publicationTitle") or fields.get("conferenceName")
    for name, value in (
        ("venue", venue),
        ("volume", fields.get("volume")),
        ("issue", fields.get("issue")),
        ("pages", fields.get("pages")),
        ("publisher", fields.get("publisher")),
        ("abstract", fields.get("abstractNote")),
        ("url", fields.get("url")),
        ("language", fields.get("language")),
        ("extra", fields.get("extra")),
    ):
        if value:
            record[name] = value
    record.update(_identifiers(fields))
    return record


def _identifiers(fields: Mapping[str, str]) -> dict[str, str]:
    """DOI, arXiv id, PMID and PMCID from the fields, Extra and the URL (first found wins)."""
    extra = fields.get("extra", "")
    lines = _extra_fields(extra)
    url = fields.get("url", "")
    found: dict[str, str] = {}
    doi = _doi(fields.get("DOI", "")) or _doi(lines.get("doi", ""))
    if not doi and url:
        match = _URL_DOI.search(url)
        doi = normalise_doi(unquote(match.group(1)).rstrip(".,;")) if match else None
    if doi:
        found["doi"] = doi
    arxiv = None
    for text in (fields.get("archiveID", ""), url, extra):
        arxiv = next((i.value for i in find_identifiers_in_text(text) if i.scheme == "arxiv"), None)
        if arxiv:
            break
    if not arxiv and lines.get("arxiv"):
        arxiv = normalise_arxiv(lines["arxiv"].split()[0])
    if not arxiv and doi:
        arxiv = arxiv_id_from_doi(doi)
    if arxiv:
        found["arxiv"] = arxiv
    for name in ("pmid", "pmcid"):
        value = lines.get(name)
        checked = _checked_id(name, value.split()[0]) if value else None
        if checked:
            found[name] = checked
    return found


def citation_key(fields: Mapping[str, str]) -> dict[str, str]:
    """``{"citation_key": ...}`` when the item has one: Zotero 7's ``citationKey`` field or
    Better BibTeX's ``Citation Key:`` line in Extra (exports can reuse it)."""
    key = fields.get("citationKey") or _extra_fields(fields.get("extra", "")).get("citation key")
    return {"citation_key": key.strip()} if key and key.strip() else {}


__all__ = ["ITEM_TYPES", "build_record", "citation_key", "parse_date"]
