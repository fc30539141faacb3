"""CSL-JSON items (citeproc, Zotero, pandoc ``--citeproc``) and the CSL type of a kind."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from prioris.export.clean import exportable_abstract, strip_markers
from prioris.export.kinds import entry_kind, is_preprint_server
from prioris.export.names import (
    arxiv_id,
    doi,
    is_collective,
    page_range,
    pmcid,
    pmid,
    split_name,
    work_url,
)
from prioris.export.own import own_doi, own_names
from prioris.models import Work, display_title

CSL_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "book": "book",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "preprint": "article",
    "misc": "document",
}
"""The CSL type of each kind; ``article`` is CSL's type for preprints, ``document`` (CSL
1.0.2) the type of a work nothing more is known of."""
_MISC_TYPES = {"dataset": "dataset", "standard": "standard", "software": "software"}


def _issued(work: Work) -> dict[str, Any] | None:
    if work.published:
        parts = re.match(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", work.published)
        if parts and (not work.year or int(parts.group(1)) == work.year):
            return {"date-parts": [[int(p) for p in parts.groups() if p]]}
    if work.year:
        return {"date-parts": [[work.year]]}
    return None


def csl_item(work: Work) -> dict[str, Any]:
    """One CSL-JSON item for ``work`` (``id`` is the work id)."""
    kind = entry_kind(work)
    csl_type = CSL_TYPES[kind]
    if kind == "misc":
        csl_type = _MISC_TYPES.get((work.type or "").lower(), csl_type)
    title = strip_markers(display_title(work.title))
    item: dict[str, Any] = {"id": work.id, "type": csl_type, "title": title}
    authors: list[dict[str, str]] = [dict(p) for p in own_names(work) or []]
    for name in [] if authors else work.authors:
        family, given = split_name(name)
        if is_collective(name) or not given:
            authors.append({"literal": name})
        else:
            authors.append({"family": family, "given": given})
    if authors:
        item["author"] = authors
    issued = _issued(work)
    if issued:
        item["issued"] = issued
    venue = (work.venue or "").strip()
    arxiv = arxiv_id(work)
    if venue and not (kind in ("preprint", "misc") and is_preprint_server(venue)):
        if kind in ("phdthesis", "mastersthesis", "techreport"):
            item["publisher"] = venue
        else:
            item["container-title"] = venue
    if kind in ("phdthesis", "mastersthesis"):
        item["genre"] = "PhD thesis" if kind == "phdthesis" else "Master's thesis"
    if work.volume:
        item["volume"] = work.volume
    if work.issue:
        item["issue"] = work.issue
    pages = page_range(work.pages)
    if pages:
        item["page"] = f"{pages[0]}-{pages[1]}" if pages[1] else pages[0]
    if work.publisher and "publisher" not in item:
        item["publisher"] = work.publisher
    if kind == "preprint" and arxiv:
        item.setdefault("publisher", "arXiv")
        item["number"] = f"arXiv:{arxiv}"
    found_doi = own_doi(work, doi(work))
    if found_doi:
        item["DOI"] = found_doi
    url = work_url(work)
    if url:
        item["URL"] = url
    if pmcid(work):
        item["PMCID"] = pmcid(work)
    if pmid(work):
        item["PMID"] = pmid(work)
    if work.keywords:
        item["keyword"] = ", ".join(work.keywords)
    abstract = exportable_abstract(work)
    if abstract:
        item["abstract"] = abstract
    return item


def to_csl_json(works: Iterable[Work]) -> list[dict[str, Any]]:
    """CSL-JSON items, one per work."""
    return [csl_item(work) for work in works]
