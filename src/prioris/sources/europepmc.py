"""Europe PMC: REST search (``resultType=core``, cursor paging), batch metadata, JATS full text.

:func:`parse_search` is a pure parser of the JSON search response. Choices worth knowing:

* A work's id is ``europepmc:PMC...`` when Europe PMC knows a PMCID, else
  ``europepmc:MED:<pmid>`` (or ``europepmc:<SRC>:<id>`` for other sources such as PPR).
* Preprints are detected from the publication types (``Preprint``) or the PPR source, and
  marked ``is_preprint=True`` with ``extra["peer_reviewed"] = False``.
* Full text is requested only for a PMCID, from ``/{PMCID}/fullTextXML``; a 404 or an empty
  body is FormatUnavailableError (Europe PMC does not host it). A broken JATS body is a
  ParseError (the document, not the provider, is at fault).
* :meth:`EuropePmcClient.fetch_metadata` is strict (NotFoundError naming unknown ids);
  :meth:`EuropePmcClient.fetch_metadata_report` returns ``(works, missing)``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from prioris.config import DEFAULT_MAX_MARKUP_BYTES
from prioris.errors import (
    FormatUnavailableError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
)
from prioris.identifiers import Identifier, parse_identifier
from prioris.models import FullText, Work
from prioris.sources.http import ProviderHttp
from prioris.sources.jats import jats_to_markdown
from prioris.sources.record_fields import europepmc_fields

MAX_PAGE_SIZE = 1000
ID_BATCH = 50
_HEADING_RE = re.compile(r"<h\d[^>]*>(.*?)</h\d>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")


@dataclass
class EuropePmcPage:
    """One page of a Europe PMC search; ``next_cursor`` is None on the last page."""

    total: int
    works: list[Work] = field(default_factory=list)
    next_cursor: str | None = None


def strip_tags(text: str) -> str:
    """Abstract HTML (``<h4>Objective</h4>...``) -> plain text with ``Objective:`` labels."""
    text = _HEADING_RE.sub(lambda m: f" {m.group(1).strip()}: ", text)
    text = re.sub(r"<br\s*/?>|</p>", " ", text, flags=re.IGNORECASE)
    text = html.unescape(_TAG_RE.sub("", text))
    return " ".join(text.split()).lstrip(": ")


def _yes(value: Any) -> bool:
    return str(value or "").strip().upper() == "Y"


def _obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (a provider's shape may drift)."""
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    """A scalar as text ('' for None, lists and objects, which are no names or ids)."""
    return (
        str(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else ""
    )


def _count(value: Any) -> int | None:
    """An int from an int or ASCII digits ('²' passes str.isdigit but not int())."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = _text(value).strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _pub_types(record: dict[str, Any]) -> list[str]:
    listed = _obj(record.get("pubTypeList")).get("pubType")
    if isinstance(listed, str):
        return [listed]
    if isinstance(listed, list):
        return [_text(t) for t in listed if _text(t)]
    lite = _text(record.get("pubType"))  # resultType=lite: "review; journal article"
    return [t.strip() for t in lite.split(";") if t.strip()]


def _person(person: dict[str, Any]) -> str:
    """``firstName lastName`` when both are given (``Jonathan D Schoenfeld``), else the
    index form ``fullName`` (``Schoenfeld JD``) or a collective name."""
    first, last = _text(person.get("firstName")).strip(), _text(person.get("lastName")).strip()
    if first and last:
        return f"{first} {last}"
    return _text(person.get("fullName") or person.get("collectiveName")).strip()


def _authors(record: dict[str, Any]) -> list[str]:
    people = _obj(record.get("authorList")).get("author")
    names = [
        _person(p) for p in (people if isinstance(people, list) else []) if isinstance(p, dict)
    ]
    names = [n for n in names if n]
    if names:
        return names
    author_string = _text(record.get("authorString")).strip().rstrip(".")
    return [a.strip() for a in author_string.split(",") if a.strip()]


def _author_list(record: dict[str, Any]) -> list[dict[str, str | None]]:
    """Authors with their name parts, as ``resultType=core`` lists them."""
    people = _obj(record.get("authorList")).get("author")
    return [
        {
            "full_name": _text(p.get("fullName") or p.get("collectiveName")) or None,
            "first_name": _text(p.get("firstName")) or None,
            "last_name": _text(p.get("lastName")) or None,
            "initials": _text(p.get("initials")) or None,
        }
        for p in (people if isinstance(people, list) else [])
        if isinstance(p, dict)
    ]


def parse_record(record: dict[str, Any]) -> Work:
    """One Europe PMC result (core or lite) -> :class:`Work`."""
    source = _text(record.get("source")).upper()
    ext_id = _text(record.get("id")).strip()
    pmid = _text(record.get("pmid")).strip() or None
    pmcid = _text(record.get("pmcid")).strip().upper() or None
    doi = _text(record.get("doi")).strip().lower() or None
    if pmcid:
        work_id = f"europepmc:{pmcid}"
    elif source == "MED" and (pmid or ext_id):
        work_id = f"europepmc:MED:{pmid or ext_id}"
    elif source and ext_id:
        work_id = f"europepmc:{source}:{ext_id}"
    else:
        raise ProviderUnavailableError("europepmc: a search result has neither id nor source")
    aliases = []
    if doi:
        aliases.append(f"doi:{doi}")
    if pmid:
        aliases.append(f"pmid:{pmid}")
        if work_id != f"europepmc:MED:{pmid}":
            aliases.append(f"europepmc:MED:{pmid}")
    if pmcid and work_id != f"europepmc:{pmcid}":
        aliases.append(f"europepmc:{pmcid}")
    types = _pub_types(record)
    preprint = source == "PPR" or any("preprint" in t.lower() for t in types)
    journal_info = _obj(record.get("journalInfo"))
    venue = _text(_obj(journal_info.get("journal")).get("title")) or _text(
        record.get("journalTitle")
    )
    if not venue and preprint:
        venue = _text(_obj(record.get("bookOrReportDetails")).get("publisher"))
    listed_urls = _obj(record.get("fullTextUrlList")).get("fullTextUrl")
    urls = [
        {
            "url": _text(u.get("url")),
            "style": u.get("documentStyle"),
            "availability": u.get("availabilityCode"),
            "site": u.get("site"),
        }
        for u in (listed_urls if isinstance(listed_urls, list) else [])
        if isinstance(u, dict) and _text(u.get("url"))
    ]
    pdf_url = next(
        (u["url"] for u in urls if u["style"] == "pdf" and u["availability"] in ("OA", "F")), None
    )
    year_text = _text(record.get("pubYear")).strip()
    keywords = _obj(record.get("keywordList")).get("keyword")
    abstract = strip_tags(_text(record.get("abstractText"))) or None
    published = _text(record.get("firstPublicationDate")) or _text(
        record.get("electronicPublicationDate")
    )
    details = europepmc_fields(record)
    return Work(
        id=work_id,
        title=strip_tags(_text(record.get("title"))),
        volume=details["volume"],
        issue=details["issue"],
        pages=details["pages"],
        keywords=details["keywords"],
        authors=_authors(record),
        year=_count(year_text),
        venue=venue.strip() or None,
        abstract=abstract,
        aliases=aliases,
        source="europepmc",
        published=published or None,
        type=types[0] if types else None,
        is_oa=_yes(record.get("isOpenAccess")),
        pdf_url=pdf_url,
        cited_by_count=_count(record.get("citedByCount")),
        concepts=[
            k for k in (keywords if isinstance(keywords, list) else []) if isinstance(k, str)
        ],
        is_preprint=preprint,
        extra={
            "source": source,
            "ext_id": ext_id,
            "pmid": pmid,
            "pmcid": pmcid,
            "doi": doi,
            "pub_types": types,
            "peer_reviewed": False if preprint else None,
            "in_epmc": _yes(record.get("inEPMC")),
            "in_pmc": _yes(record.get("inPMC")),
            "has_pdf": _yes(record.get("hasPDF")),
            "full_text_urls": urls,
            # as Europe PMC gives them (PriorisMCP's record fields)
            "author_list": _author_list(record),
            "journal_info": journal_info or None,
            "pub_year": year_text or None,
            "is_open_access": _text(record.get("isOpenAccess")).strip() or None,
            "license": _text(record.get("license")).strip() or None,
        },
    )


def parse_search(data: Any) -> EuropePmcPage:
    """The JSON of ``/search?format=json`` -> :class:`EuropePmcPage`."""
    if not isinstance(data, dict) or "hitCount" not in data:
        raise ProviderUnavailableError("europepmc: search response has no hitCount")
    results = _obj(data.get("resultList")).get("result")
    works = [
        parse_record(r)
        for r in (results if isinstance(results, list) else [])
        if isinstance(r, dict)
    ]
    request = data.get("request") if isinstance(data.get("request"), dict) else {}
    asked = unquote(str(request.get("cursorMark") or "*"))
    cursor = data.get("nextCursorMark")
    next_cursor = str(cursor) if cursor and works and unquote(str(cursor)) != asked else None
    return EuropePmcPage(
        total=_count(data.get("hitCount")) or 0, works=works, next_cursor=next_cursor
    )


def _as_europepmc(text: str) -> Identifier:
    ident = parse_identifier(text)
    if ident.scheme not in ("europepmc", "doi"):
        raise InvalidRequestError(f"{text!r} is not a Europe PMC identifier (PMC..., PMID:...)")
    return ident


def _clause(ident: Identifier) -> str:
    if ident.scheme == "doi":
        return f'DOI:"{ident.value}"'
    if ident.value.startswith("PMC"):
        return f"PMCID:{ident.value}"
    source, _, ext = ident.value.partition(":")
    return f"(EXT_ID:{ext} AND SRC:{source})"


def _matches(ident: Identifier, work: Work) -> bool:
    extra = work.extra
    if ident.scheme == "doi":
        return extra.get("doi") == ident.value
    if ident.value.startswith("PMC"):
        return extra.get("pmcid") == ident.value
    source, _, ext = ident.value.partition(":")
    if source == "MED" and extra.get("pmid") == ext:
        return True
    return extra.get("source") == source and extra.get("ext_id", "").upper() == ext.upper()


class EuropePmcClient:
    """Europe PMC REST through one :class:`ProviderHttp`."""

    def __init__(
        self, http: ProviderHttp, base_url: str, *, max_xml_bytes: int = DEFAULT_MAX_MARKUP_BYTES
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.max_xml_bytes = max_xml_bytes

    def search(self, query: str, page_size: int = 25, cursor: str = "*") -> EuropePmcPage:
        """One page of a search with full (core) metadata; pass ``next_cursor`` to go on."""
        if not query or not query.strip():
            raise InvalidRequestError("Europe PMC search needs a non-empty query")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise InvalidRequestError(
                f"page_size must be between 1 and {MAX_PAGE_SIZE} (got {page_size})"
            )
        data = self.http.get_json(
            f"{self.base_url}/search",
            params={
                "query": query,
                "resultType": "core",
                "format": "json",
                "pageSize": page_size,
                "cursorMark": cursor or "*",
            },
        )
        return parse_search(data)

    def fetch_metadata_report(self, ids: Sequence[str]) -> tuple[list[Work], list[str]]:
        """(works in input order, ids Europe PMC does not know); one OR query per batch.

        ``missing`` holds the ids as given; one that is not a Europe PMC id at all is
        missing too (never sent), so a mixed batch still returns the records that exist.
        """
        if not ids:
            raise InvalidRequestError("no Europe PMC ids given")
        given: dict[str, Identifier | None] = {}
        for text in ids:
            try:
                given.setdefault(text, _as_europepmc(text))
            except InvalidRequestError:
                given.setdefault(text, None)
        idents = list(dict.fromkeys(i for i in given.values() if i is not None))
        works: list[Work] = []
        for offset in range(0, len(idents), ID_BATCH):
            batch = idents[offset : offset + ID_BATCH]
            page = self.search(
                " OR ".join(_clause(i) for i in batch),
                page_size=min(MAX_PAGE_SIZE, max(25, 2 * len(batch))),
            )
            works.extend(page.works)
        found: list[Work] = []
        missing: list[str] = []
        for text, ident in given.items():
            work = next((w for w in works if _matches(ident, w)), None) if ident else None
            if work is None:
                missing.append(text)
            elif work not in found:
                found.append(work)
        return found, missing

    def fetch_metadata(self, ids: Sequence[str]) -> list[Work]:
        """Works for ``ids`` in order; NotFoundError naming every id Europe PMC does not know
        (InvalidRequestError for text that is no Europe PMC id)."""
        for text in ids:
            _as_europepmc(text)
        works, missing = self.fetch_metadata_report(ids)
        if missing:
            raise NotFoundError(f"Europe PMC has no record for: {', '.join(missing)}")
        return works

    def fetch_full_text(self, pmcid: str) -> FullText:
        """JATS XML of a PMC article hosted by Europe PMC, with its Markdown rendering."""
        ident = _as_europepmc(pmcid)
        if ident.scheme != "europepmc" or not ident.value.startswith("PMC"):
            raise FormatUnavailableError(f"Europe PMC full text needs a PMCID; {pmcid!r} has none")
        url = f"{self.base_url}/{ident.value}/fullTextXML"
        try:
            response = self.http.get(
                url, max_bytes=self.max_xml_bytes, limit_setting="PRIORIS_MCP_MAX_MARKUP_BYTES"
            )
        except NotFoundError as exc:
            raise FormatUnavailableError(
                f"Europe PMC does not host the full text of {ident.value}"
            ) from exc
        if not response.content.strip():
            raise FormatUnavailableError(f"Europe PMC returned no full text for {ident.value}")
        document = jats_to_markdown(response.content, max_bytes=self.max_xml_bytes)
        return FullText(format="xml", content=response.content, url=url, markdown=document.markdown)
