"""Provenance: which source's value each field of a work takes, in one pure merge.

A work's bibliographic fields come from several records kept side by side in
``work_records`` (one per origin). The ``works`` row is their merge, computed here and
nowhere else, with one explicit precedence, highest first:

1. ``user``: the user's corrections (``prioris edit``, the web form, the MCP tool). A field
   the user cleared is recorded as ``null`` and stays cleared: no other source fills it.
2. a reference manager: ``zotero``, ``bibtex``, ``ris`` (a later issue imports these), and
   ``import`` (a JSONL record the user imported). Among them the newest record wins.
3. a provider: ``openalex``, ``europepmc``, ``arxiv``. Among them the newest record wins,
   as before (a later enrichment replaced an earlier one's values).
4. ``pdf_metadata``: the PDF's embedded Info dictionary / XMP, only the fields trusted.
5. ``printed``: what the first page of the PDF printed.

An origin not named here ranks between the providers and ``pdf_metadata``. A source's
empty value (None, "", []) is no value: the next source is asked. A field no record has
keeps the work's stored value (``base``): a file name as title, or a work stored before
records were kept.

Why one pure function: every path that writes a work's fields (ingest of a new work or of
another file of the same work, ``ingest --force``, ``enrich``, ``edit``, ``undo``, fetch
and import of records) calls :func:`merge_records` through ``storage.merged``, so a user's
correction survives every one of them by construction rather than by care in each path.

The identifiers (``doi``, ``arxiv``, ``pmid``, ``pmcid``, ``openalex``) are fields too; the
work keeps them as aliases (``doi:10.1/x``, ``arxiv:2401.01234v2``, ``europepmc:MED:1``,
``europepmc:PMC1``, ``openalex:W1``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prioris.errors import InvalidRequestError, PriorisError
from prioris.identifiers import parse_identifier
from prioris.strings import without_surrogates

USER = "user"
REFERENCE_MANAGERS = ("zotero", "bibtex", "ris", "import")
PROVIDERS = ("openalex", "europepmc", "arxiv")
PDF_METADATA = "pdf_metadata"
PRINTED = "printed"
PRECEDENCE = (USER, *REFERENCE_MANAGERS, *PROVIDERS, PDF_METADATA, PRINTED)
"""Every known origin, highest first (within a tier the newest record wins)."""

TEXT_FIELDS = ("title", "published", "venue", "volume", "issue", "pages", "publisher", "type")
LIST_FIELDS = ("authors", "keywords")
ID_FIELDS = ("doi", "arxiv", "pmid", "pmcid", "openalex")
FIELDS = (
    "title",
    "authors",
    "year",
    "published",
    "venue",
    "volume",
    "issue",
    "pages",
    "publisher",
    "type",
    "abstract",
    "keywords",
    *ID_FIELDS,
)
"""The fields a user can edit and whose origin is kept, in display order."""

WORK_FIELDS = tuple(f for f in FIELDS if f not in ID_FIELDS)
"""The fields that are columns of ``works`` (the ids are aliases)."""

ALIASES = {
    "doi": "doi:",
    "arxiv": "arxiv:",
    "pmid": "europepmc:MED:",
    "pmcid": "europepmc:PMC",
    "openalex": "openalex:",
}
_ALIAS_KEYS = {"doi": ("doi",), "arxiv": ("arxiv", "arxiv_id"), "pmid": ("pmid",)}
_DATE = re.compile(r"^\d{4}(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?$")
MAX_TEXT = 100_000  # an abstract; a title or a name is far shorter
MIN_YEAR, MAX_YEAR = 1000, 2999


def _tier(origin: str) -> int:
    if origin == USER:
        return 0
    if origin in REFERENCE_MANAGERS:
        return 1
    if origin in PROVIDERS:
        return 2
    if origin == PDF_METADATA:
        return 4
    if origin == PRINTED:
        return 5
    return 3


def ranked(records: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Origins highest first: by tier, then newest ``recorded_at``, then a fixed order."""
    order = {name: i for i, name in enumerate(PRECEDENCE)}
    dates = {o: str(records[o].get("recorded_at") or "") for o in records}
    # one rank per distinct date, so records of equal date tie here and the fixed order
    # decides (a reversed stable sort would rank them by the mapping's insertion order)
    newest = {date: i for i, date in enumerate(sorted(set(dates.values()), reverse=True))}
    return sorted(records, key=lambda o: (_tier(o), newest[dates[o]], order.get(o, 99), o))


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def alias_value(name: str, alias: str) -> str | None:
    """The field value an alias carries (``doi:10.1/x`` is ``10.1/x`` for ``doi``)."""
    prefix = ALIASES[name]
    if not alias.startswith(prefix):
        return None
    value = alias[len(prefix) :]
    return f"PMC{value}" if name == "pmcid" else value


