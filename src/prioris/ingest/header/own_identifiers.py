"""The paper's own DOI and arXiv id, from the places it prints them about itself.

Identifiers become aliases of a work, and a wrong alias would merge two papers, so only
one DOI and one arXiv id are kept, each from the most trustworthy place it appears (the
caller, :mod:`prioris.ingest.header.metadata`, orders the sources: the metadata, page
1's rotated margin text, its header and footer, its text, page 2, and a "Cite this
article as" box on a later page). References sections and ``arXiv preprint arXiv:...``
citations are not searched. Kept apart from the metadata's title, authors and year, which
it shares nothing with (``find_own_identifiers`` is re-exported there).
"""

from __future__ import annotations

import re

from prioris.identifiers import find_identifiers_in_text

_REFERENCES = re.compile(r"(?im)^(?:#{1,3}\s*)?(?:\d+\.?\s*)?(?:references|bibliography)\s*$")
_CITED_PREPRINT = re.compile(r"(?i)arxiv\s+preprint\s*,?\s*(?:arxiv\s*:\s*)?\S+")
_CITE_BOX = re.compile(r"(?is)(?:cite this article|to cite this|please cite)")
_BARE_STAMP = re.compile(r"(?<![\w.:/])(\d{4}\.\d{4,5}v\d+)\s*\[([a-z-]+(?:\.[A-Za-z-]+)?)\]")


# Unicode non-characters (U+FFFE, U+FFFF, U+FDD0-U+FDEF): what some text layers give for a
# glyph they cannot map; glued to a DOI they would become part of it
_NONCHARACTERS = re.compile("[\ufdd0-\ufdef\ufffe\uffff]")


def _searchable(text: str) -> str:
    text = _NONCHARACTERS.sub(" ", text)
    cut = _REFERENCES.search(text)
    if cut:
        text = text[: cut.start()]
    return _CITED_PREPRINT.sub(" ", text)


_VERSIONED = re.compile(r"^(doi:.+\.)(\d{1,2})$")


def _later_version(kept: str, other: str) -> bool:
    """Whether ``other`` is ``kept`` in a later version (``...4767.1`` -> ``...4767.2``):
    a versioned article lists its versions' DOIs, and the PDF is the latest it lists."""
    a, b = _VERSIONED.match(kept), _VERSIONED.match(other)
    return bool(a and b) and a.group(1) == b.group(1) and int(b.group(2)) > int(a.group(2))


def find_own_identifiers(sources: list[str]) -> list[str]:
    """At most one DOI and one arXiv id, each from the first source (most trusted) having
    one (the latest version of a versioned DOI that source lists)."""
    best: dict[str, str] = {}
    for text in sources:
        found: dict[str, str] = {}
        for ident in find_identifiers_in_text(_searchable(text)):
            mine = found.setdefault(ident.scheme, ident.canonical)
            if _later_version(mine, ident.canonical):
                found[ident.scheme] = ident.canonical
        for scheme, value in found.items():
            best.setdefault(scheme, value)
    return [best[scheme] for scheme in ("doi", "arxiv") if scheme in best]


def ocr_stamp(text: str) -> str:
    """An OCR'd arXiv stamp loses its rotated "arXiv:" prefix; put it back where the
    ``id [category]`` shape leaves no doubt (``1706.03762v7 [cs.CL]``)."""
    return _BARE_STAMP.sub(r"arXiv:\1 [\2]", text)


def cite_boxes(page_texts: list[str]) -> str:
    """Paragraphs of later pages that say how to cite the paper (they carry its DOI)."""
    boxes = []
    for text in page_texts[2:]:
        for paragraph in re.split(r"\n\s*\n", text):
            if _CITE_BOX.search(paragraph):
                boxes.append(paragraph)
    return "\n\n".join(boxes)
