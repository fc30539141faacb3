"""An item as the library stores it: its work, aliases, origin record and text files.

Pure functions of one :class:`~prioris.refman.items.RefItem`, with no storage and no
ingest: the planning (:mod:`.plan`), the file ingest (:mod:`.files`) and the writes
(:mod:`.apply`) all read an item through them, so what a work's fields, aliases and
record are, and which of its attachments give its text, is decided in one place.
"""

from __future__ import annotations

from typing import Any

from prioris.models import Work
from prioris.refman.items import HTML, PDF, RefAttachment, RefItem

ID_FIELDS = ("doi", "arxiv", "pmid", "pmcid")
WORK_FIELDS = (
    "title",
    "authors",
    "year",
    "venue",
    "abstract",
    "published",
    "type",
    "volume",
    "issue",
    "pages",
    "publisher",
    "keywords",
)


def readable(item: RefItem) -> list[RefAttachment]:
    """The item's attachments that are files on disk (not missing, not links)."""
    return [a for a in item.attachments if a.path is not None and not a.missing]


def text_files(item: RefItem) -> list[RefAttachment]:
    """The files an item's text comes from: its PDFs, else its first web snapshot."""
    files = readable(item)
    pdfs = [a for a in files if is_pdf(a)]
    return pdfs or [a for a in files if is_html(a)][:1]


def is_pdf(attachment: RefAttachment) -> bool:
    """A PDF by its content type, else by its file name."""
    if attachment.content_type == PDF:
        return True
    return attachment.path is not None and attachment.path.suffix.lower() == ".pdf"


def is_html(attachment: RefAttachment) -> bool:
    """A web snapshot by its content type, else by its file name."""
    if attachment.content_type == HTML:
        return True
    return attachment.path is not None and attachment.path.suffix.lower() in (".html", ".htm")


def aliases(item: RefItem) -> list[str]:
    """The item's key and the identifiers of its record, as the work's aliases."""
    names = [f"{item.source}:{item.key}"]
    own_key = item.extra.get("citation_key")  # Better BibTeX's or Zotero 7's citation key
    if item.source != "bibtex" and isinstance(own_key, str) and own_key.strip():
        names.append(f"bibtex:{own_key.strip()}")
    record = item.record
    if record.get("doi"):
        names.append(f"doi:{str(record['doi']).strip().lower()}")
    if record.get("arxiv"):
        names.append(f"arxiv:{str(record['arxiv']).strip()}")
    if record.get("pmid"):
        names.append(f"europepmc:MED:{str(record['pmid']).strip()}")
    if record.get("pmcid"):
        pmcid = str(record["pmcid"]).strip().upper().removeprefix("PMC")
        names.append(f"europepmc:PMC{pmcid}")
    return names


def work_of(item: RefItem, work_id: str) -> Work:
    """The item as a :class:`Work` with id ``work_id`` (fields from its record)."""
    record = item.record
    values: dict[str, Any] = {}
    for name in WORK_FIELDS:
        value = record.get(name)
        if value in (None, "", []):
            continue
        values[name] = list(value) if name in ("authors", "keywords") else value
    year = values.get("year")
    if year is not None:
        try:
            values["year"] = int(year)
        except (TypeError, ValueError):
            values.pop("year")
    extra = {k: record[k] for k in ("url", "language") if record.get(k)}
    return Work(
        id=work_id,
        aliases=aliases(item),
        source=item.source,
        extra=extra,
        **values,
    )


def origin_record(item: RefItem) -> dict[str, Any]:
    """The record kept as the item's origin: its fields and where it came from."""
    record = {k: v for k, v in item.record.items() if v not in (None, "", [])}
    record["key"] = item.key
    return record
