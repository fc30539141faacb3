"""OpenAlex work records: JSON objects of ``/works`` as :class:`~prioris.models.Work`.

Pure functions without I/O, kept apart from the client (:mod:`prioris.sources.openalex`) so
they are tested on recorded responses: the abstract rebuilt from its inverted index, ids
found in ``ids``, DOIs and location URLs (OpenAlex, DOI, arXiv, PMCID, PMID), the
locations the fetch ladder reads, authorships and topics.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from prioris.errors import ParseError
from prioris.identifiers import arxiv_id_from_doi as _arxiv_from_doi
from prioris.identifiers import normalise_arxiv
from prioris.models import Work
from prioris.sources.record_fields import openalex_fields

_OPENALEX_WORK = re.compile(
    r"^(?:openalex:|https?://(?:www\.)?openalex\.org/(?:works/)?)?(W\d+)$", re.I
)
_DOI_PREFIX = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", re.I)
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7}(?:v\d+)?"
_ARXIV_URL = re.compile(
    rf"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/({_ARXIV_NEW}|{_ARXIV_OLD})"
    r"(?:\.pdf)?/?(?:[?#].*)?$",
    re.I,
)
_PMC_URL = re.compile(
    r"(?:ncbi\.nlm\.nih\.gov/pmc/articles/|pmc\.ncbi\.nlm\.nih\.gov/articles/"
    r"|europepmc\.org/(?:article/PMC/|articles/))(PMC\d+)",
    re.I,
)


def rebuild_abstract(inverted_index: dict[str, Any] | None) -> str:
    """Plain text from OpenAlex's ``{"word": [positions]}`` abstract encoding.

    OpenAlex may not redistribute abstracts verbatim, so it ships this index; words are
    placed back at their positions and joined by single spaces (missing positions skipped).
    """
    if not inverted_index or not isinstance(inverted_index, dict):
        return ""
    placed: dict[int, str] = {}
    for word, positions in inverted_index.items():
        if not isinstance(positions, list):
            continue
        for position in positions:
            if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
                placed[position] = str(word)
    return " ".join(placed[i] for i in sorted(placed))


def openalex_work_id(text: str) -> str | None:
    """``W123`` (upper-case) from ``W123``, ``openalex:W123`` or an openalex.org URL; else None."""
    match = _OPENALEX_WORK.match(text)
    return match.group(1).upper() if match else None


def normalize_doi(raw: str | None) -> str | None:
    """``10.1234/abc`` (lower-case) from a bare DOI, ``doi:`` or a doi.org URL; else None."""
    if not raw or not isinstance(raw, str):
        return None
    text = raw.strip()
    stripped = _DOI_PREFIX.sub("", text)
    if stripped != text and text.lower().startswith("http"):
        stripped = unquote(stripped)  # URL form: percent-decoded like prioris.identifiers
    doi = stripped.strip().lower()
    return (
        doi if doi.startswith("10.") and "/" in doi and not any(c.isspace() for c in doi) else None
    )


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """The arXiv id in a DataCite arXiv DOI (``10.48550/arXiv.2401.01234``), else None."""
    return _arxiv_from_doi(doi) if doi else None


def arxiv_id_from_url(url: str | None) -> str | None:
    """The arXiv id (canonical spelling) in an ``arxiv.org/abs|pdf|html/`` URL, else None."""
    if not url or not isinstance(url, str):
        return None
    match = _ARXIV_URL.match(url.strip())
    return normalise_arxiv(match.group(1)) if match else None


def id_tail(url: Any) -> str | None:
    """Last path segment of an OpenAlex id URL (``https://pubmed.../123`` -> ``123``)."""
    if not isinstance(url, str) or not url.strip():
        return None
    return url.strip().rstrip("/").rsplit("/", 1)[-1] or None


def _pmcid(raw: Any) -> str | None:
    tail = id_tail(raw)
    if not tail:
        return None
    digits = tail.upper().removeprefix("PMC")
    return f"PMC{digits}" if digits.isdigit() else None


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (fields may hold anything)."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_int(value: Any) -> int | None:
    """An int from an int or ASCII digits ("²" is a digit to str.isdigit but not to int)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= 18:
            return int(text)
    return None


def _str(value: Any) -> str | None:
    """A non-empty stripped string, or None for anything else (a number, a list, ...)."""
    return value.strip() or None if isinstance(value, str) else None


def _location(loc: dict[str, Any]) -> dict[str, Any]:
    """The part of an OpenAlex location the fetch ladder and users need."""
    source = as_dict(loc.get("source"))
    return {
        "version": loc.get("version") if isinstance(loc.get("version"), str) else None,
        "pdf_url": loc.get("pdf_url") if isinstance(loc.get("pdf_url"), str) else None,
        "landing_page_url": (
            loc.get("landing_page_url") if isinstance(loc.get("landing_page_url"), str) else None
        ),
        "is_oa": loc.get("is_oa") if isinstance(loc.get("is_oa"), bool) else None,
        "source": source.get("display_name")
        if isinstance(source.get("display_name"), str)
        else None,
        "license": loc.get("license") if isinstance(loc.get("license"), str) else None,
    }


def _locations(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """All locations, with ``best_oa_location`` / ``primary_location`` added if missing."""
    raw = [as_dict(loc) for loc in _list(obj.get("locations")) if isinstance(loc, dict)]
    for extra_key in ("best_oa_location", "primary_location"):
        extra = as_dict(obj.get(extra_key))
        if extra and extra not in raw:
            raw.append(extra)
    out: list[dict[str, Any]] = []
    for loc in raw:
        parsed = _location(loc)
        if parsed not in out:
            out.append(parsed)
    return out


def _authors(obj: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for authorship in _list(obj.get("authorships")):
        authorship = as_dict(authorship)
        name = as_dict(authorship.get("author")).get("display_name") or authorship.get(
            "raw_author_name"
        )
        if isinstance(name, str) and name.strip():
            names.append(name.strip())
    return names


def _concepts(obj: dict[str, Any]) -> list[str]:
    """Topic names (primary first), then legacy concept names, without duplicates."""
    names: list[str] = []
    entries = [obj.get("primary_topic"), *_list(obj.get("topics")), *_list(obj.get("concepts"))]
    for entry in entries:
        name = as_dict(entry).get("display_name")
        if isinstance(name, str) and name.strip() and name.strip() not in names:
            names.append(name.strip())
    return names


def _find_arxiv(
    doi: str | None, ids: dict[str, Any], locations: list[dict[str, Any]]
) -> str | None:
    found = arxiv_id_from_doi(doi)
    if found:
        return found
    for value in ids.values():
        if isinstance(value, str):
            found = arxiv_id_from_url(value) or arxiv_id_from_doi(normalize_doi(value))
            if found:
                return found
    for loc in locations:
        found = arxiv_id_from_url(loc.get("landing_page_url")) or arxiv_id_from_url(
            loc.get("pdf_url")
        )
        if found:
            return found
    return None


def _find_pmcid(ids: dict[str, Any], locations: list[dict[str, Any]]) -> str | None:
    found = _pmcid(ids.get("pmcid"))
    if found:
        return found
    for loc in locations:
        for url in (loc.get("landing_page_url"), loc.get("pdf_url")):
            match = _PMC_URL.search(url or "")
            if match:
                return match.group(1).upper()
    return None


def parse_openalex_work(obj: dict[str, Any]) -> Work:
    """One OpenAlex work object as a :class:`Work` (id ``openalex:W…``, aliases, OA data).

    Partial objects (``select=``) are accepted; a record with neither an OpenAlex id nor a
    DOI cannot be identified and raises ParseError.
    """
    if not isinstance(obj, dict):
        raise ParseError(f"OpenAlex work is not a JSON object: {type(obj).__name__}")
    ids = as_dict(obj.get("ids"))
    wid = None
    for candidate in (obj.get("id"), ids.get("openalex")):
        wid = openalex_work_id(candidate.strip()) if isinstance(candidate, str) else None
        if wid:
            break
    doi = normalize_doi(obj.get("doi")) or normalize_doi(ids.get("doi"))
    locations = _locations(obj)
    arxiv_id = _find_arxiv(doi, ids, locations)
    pmcid = _find_pmcid(ids, locations)
    pmid = id_tail(ids.get("pmid"))

    aliases: list[str] = []
    if wid:
        aliases.append(f"openalex:{wid}")
    if doi:
        aliases.append(f"doi:{doi}")
    if arxiv_id:
        aliases.append(f"arxiv:{arxiv_id}")
    if pmcid:
        aliases.append(f"europepmc:{pmcid}")
    if pmid and pmid.isdigit():
        aliases.append(f"pmid:{pmid}")
    if not aliases:
        raise ParseError("OpenAlex work has neither an OpenAlex id nor a DOI")

    open_access = as_dict(obj.get("open_access"))
    best = as_dict(obj.get("best_oa_location"))
    primary_source = as_dict(as_dict(obj.get("primary_location")).get("source"))
    title = _str(obj.get("title")) or _str(obj.get("display_name")) or ""
    abstract = rebuild_abstract(obj.get("abstract_inverted_index"))
    work_type = obj.get("type") if isinstance(obj.get("type"), str) else None

    extra: dict[str, Any] = {"locations": locations}
    score = obj.get("relevance_score")
    if isinstance(score, int | float) and not isinstance(score, bool) and abs(score) < 1e300:
        extra["relevance_score"] = float(score)
    if isinstance(open_access.get("oa_url"), str):
        extra["oa_url"] = open_access["oa_url"]
    if isinstance(obj.get("type_crossref"), str):
        extra["type_crossref"] = obj["type_crossref"]
    details = openalex_fields(obj)
    if details["source_type"]:
        extra["source_type"] = details["source_type"]

    return Work(
        id=aliases[0],
        title=title,
        authors=_authors(obj),
        year=as_int(obj.get("publication_year")),
        venue=_str(primary_source.get("display_name")),
        abstract=abstract or None,
        aliases=aliases,
        source="openalex",
        published=obj.get("publication_date")
        if isinstance(obj.get("publication_date"), str)
        else None,
        type=work_type,
        is_oa=open_access.get("is_oa") if isinstance(open_access.get("is_oa"), bool) else None,
        oa_status=(
            open_access.get("oa_status") if isinstance(open_access.get("oa_status"), str) else None
        ),
        pdf_url=best.get("pdf_url") if isinstance(best.get("pdf_url"), str) else None,
        cited_by_count=as_int(obj.get("cited_by_count")),
        concepts=_concepts(obj),
        is_preprint=(work_type == "preprint") if work_type else None,
        extra=extra,
        volume=details["volume"],
        issue=details["issue"],
        pages=details["pages"],
        publisher=details["publisher"],
        keywords=details["keywords"],
    )