def alias_of(name: str, value: str) -> str:
    """The alias a field value is stored as; InvalidRequestError when it is no such id."""
    text = str(value).strip()
    try:
        ident = parse_identifier(f"PMID:{text}" if name == "pmid" and text.isdigit() else text)
    except PriorisError as exc:
        raise InvalidRequestError(f"{name}: {text!r} is not a valid {name} ({exc})") from exc
    canonical = ident.canonical
    if alias_value(name, canonical) is None:
        raise InvalidRequestError(f"{name}: {text!r} is not a {name} (it reads as {canonical})")
    return canonical


def _record_ids(record: Mapping[str, Any]) -> dict[str, str]:
    """The ids a source record names, by field, from its own keys or its aliases."""
    found: dict[str, str] = {}
    aliases = [str(record.get("id") or ""), *(record.get("aliases") or [])]
    for name in ID_FIELDS:
        for key in _ALIAS_KEYS.get(name, (name,)):
            value = record.get(key)
            if not _empty(value):
                try:
                    found[name] = alias_value(name, alias_of(name, str(value))) or str(value)
                except InvalidRequestError:
                    continue
                break
        if name in found:
            continue
        for alias in aliases:
            value = alias_value(name, str(alias))
            if value:
                found[name] = value
                break
    return found


def _record_value(record: Mapping[str, Any], name: str, ids: Mapping[str, str]) -> Any:
    if name in ID_FIELDS:
        return ids.get(name)
    value = record.get(name)
    if name == "year" and value is not None:
        try:
            return int(value)
        except (TypeError, ValueError):
            return None
    if name in LIST_FIELDS and value is not None:
        return [str(v) for v in value if not _empty(v)] if isinstance(value, list) else None
    return value


@dataclass
class Merged:
    """A work's merged fields (every name of :data:`FIELDS`) and where each came from."""

    fields: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)


def merge_records(
    records: Mapping[str, Mapping[str, Any]],
    base: Mapping[str, Any] | None = None,
    base_origins: Mapping[str, str] | None = None,
) -> Merged:
    """Merge a work's source records by :data:`PRECEDENCE` (pure; see the module text).

    ``records`` is ``{origin: record}`` (``recorded_at`` in a record orders its tier); the
    ``user`` record's explicit ``null`` clears a field. ``base`` holds the work's stored
    values, taken (with ``base_origins``) for a field that no record has.
    """
    merged = Merged()
    order = ranked(records)
    ids = {origin: _record_ids(records[origin]) for origin in order}
    for name in FIELDS:
        for origin in order:
            record = records[origin]
            if origin == USER:
                if name not in record:
                    continue
                value = _record_value(record, name, ids[origin])
                merged.fields[name] = [] if value is None and name in LIST_FIELDS else value
                merged.origins[name] = USER
                break
            value = _record_value(record, name, ids[origin])
            if not _empty(value):
                merged.fields[name] = value
                merged.origins[name] = origin
                break
        else:
            value = (base or {}).get(name)
            if name in LIST_FIELDS:
                value = list(value or [])
            merged.fields[name] = value
            origin = (base_origins or {}).get(name)
            if origin and not _empty(value):
                merged.origins[name] = str(origin)
    return merged


