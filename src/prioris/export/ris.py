"""RIS records (EndNote, Zotero, Mendeley, RefWorks) written with ``rispy``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import rispy

from prioris.export.clean import exportable_abstract, strip_markers
from prioris.export.keys import unique_keys
from prioris.export.kinds import entry_kind, is_preprint_server
from prioris.export.names import arxiv_id, doi, is_collective, page_range, split_name, work_url
from prioris.export.own import own_doi, own_names
from prioris.models import Work, display_title


class _Writer(rispy.RisWriter):
    """rispy's writer without its ``1.`` counter line before each record (not RIS; some
    readers take it for a stray line)."""

    def set_header(self, count: int) -> str:
        return ""


RIS_TYPES = {
    "article": "JOUR",
    "inproceedings": "CPAPER",
    "book": "BOOK",
    "incollection": "CHAP",
    "phdthesis": "THES",
    "mastersthesis": "THES",
    "techreport": "RPRT",
    "preprint": "UNPB",
    "misc": "GEN",
}
"""The RIS type of each kind (``CPAPER`` is a paper in proceedings, as Zotero writes it)."""


def _own_name(part: dict[str, str]) -> str:
    """RIS's ``Family, Given`` (or the name as one, for an organisation)."""
    if part.get("literal"):
        return part["literal"]
    given = ", ".join(p for p in (part.get("given"), part.get("suffix")) if p)
    return f"{part.get('family', '')}, {given}" if given else part.get("family", "")


def ris_record(work: Work, key: str) -> dict[str, Any]:
    """One record in rispy's field names; ``key`` is the BibTeX key (RIS ``ID``)."""
    kind = entry_kind(work)
    record: dict[str, Any] = {
        "type_of_reference": RIS_TYPES[kind],
        "id": key,
        "title": strip_markers(display_title(work.title)),
    }
    authors = [_own_name(p) for p in own_names(work) or []]
    for name in [] if authors else work.authors:
        family, given = split_name(name)
        authors.append(name if is_collective(name) or not given else f"{family}, {given}")
    if authors:
        record["authors"] = authors
    if work.year:
        record["year"] = str(work.year)
    match = re.match(r"^(\d{4})-(\d{2})(?:-(\d{2}))?", work.published or "")
    if match:
        record["date"] = f"{match.group(1)}/{match.group(2)}/{match.group(3) or ''}/"
    venue = (work.venue or "").strip()
    if venue and not (kind in ("preprint", "misc") and is_preprint_server(venue)):
        if kind in ("phdthesis", "mastersthesis", "techreport"):
            record["publisher"] = venue
        else:
            record["secondary_title"] = venue  # T2: journal, proceedings or book title
            if kind == "article":
                record["journal_name"] = venue
    if work.volume:
        record["volume"] = work.volume
    if work.issue:
        record["number"] = work.issue
    pages = page_range(work.pages)
    if pages:
        record["start_page"] = pages[0]
        if pages[1]:
            record["end_page"] = pages[1]
    if work.publisher and "publisher" not in record:
        record["publisher"] = work.publisher
    found_doi = own_doi(work, doi(work))
    if found_doi:
        record["doi"] = found_doi
    url = work_url(work)
    if url:
        record["urls"] = [url]
    arxiv = arxiv_id(work)
    if arxiv and kind == "preprint":
        record.setdefault("publisher", "arXiv")
        record["notes"] = [f"arXiv:{arxiv}"]
    if work.keywords:
        record["keywords"] = list(work.keywords)
    abstract = exportable_abstract(work)
    if abstract:
        record["abstract"] = abstract
    return record


def to_ris(works: Iterable[Work]) -> str:
    """RIS text, one record per work, IDs the same as the BibTeX keys."""
    works = list(works)
    keys = unique_keys(works)
    records = [ris_record(w, k) for w, k in zip(works, keys, strict=True)]
    return dumps(records)


def dumps(records: list[dict[str, Any]]) -> str:
    """RIS text of rispy-shaped records (whitespace in values folded: one line each)."""
    tidy = [
        {
            k: (" ".join(v.split()) if isinstance(v, str) else [" ".join(x.split()) for x in v])
            for k, v in record.items()
        }
        for record in records
    ]
    return rispy.dumps(tidy, implementation=_Writer) if tidy else ""
