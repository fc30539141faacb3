"""OpenAlex work objects reduced to the graph records the citation graph keeps and returns.

A graph record is a small dict (a few KB a work where OpenAlex sends tens), the form the
cache keeps and :class:`prioris.discovery.graph.GraphRecords` gives; :func:`record_work`
turns one back into a :class:`~prioris.models.Work` for the fetch ladder, and
:data:`WORK_FIELDS` names the fields of OpenAlex's work it is built from (what the client
asks for with ``select=``). Separate from the client (:mod:`prioris.sources.openalex_graph`)
because it is pure parsing: no request, no cache, no budget.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prioris.errors import ParseError
from prioris.models import Work
from prioris.sources.openalex_records import openalex_work_id, parse_openalex_work

__all__ = ["SELECT", "WORK_FIELDS", "graph_record", "record_work", "records_of"]


WORK_FIELDS = (
    "id",
    "doi",
    "title",
    "display_name",
    "publication_year",
    "publication_date",
    "ids",
    "type",
    "authorships",
    "primary_location",
    "best_oa_location",
    "locations",
    "open_access",
    "cited_by_count",
    "referenced_works",
    "related_works",
    "abstract_inverted_index",
)
"""What a graph record is built from (``select=``): ids, the bibliographic fields, the
locations the fetch ladder reads, the abstract and the two lists of linked works."""
SELECT = ",".join(WORK_FIELDS)


def _ids(values: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for value in values:
        wid = openalex_work_id(value.strip()) if isinstance(value, str) else None
        if wid:
            out.append(wid)
    return out


def graph_record(obj: dict[str, Any]) -> dict[str, Any] | None:
    """One OpenAlex work object as a graph record (see :class:`GraphRecords`), or None
    when it cannot be identified.

    ``{"id": "W123", "title", "authors", "year", "doi", "arxiv", "pmid", "pmcid", "venue",
    "type", "cited_by_count", "referenced_works", "related_works", "is_oa", "pdf_url",
    "abstract"}`` with missing values None or [], ids without the ``https://openalex.org/``
    prefix; ``published`` and ``locations`` (what :func:`record_work` gives the fetch
    ladder) are added. The fields are read as :func:`parse_openalex_work` reads them.
    """
    try:
        work = parse_openalex_work(obj)
    except ParseError:
        return None
    wid = work.id.removeprefix("openalex:") if work.id.startswith("openalex:") else None
    if not wid:
        return None
    aliases = {a.split(":", 1)[0]: a.split(":", 1)[1] for a in reversed(work.aliases)}
    pmcid = aliases.get("europepmc")
    return {
        "id": wid,
        "title": work.title or None,
        "authors": list(work.authors),
        "year": work.year,
        "doi": aliases.get("doi"),
        "arxiv": aliases.get("arxiv"),
        "pmid": aliases.get("pmid"),
        "pmcid": pmcid if pmcid and pmcid.upper().startswith("PMC") else None,
        "venue": work.venue,
        "type": work.type,
        "cited_by_count": work.cited_by_count,
        "referenced_works": list(dict.fromkeys(_ids(obj.get("referenced_works") or []))),
        "related_works": list(dict.fromkeys(_ids(obj.get("related_works") or []))),
        "is_oa": work.is_oa,
        "pdf_url": work.pdf_url,
        "abstract": work.abstract,
        "published": work.published,
        "locations": list(work.extra.get("locations") or []),
    }


def record_work(record: dict[str, Any]) -> Work:
    """A graph record as a :class:`Work` (id ``openalex:W…``, its aliases and locations),
    the form :func:`prioris.discovery.fetch_route` reads."""
    aliases = [f"openalex:{record['id']}"]
    for scheme, key in (("doi", "doi"), ("arxiv", "arxiv"), ("europepmc", "pmcid")):
        if record.get(key):
            aliases.append(f"{scheme}:{record[key]}")
    if record.get("pmid"):
        aliases.append(f"pmid:{record['pmid']}")
    work_type = record.get("type")
    return Work(
        id=aliases[0],
        title=record.get("title") or "",
        authors=list(record.get("authors") or []),
        year=record.get("year"),
        venue=record.get("venue"),
        abstract=record.get("abstract"),
        aliases=aliases,
        source="openalex",
        published=record.get("published"),
        type=work_type,
        is_oa=record.get("is_oa"),
        pdf_url=record.get("pdf_url"),
        cited_by_count=record.get("cited_by_count"),
        is_preprint=(work_type == "preprint") if work_type else None,
        extra={"locations": list(record.get("locations") or [])},
    )


def records_of(objects: Iterable[Any]) -> list[dict[str, Any]]:
    """The graph records of OpenAlex work objects, those that cannot be identified left out."""
    records = []
    for obj in objects:
        record = graph_record(obj) if isinstance(obj, dict) else None
        if record:
            records.append(record)
    return records
