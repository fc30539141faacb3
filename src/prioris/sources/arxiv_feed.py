"""arXiv's API in text: query strings built, Atom feeds and OAI-PMH ListSets parsed.

Pure functions without I/O, kept apart from the client (:mod:`prioris.sources.arxiv`) so
they are tested on recorded feeds. :func:`parse_atom` reads one page of the query API (the
API's error feed is InvalidRequestError), :func:`parse_list_sets` one page of categories,
:func:`build_query` turns plain words into ``all:`` terms; names read as UTF-8 taken for
Latin-1 are repaired (:func:`repair_mojibake`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from prioris.errors import InvalidRequestError, ParseError, ProviderUnavailableError
from prioris.identifiers import normalise_arxiv
from prioris.models import Work
from prioris.sources.record_fields import parse_journal_ref
from prioris.sources.xml import local_name, parse_xml, text_of

ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
# the API's sort keys and paging limits (the CLI's choices read them without the client)
SORT_BY = ("relevance", "lastUpdatedDate", "submittedDate")
SORT_ORDER = ("ascending", "descending")
MAX_RESULTS = 2000
MAX_WINDOW = 30000

_FIELD_RE = re.compile(r"\b(ti|au|abs|co|jr|cat|rn|id|all|submittedDate|lastUpdatedDate):")
_BOOLEAN_RE = re.compile(r"\b(AND|OR|ANDNOT)\b")
_MOJIBAKE_RE = re.compile("[\u00c2-\u00f4][\u0080-\u00bf]")


@dataclass
class ArxivFeed:
    """One page of an arXiv query: OpenSearch counts and the works."""

    total: int
    start: int
    works: list[Work] = field(default_factory=list)
    items_per_page: int = 0


@dataclass(frozen=True)
class ArxivCategory:
    """An OAI-PMH set: ``spec`` as arXiv names it, ``category`` usable in ``cat:`` queries."""

    spec: str
    name: str
    category: str

    def to_dict(self) -> dict[str, str]:
        return {"spec": self.spec, "name": self.name, "category": self.category}


def repair_mojibake(text: str) -> str:
    """Undo UTF-8 read as Latin-1 (``RamÃ­rez`` -> ``Ramírez``), seen in recorded feeds."""
    if not _MOJIBAKE_RE.search(text):
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def _clean(text: str) -> str:
    return repair_mojibake(" ".join(text.split()))


def _ascii_int(text: str) -> int | None:
    """ASCII digits as an int, else None: '²' passes str.isdigit() but not int(), and int()
    refuses more than 4,300 digits."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _entry_id(raw: str) -> str:
    """``http://arxiv.org/abs/1707.08567v1`` -> ``1707.08567v1``."""
    path = urlsplit(raw.strip()).path
    candidate = path.split("/abs/", 1)[1] if "/abs/" in path else path.strip("/")
    value = normalise_arxiv(candidate)
    if value is None:
        raise ParseError(f"arXiv entry has an unexpected id {raw!r}")
    return value


