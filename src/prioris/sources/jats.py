"""JATS XML (Europe PMC / PubMed Central full text) -> Markdown.

Front matter gives the title, abstract and identifiers; the body becomes Markdown with
sections as ``#`` / ``##`` / ... headings by nesting depth, paragraphs, lists, tables
flattened to ``a | b`` rows, figure and table captions, formulas as their TeX (or MathML
``alttext``) and, at the end, ``# References`` as a numbered list. Inline styling (italic,
small caps, sub/superscript) is dropped: the Markdown feeds search, not typesetting.

Parsing goes through :func:`prioris.sources.xml.parse_xml` (no entities, no external
references, bounded size); a broken or unsafe document is a ParseError.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from prioris.errors import ParseError
from prioris.sources.xml import DEFAULT_MAX_XML_BYTES, local_name, parse_xml

_BLOCK_TAGS = {
    "list",
    "table-wrap",
    "fig",
    "disp-quote",
    "boxed-text",
    "disp-formula",
    "def-list",
    "statement",
    "supplementary-material",
    "table-wrap-group",
    "fig-group",
    "preformat",
    "code",
}
_SKIP_INLINE = {"object-id", "graphic", "inline-graphic", "media", "alt-text", "ext-link-no"}
_SECTION_TAGS = {
    "sec": "",
    "app": "Appendix",
    "ack": "Acknowledgements",
    "notes": "Notes",
    "glossary": "Glossary",
}
_SKIP_BLOCK = {"title", "label", "caption", "sec-meta", "object-id", "graphic", "alt-text"}
# an untitled <sec> named by its sec-type, so the back matter keeps a heading that says
# what it is (search labels passages by their headings: prioris.ingest.sections)
_SEC_TYPES = {
    "coi-statement": "Competing interests",
    "competing-interests": "Competing interests",
    "conflict": "Competing interests",
    "funding": "Funding",
    "financial-disclosure": "Funding",
    "author-contributions": "Author contributions",
    "author-contribution": "Author contributions",
    "data-availability": "Data availability",
    "ethics-statement": "Ethics statement",
    "supplementary-material": "Supplementary material",
}


@dataclass
class JatsDocument:
    """What the library needs from a JATS article."""

    title: str
    abstract: str
    markdown: str
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    journal: str | None = None


def _squash(text: str) -> str:
    return " ".join(text.split())


def _formula(element: ET.Element) -> str:
    for node in element.iter():
        name = local_name(node.tag)
        if name == "tex-math" and (node.text or "").strip():
            tex = node.text.strip()
            if tex.startswith("\\documentclass"):  # whole LaTeX documents in some articles
                start, end = tex.find("\\begin{document}"), tex.find("\\end{document}")
                if start >= 0 and end > start:
                    tex = tex[start + len("\\begin{document}") : end].strip()
            return f" ${_squash(tex).strip('$')}$ "
    for node in element.iter():
        if local_name(node.tag) == "math" and node.get("alttext"):
            return f" ${_squash(node.get('alttext', ''))}$ "
    return " " + _squash("".join(element.itertext())) + " "


def _inline(element: ET.Element, *, skip_blocks: bool = False) -> str:
    """Text of ``element`` with formulas as TeX; block children skipped when asked."""
    parts = [element.text or ""]
    for child in element:
        name = local_name(child.tag)
        if skip_blocks and name in _BLOCK_TAGS:
            pass
        elif name in ("inline-formula", "disp-formula", "math"):
            parts.append(_formula(child))
        elif name not in _SKIP_INLINE:
            parts.append(_inline(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _child(element: ET.Element, name: str) -> ET.Element | None:
    return next((c for c in element if local_name(c.tag) == name), None)


def _caption(element: ET.Element, kind: str) -> str:
    label = _child(element, "label")
    caption = _child(element, "caption")
    label_text = _squash(_inline(label)) if label is not None else kind
    caption_text = _squash(_inline(caption)) if caption is not None else ""
    return f"{label_text}: {caption_text}".strip().rstrip(":")


def _table_rows(table: ET.Element) -> list[str]:
    rows = []
    for row in table.iter():
        if local_name(row.tag) != "tr":
            continue
        cells = [_squash(_inline(c)) for c in row if local_name(c.tag) in ("td", "th")]
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


def _blocks(element: ET.Element, depth: int, out: list[str]) -> None:
    """Append the Markdown blocks of ``element``'s children to ``out``."""
    for child in element:
        name = local_name(child.tag)
        if name in _SECTION_TAGS:
            label = _child(child, "label")
            title = _child(child, "title")
            heading = (
                " ".join(_squash(_inline(e)) for e in (label, title) if e is not None).strip()
                or _SECTION_TAGS[name]
                or _SEC_TYPES.get((child.get("sec-type") or "").strip().lower(), "")
            )
            if heading:
                out.append("#" * min(depth, 6) + " " + heading)
            _blocks(child, depth + 1, out)
        elif name == "p":
            text = _squash(_inline(child, skip_blocks=True))
            if text:
                out.append(text)
            nested = ET.Element("wrapper")
            nested.extend(c for c in child if local_name(c.tag) in _BLOCK_TAGS)
            _blocks(nested, depth, out)
        elif name == "list":
            for item in child:
                if local_name(item.tag) != "list-item":
                    continue
                text = _squash(_inline(item, skip_blocks=True))
                if text:
                    out.append(f"- {text}")
        elif name in ("table-wrap", "fig", "supplementary-material"):
            kind = {"table-wrap": "Table", "fig": "Figure"}.get(name, "Supplementary material")
            out.append(_caption(child, kind))
            for table in child.iter():
                if local_name(table.tag) == "table" and _table_rows(table):
                    out.append("\n".join(_table_rows(table)))
            foot = _child(child, "table-wrap-foot")
            if foot is not None and _squash(_inline(foot)):
                out.append(_squash(_inline(foot)))
        elif name == "disp-formula":
            out.append(_formula(child).strip())
        elif name == "def-list":
            for item in child:
                term = _child(item, "term")
                definition = _child(item, "def")
                if term is not None or definition is not None:
                    t = _squash(_inline(term)) if term is not None else ""
                    d = _squash(_inline(definition)) if definition is not None else ""
                    out.append(f"- {t}: {d}".rstrip(": "))
        elif name in ("preformat", "code"):
            out.append("```\n" + (child.text or "").strip("\n") + "\n```")
        elif name in _SKIP_BLOCK or name == "ref-list":
            continue
        elif len(child):
            _blocks(child, depth, out)
        else:
            text = _squash(_inline(child))
            if text:
                out.append(text)