def fields_of(work: Any) -> dict[str, Any]:
    """A stored work's :data:`FIELDS` (the ids read from its id and aliases)."""
    values: dict[str, Any] = {name: getattr(work, name) for name in WORK_FIELDS}
    for name in LIST_FIELDS:
        values[name] = list(values[name] or [])
    for name in ID_FIELDS:
        values[name] = next(
            (
                v
                for alias in [work.id, *work.aliases]
                if (v := alias_value(name, alias)) is not None
            ),
            None,
        )
    return values


def record_of(work: Any) -> dict[str, Any]:
    """A work's fields as a source record (a fetched or imported work's own record)."""
    record: dict[str, Any] = {"id": work.id, "aliases": list(work.aliases)}
    for name in WORK_FIELDS:
        value = getattr(work, name)
        if not _empty(value):
            record[name] = list(value) if isinstance(value, list) else value
    return record


def origin_of_source(source: str) -> str:
    """The record origin of a work's ``source``: a provider or reference manager names its
    own (``zotero``, ``bibtex``, ``ris``); any other imported record is ``import``."""
    return source if source in PROVIDERS or source in REFERENCE_MANAGERS else "import"


# -- the user's patch ---------------------------------------------------------------------
def _text(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise InvalidRequestError(f"{name} must be text, got {type(value).__name__}")
    text = without_surrogates(str(value)).strip()
    if name != "abstract":  # one line: runs of spaces and line breaks become one space
        text = " ".join(text.split())
    if len(text) > MAX_TEXT:
        raise InvalidRequestError(f"{name} is longer than {MAX_TEXT} characters")
    return text or None


def _year(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidRequestError(f"year must be a whole number, got {value!r}")
    text = str(value).strip()
    if not re.fullmatch(r"\d{1,4}", text) or not MIN_YEAR <= int(text) <= MAX_YEAR:
        raise InvalidRequestError(
            f"year must be a four-digit year ({MIN_YEAR}-{MAX_YEAR}), got {value!r}"
        )
    return int(text)


def _names(name: str, value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence):
        raise InvalidRequestError(f"{name} must be a list of text")
    items = [_text(name, v) for v in value]
    return [v for v in items if v]


def validate_patch(patch: Any) -> dict[str, Any]:
    """The user's patch ``{field: value}`` checked and normalised (null clears a field).

    Unknown fields, a year that is no year, a date that is no ISO date, an id that is no
    such id and an empty title are InvalidRequestError naming the field; nothing is stored
    when any field is bad. The ids come back as field values (``doi``: ``10.1/x``).
    """
    if not isinstance(patch, Mapping):
        raise InvalidRequestError("the changes must be a JSON object {field: value}")
    unknown = sorted(str(k) for k in patch if k not in FIELDS)
    if unknown:
        raise InvalidRequestError(
            f"unknown field(s) {', '.join(unknown)}; editable fields: {', '.join(FIELDS)}"
        )
    if not patch:
        raise InvalidRequestError("nothing to change: give at least one field")
    clean: dict[str, Any] = {}
    for name, value in patch.items():
        if name == "year":
            clean[name] = _year(value)
        elif name in LIST_FIELDS:
            clean[name] = _names(name, value)
        elif name in ID_FIELDS:
            text = _text(name, value)
            clean[name] = None if text is None else alias_value(name, alias_of(name, text))
        else:
            clean[name] = _text(name, value)
        if name == "published" and clean[name] is not None and not _DATE.match(clean[name]):
            raise InvalidRequestError(
                f"published must be an ISO date (YYYY, YYYY-MM or YYYY-MM-DD), got {value!r}"
            )
    if "title" in clean and not clean["title"]:
        raise InvalidRequestError("title cannot be empty; give the work's title")
    return clean
