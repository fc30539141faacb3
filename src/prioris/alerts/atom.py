"""A ranking as an Atom feed (RFC 4287), readable by any feed reader: one entry per
candidate, best first, its summary saying why it is there."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree

ATOM = "http://www.w3.org/2005/Atom"


def why_text(why: dict[str, Any]) -> str:
    """A candidate's why in one line: the library works nearest to it, then its terms."""
    nearest = "; ".join(n["title"] or n["id"] for n in why.get("nearest", []))
    terms = ", ".join(t["term"] for t in why.get("terms", []))
    parts = [f"Near: {nearest}" if nearest else "", f"Terms: {terms}" if terms else ""]
    return " | ".join(p for p in parts if p)


def _tag_uri(*parts: str) -> str:
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]
    return f"urn:prioris:alerts:{digest}"


def atom_feed(title: str, candidates: Sequence[dict[str, Any]], updated: str) -> str:
    """The Atom XML of one collection's ranking (``candidates`` as ``alerts rank`` gives
    them: ``{"id", "title", "score", "why", "in_library", "link"?}``); ``updated`` is an
    RFC 3339 time."""
    ElementTree.register_namespace("", ATOM)
    feed = ElementTree.Element(f"{{{ATOM}}}feed")
    ElementTree.SubElement(feed, f"{{{ATOM}}}title").text = f"Prioris alerts: {title}"
    ElementTree.SubElement(feed, f"{{{ATOM}}}id").text = _tag_uri("feed", title)
    ElementTree.SubElement(feed, f"{{{ATOM}}}updated").text = updated
    author = ElementTree.SubElement(feed, f"{{{ATOM}}}author")
    ElementTree.SubElement(author, f"{{{ATOM}}}name").text = "Prioris"
    ElementTree.SubElement(feed, f"{{{ATOM}}}generator").text = "Prioris"
    for rank, item in enumerate(candidates, 1):
        entry = ElementTree.SubElement(feed, f"{{{ATOM}}}entry")
        ElementTree.SubElement(entry, f"{{{ATOM}}}title").text = item["title"] or item["id"]
        ident = str(item["id"])
        is_uri = ident.startswith(("http://", "https://", "urn:", "tag:"))
        ElementTree.SubElement(entry, f"{{{ATOM}}}id").text = (
            ident if is_uri else _tag_uri("entry", ident)
        )
        ElementTree.SubElement(entry, f"{{{ATOM}}}updated").text = updated
        link = item.get("link") or (ident if ident.startswith(("http://", "https://")) else "")
        if link:
            ElementTree.SubElement(entry, f"{{{ATOM}}}link", href=link, rel="alternate")
        summary = f"#{rank}, score {item['score']:.3f}. {why_text(item.get('why') or {})}"
        if item.get("in_library"):
            summary += " (already in the library)"
        ElementTree.SubElement(entry, f"{{{ATOM}}}summary").text = summary
    body = ElementTree.tostring(feed, encoding="unicode")
    return f'<?xml version="1.0" encoding="utf-8"?>\n{body}\n'