def _reference(ref: ET.Element) -> str:
    citation = next(
        (
            c
            for c in ref.iter()
            if local_name(c.tag)
            in ("mixed-citation", "element-citation", "citation", "nlm-citation")
        ),
        None,
    )
    if citation is None:
        return _squash(_inline(ref))
    if local_name(citation.tag) == "mixed-citation":
        return _squash(_inline(citation))
    names = []
    for name in citation.iter():
        if local_name(name.tag) == "name":
            surname = (
                _squash("".join(_child(name, "surname").itertext()))
                if _child(name, "surname") is not None
                else ""
            )
            given = _child(name, "given-names")
            names.append(
                f"{surname} {_squash(''.join(given.itertext()))}".strip()
                if given is not None
                else surname
            )
        elif local_name(name.tag) == "collab":
            names.append(_squash(_inline(name)))

    def part(tag: str) -> str:
        node = _child(citation, tag)
        return _squash(_inline(node)) if node is not None else ""

    pages = "-".join(p for p in (part("fpage"), part("lpage")) if p)
    pieces = [
        ", ".join(names),
        f"({part('year')})" if part("year") else "",
        part("article-title"),
        part("source"),
        part("volume"),
        pages,
    ]
    text = ". ".join(p.rstrip(".") for p in pieces if p)
    for pub_id in citation:
        if local_name(pub_id.tag) == "pub-id" and pub_id.get("pub-id-type") == "doi":
            text += f". doi:{_squash(pub_id.text or '')}"
    return text


def _front(root: ET.Element) -> tuple[JatsDocument, list[str]]:
    meta = next((e for e in root.iter() if local_name(e.tag) == "article-meta"), None)
    doc = JatsDocument(title="", abstract="", markdown="")
    abstract_blocks: list[str] = []
    if meta is None:
        return doc, abstract_blocks
    for node in meta.iter():
        name = local_name(node.tag)
        if name == "article-title" and not doc.title:
            doc.title = _squash(_inline(node))
        elif name == "article-id":
            kind, value = node.get("pub-id-type"), _squash(node.text or "")
            if kind == "doi" and not doc.doi:
                doc.doi = value.lower()
            elif kind == "pmid" and not doc.pmid:
                doc.pmid = value
            elif kind in ("pmc", "pmcid") and not doc.pmcid and value:
                doc.pmcid = value if value.upper().startswith("PMC") else f"PMC{value}"
        elif name == "contrib" and node.get("contrib-type", "author") == "author":
            person = _child(node, "name")
            if person is not None:
                surname = _child(person, "surname")
                given = _child(person, "given-names")
                doc.authors.append(
                    " ".join(
                        _squash("".join(e.itertext())) for e in (given, surname) if e is not None
                    )
                )
        elif name == "pub-date" and doc.year is None:
            year = _child(node, "year")
            if year is not None and (year.text or "").strip().isdigit():
                doc.year = int(year.text.strip())
    abstract = next(
        (
            a
            for a in meta
            if local_name(a.tag) == "abstract"
            and a.get("abstract-type") not in ("graphical", "teaser", "toc")
        ),
        None,
    )
    if abstract is not None:
        _blocks(abstract, 2, abstract_blocks)
        if not abstract_blocks and _squash(_inline(abstract)):
            abstract_blocks.append(_squash(_inline(abstract)))
    doc.abstract = "\n\n".join(b for b in abstract_blocks if not b.startswith("#"))
    journal = next((e for e in root.iter() if local_name(e.tag) == "journal-title"), None)
    doc.journal = _squash(_inline(journal)) if journal is not None else None
    return doc, abstract_blocks


def jats_to_markdown(xml: bytes | str, *, max_bytes: int = DEFAULT_MAX_XML_BYTES) -> JatsDocument:
    """Parse a JATS article safely and render it as Markdown (see the module docstring)."""
    root = parse_xml(xml, max_bytes=max_bytes, what="JATS XML")
    if local_name(root.tag) != "article":
        raise ParseError(f"not a JATS article (root element <{local_name(root.tag)}>)")
    doc, abstract_blocks = _front(root)
    out: list[str] = []
    if abstract_blocks:
        out.append("# Abstract")
        out.extend(abstract_blocks)
    body = _child(root, "body")
    if body is not None:
        _blocks(body, 1, out)
    back = _child(root, "back")
    if back is not None:
        _blocks(back, 1, out)
        refs = [r for r in back.iter() if local_name(r.tag) == "ref"]
        rendered = [t for t in (_reference(r) for r in refs) if t]
        if rendered:
            out.append("# References")
            out.extend(f"{i}. {text}" for i, text in enumerate(rendered, 1))
    if not out:
        raise ParseError("JATS article has no abstract, body or references")
    doc.markdown = "\n\n".join(out) + "\n"
    return doc
