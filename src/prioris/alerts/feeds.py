"""Atom and RSS feeds read into candidates: RSS 2.0, RSS 1.0 (RDF Site Summary, what
bioRxiv and many journals' tables of contents serve) and Atom (RFC 4287).

Pure parsing, no I/O (:mod:`prioris.alerts.feed_source` fetches or reads the bytes).
The XML goes through the hardened parser every provider answer goes through
(:func:`prioris.sources.xml.parse_xml`: defusedxml, no entity declarations, no external
entities or DTD fetching, a size bound before parsing and a depth bound after).

What is read of an entry: its title, its summary or description (HTML tags removed) as
the text, its date (Atom ``published`` else ``updated``; RSS ``pubDate``, ``dc:date``,
``prism:publicationDate``), its authors, and every identifier it carries
(``dc:identifier``, ``prism:doi``, an Atom ``id`` such as ``info:doi/10...``, a DOI or
arXiv link), in the library's canonical forms.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET

from prioris.alerts.protocols import Candidate
from prioris.alerts.source_kit import canonical_identifiers
from prioris.alerts.when import normalise_date
from prioris.errors import ParseError
from prioris.sources.europepmc import strip_tags
from prioris.sources.xml import local_name, parse_xml

ATOM = "{http://www.w3.org/2005/Atom}"
RSS1 = "{http://purl.org/rss/1.0/}"
RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
DC = "{http://purl.org/dc/elements/1.1/}"
PRISM_NAMESPACES = (
    "{http://prismstandard.org/namespaces/basic/2.0/}",
    "{http://prismstandard.org/namespaces/basic/2.1/}",
    "{http://prismstandard.org/namespaces/1.2/basic/}",
)
CONTENT = "{http://purl.org/rss/1.0/modules/content/}"
DEFAULT_MAX_FEED_BYTES = 8 * 1024 * 1024
"""Largest feed parsed: a journal's table of contents is tens of KB, bioRxiv's busiest
subject feed well under a MB."""


def _text(element: ET.Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def _first(entry: ET.Element, *tags: str) -> str:
    """The text of the first of ``tags`` the entry has (non-empty)."""
    for tag in tags:
        for found in entry.findall(tag):
            value = _text(found)
            if value:
                return value
    return ""


def _prism(entry: ET.Element, name: str) -> list[str]:
    return [_text(e) for ns in PRISM_NAMESPACES for e in entry.findall(f"{ns}{name}")]


def _clean(markup: str) -> str:
    """Feed text that may hold HTML (escaped or not) as plain text."""
    return strip_tags(markup) if "<" in markup or "&" in markup else " ".join(markup.split())


def _candidate(
    source: str,
    *,
    title: str,
    text: str,
    published: str,
    link: str,
    own_id: str,
    ids: list[str],
    authors: list[str],
) -> Candidate:
    identifiers = canonical_identifiers([own_id, *ids, link])
    title = _clean(title)
    fallback = "feed:" + hashlib.sha1(title.encode("utf-8")).hexdigest()[:16]
    extra = {"url": link, "authors": "; ".join(a for a in authors[:20] if a)}
    return Candidate(
        id=identifiers[0] if identifiers else (own_id or link or fallback),
        title=title,
        text=_clean(text),
        source=source,
        published=normalise_date(published),
        identifiers=identifiers,
        extra={k: v for k, v in extra.items() if v},
    )


def _atom_entries(root: ET.Element, source: str) -> list[Candidate]:
    out = []
    for entry in root.findall(f"{ATOM}entry"):
        link = ""
        for candidate_link in entry.findall(f"{ATOM}link"):
            if candidate_link.get("rel", "alternate") == "alternate" and candidate_link.get("href"):
                link = candidate_link.get("href", "").strip()
                break
        out.append(
            _candidate(
                source,
                title=_first(entry, f"{ATOM}title"),
                text=_first(entry, f"{ATOM}summary", f"{ATOM}content"),
                published=_first(entry, f"{ATOM}published", f"{ATOM}updated", f"{DC}date"),
                link=link,
                own_id=_first(entry, f"{ATOM}id"),
                ids=[_text(e) for e in entry.findall(f"{DC}identifier")] + _prism(entry, "doi"),
                authors=[_text(a.find(f"{ATOM}name")) for a in entry.findall(f"{ATOM}author")],
            )
        )
    return out


def _rss_item(item: ET.Element, source: str, ns: str) -> Candidate:
    guid = _first(item, f"{ns}guid")
    return _candidate(
        source,
        title=_first(item, f"{ns}title", f"{DC}title"),
        text=_first(item, f"{ns}description", f"{CONTENT}encoded", f"{DC}description"),
        published=_first(item, f"{ns}pubDate", f"{DC}date")
        or next((d for d in _prism(item, "publicationDate") if d), ""),
        link=_first(item, f"{ns}link") or item.get(f"{RDF}about", ""),
        own_id=guid,
        ids=[_text(e) for e in item.findall(f"{DC}identifier")] + _prism(item, "doi"),
        authors=[_text(e) for e in item.findall(f"{DC}creator")]
        + [_text(e) for e in item.findall(f"{ns}author")],
    )


def parse_feed(
    data: bytes | str, *, source: str, max_bytes: int = DEFAULT_MAX_FEED_BYTES
) -> list[Candidate]:
    """The entries of an Atom, RSS 2.0 or RSS 1.0 feed as candidates, in the feed's order;
    ParseError for anything else (an HTML page, a broken or hostile document)."""
    root = parse_xml(data, max_bytes=max_bytes, what=f"the feed of {source}")
    kind = local_name(root.tag)
    if root.tag == f"{ATOM}feed":
        return _atom_entries(root, source)
    if kind == "rss":  # RSS 0.9x / 2.0: no namespace, items inside the channel
        channel = root.find("channel")
        items = channel.findall("item") if channel is not None else []
        return [_rss_item(item, source, "") for item in items]
    if root.tag == f"{RDF}RDF":  # RSS 1.0: items beside the channel, in the RSS 1.0 namespace
        return [_rss_item(item, source, RSS1) for item in root.findall(f"{RSS1}item")]
    raise ParseError(f"the feed of {source} is not Atom, RSS 2.0 or RSS 1.0 (root <{kind}>)")
