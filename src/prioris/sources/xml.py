"""Hardened XML parsing for everything a provider sends (arXiv Atom, OAI-PMH, JATS).

Rules (SPEC section 10): no entity declarations (no billion laughs), no external entities
or DTD fetching (no network, no local file reads), a size bound checked before parsing and
a depth bound checked right after (the renderers recurse over the tree).
A bare ``<!DOCTYPE article PUBLIC ...>`` line is tolerated because every real JATS file
from Europe PMC starts with one; the DTD it names is never loaded.

Every failure is a :class:`~prioris.errors.ParseError`. Callers that parse an API response
(rather than a document) re-raise it as ProviderUnavailableError: an unreadable response is
the provider's failure, a broken document is an ingest failure.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from prioris.errors import ParseError

DEFAULT_MAX_XML_BYTES = 50 * 1024 * 1024
"""Largest XML payload parsed (JATS full texts are rarely above a few megabytes)."""
MAX_XML_DEPTH = 256
"""Deepest element nesting accepted. Real JATS with MathML stays under ~60 levels; the
renderers recurse over the tree, so a deeper (hostile) document must be refused here,
before it can raise RecursionError far from any error handling."""


def parse_xml(
    data: bytes | str,
    *,
    max_bytes: int = DEFAULT_MAX_XML_BYTES,
    max_depth: int = MAX_XML_DEPTH,
    what: str = "XML",
) -> ET.Element:
    """Parse ``data`` safely and return the root element; ParseError on anything unsafe/broken."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > max_bytes:
        raise ParseError(f"{what} is {size} bytes, more than the limit of {max_bytes}")
    if size == 0 or not data.strip():
        raise ParseError(f"{what} is empty")
    try:
        root = fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise ParseError(
            f"{what} refused: {type(exc).__name__} (entities or external "
            "references are not allowed)"
        ) from exc
    except ET.ParseError as exc:
        raise ParseError(f"{what} is malformed: {exc}") from exc
    except (LookupError, ValueError) as exc:  # an unknown or unusable declared encoding
        raise ParseError(f"{what} cannot be decoded: {exc}") from exc
    _check_depth(root, max_depth, what)
    return root


def _check_depth(root: ET.Element, max_depth: int, what: str) -> None:
    """ParseError when any element sits deeper than ``max_depth`` (iterative: no recursion)."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise ParseError(f"{what} is nested deeper than {max_depth} levels; refused")
        if len(node):
            stack.extend((child, depth + 1) for child in node)


def local_name(tag: str) -> str:
    """``{namespace}name`` -> ``name`` (JATS mixes namespaced and plain elements)."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def text_of(element: ET.Element | None) -> str:
    """All text inside ``element`` with whitespace collapsed ('' for None)."""
    if element is None:
        return ""
    return " ".join("".join(element.itertext()).split())