def _parse_entry(entry: Any) -> Work:
    arxiv_id = _entry_id(entry.findtext(f"{ATOM}id", ""))
    published = (entry.findtext(f"{ATOM}published") or "").strip() or None
    updated = (entry.findtext(f"{ATOM}updated") or "").strip() or None
    abs_url = pdf_url = None
    for link in entry.findall(f"{ATOM}link"):
        if link.get("rel") == "alternate":
            abs_url = link.get("href")
        elif link.get("title") == "pdf" or link.get("type") == "application/pdf":
            pdf_url = link.get("href")
    doi_text = (entry.findtext(f"{ARXIV}doi") or "").strip()
    dois = [d.lower() for d in doi_text.split() if d.lower().startswith("10.")]
    primary = entry.find(f"{ARXIV}primary_category")
    categories = [c.get("term", "") for c in entry.findall(f"{ATOM}category") if c.get("term")]
    journal_ref = _clean(entry.findtext(f"{ARXIV}journal_ref") or "") or None
    comment = _clean(entry.findtext(f"{ARXIV}comment") or "") or None
    year = _ascii_int(published[:4]) if published else None
    people = [
        (_clean(a.findtext(f"{ATOM}name") or ""), _clean(a.findtext(f"{ARXIV}affiliation") or ""))
        for a in entry.findall(f"{ATOM}author")
        if (a.findtext(f"{ATOM}name") or "").strip()
    ]
    reference = parse_journal_ref(journal_ref)  # the venue it was published in, if any
    return Work(
        id=f"arxiv:{arxiv_id}",
        volume=reference.get("volume"),
        issue=reference.get("issue"),
        pages=reference.get("pages"),
        title=_clean(entry.findtext(f"{ATOM}title") or ""),
        authors=[name for name, _ in people],
        year=year,
        venue=reference.get("venue") or journal_ref,
        abstract=_clean(entry.findtext(f"{ATOM}summary") or "") or None,
        aliases=[f"doi:{d}" for d in dois],
        source="arxiv",
        published=published,
        type="preprint",
        is_oa=True,
        oa_status="green",
        pdf_url=pdf_url,
        is_preprint=True,
        extra={
            "arxiv_id": arxiv_id,
            "arxiv_versionless": re.sub(r"v\d+$", "", arxiv_id),
            "categories": categories,
            "primary_category": primary.get("term") if primary is not None else None,
            "pdf_url": pdf_url,
            "abs_url": abs_url,
            "updated": updated,
            "comment": comment,
            "journal_ref": journal_ref,
            "doi": dois[0] if dois else None,
            "affiliations": [affiliation or None for _, affiliation in people],
        },
    )


def parse_atom(xml: bytes | str) -> ArxivFeed:
    """An arXiv Atom feed -> :class:`ArxivFeed`; the API's error feed -> InvalidRequestError."""
    root = parse_xml(xml, what="arXiv Atom feed")
    if local_name(root.tag) != "feed":
        raise ParseError(f"arXiv response is not an Atom feed (root <{local_name(root.tag)}>)")
    entries = root.findall(f"{ATOM}entry")
    for entry in entries:
        entry_id = entry.findtext(f"{ATOM}id") or ""
        if (entry.findtext(f"{ATOM}title") or "").strip() == "Error" and "/api/errors" in entry_id:
            message = _clean(entry.findtext(f"{ATOM}summary") or "unknown error")
            raise InvalidRequestError(f"arXiv rejected the request: {message}")

    def _int(tag: str) -> int:
        return _ascii_int((root.findtext(f"{OPENSEARCH}{tag}") or "").strip()) or 0

    return ArxivFeed(
        total=_int("totalResults"),
        start=_int("startIndex"),
        works=[_parse_entry(entry) for entry in entries],
        items_per_page=_int("itemsPerPage"),
    )


def build_query(query: str) -> str:
    """Plain words -> ``all:w1 AND all:w2``; prefixed or boolean queries pass through."""
    query = query.strip()
    if _FIELD_RE.search(query) or _BOOLEAN_RE.search(query) or '"' in query:
        return query
    return " AND ".join(f"all:{word}" for word in query.split())


def parse_list_sets(xml: bytes | str) -> tuple[list[ArxivCategory], str | None]:
    """One OAI-PMH ListSets page -> (categories, resumption token or None)."""
    root = parse_xml(xml, what="arXiv OAI-PMH response")
    error = root.find(f"{OAI}error")
    if error is not None:
        raise ProviderUnavailableError(
            f"arxiv: OAI-PMH error {error.get('code', '?')}: {text_of(error)}"
        )
    result: list[ArxivCategory] = []
    for item in root.iter(f"{OAI}set"):
        spec = (item.findtext(f"{OAI}setSpec") or "").strip()
        if not spec:
            continue
        name = " ".join((item.findtext(f"{OAI}setName") or "").split())
        parts = spec.split(":")
        if len(parts) >= 3:
            category = f"{parts[1]}.{parts[2]}" if parts[1] == parts[0] else parts[2]
        else:
            category = parts[-1]
        result.append(ArxivCategory(spec=spec, name=name, category=category))
    token_el = root.find(f".//{OAI}resumptionToken")
    token = (token_el.text or "").strip() if token_el is not None else ""
    return result, token or None
