"""Turn an arXiv HTML paper (LaTeXML output) into plain Markdown with the stdlib html.parser.

Deliberately simple: headings ``h1``-``h6`` become ``#``-``######``, paragraphs and list
items become blocks, table rows are flattened to ``a | b | c`` lines, figure captions are
kept, math is replaced by its LaTeX ``alttext`` (``$...$``) and page chrome (scripts,
styles, navigation, headers, footers, buttons) is dropped. The result is what the ingest
layer chunks and indexes, so readable text matters more than layout.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_SKIP = {
    "script",
    "style",
    "nav",
    "header",
    "footer",
    "button",
    "noscript",
    "svg",
    "template",
    "head",
    "form",
    "annotation",
    "annotation-xml",
}
_SKIP_CLASSES = (
    "ltx_page_header",
    "ltx_page_footer",
    "ltx_page_navbar",
    "ltx_dates",
    "package-alerts",
    "ltx_TOC",
    "ltx_role_navigation",
)
_BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "li",
    "tr",
    "figcaption",
    "blockquote",
    "pre",
    "dd",
    "dt",
    "table",
    "figure",
    "ul",
    "ol",
    "dl",
    "br",
    "caption",
    "main",
    "body",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_VOID = {"br", "img", "hr", "meta", "link", "input", "col", "source", "wbr", "area", "base"}


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.current: list[str] = []
        self.prefix = ""
        self.skip_depth = 0
        self.stack: list[tuple[str, bool]] = []  # (tag, opened a skipped region)
        self.title = ""
        self._in_title = False
        self._list_depth = 0

    def _flush(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.blocks.append(self.prefix + text)
        self.current = []
        self.prefix = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        classes = attributes.get("class", "")
        starts_skip = (
            self.skip_depth > 0 or tag in _SKIP or any(c in classes.split() for c in _SKIP_CLASSES)
        )
        if tag == "title" and self.skip_depth == 0:
            self._in_title = True
        if tag in _VOID:
            if tag == "br" and self.skip_depth == 0:
                self.current.append(" ")
            return
        if tag == "math" and self.skip_depth == 0:
            alt = attributes.get("alttext", "").strip()
            if alt:
                self.current.append(f" ${alt}$ ")
            self.stack.append((tag, True))
            self.skip_depth += 1
            return
        self.stack.append((tag, starts_skip))
        if starts_skip:
            self.skip_depth += 1
            return
        if tag in _HEADINGS:
            self._flush()
            self.prefix = "#" * _HEADINGS[tag] + " "
        elif tag in ("ul", "ol"):
            self._flush()
            self._list_depth += 1
        elif tag == "li":
            self._flush()
            self.prefix = "  " * max(0, self._list_depth - 1) + "- "
        elif tag in ("td", "th"):
            if self.current and "".join(self.current).strip():
                self.current.append(" | ")
        elif tag in _BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _VOID:
            return
        # Pop to the matching start tag (HTML in the wild is not always balanced).
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                for _, skipped in self.stack[index:]:
                    if skipped:
                        self.skip_depth -= 1
                del self.stack[index:]
                break
        else:
            return
        if self.skip_depth > 0:
            return
        if tag in ("ul", "ol"):
            self._flush()
            self._list_depth = max(0, self._list_depth - 1)
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self.skip_depth == 0:
            self.current.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, markdown) of an HTML page; the title is the ``<title>`` text or first heading."""
    converter = _Converter()
    converter.feed(html)
    converter.close()
    markdown = "\n\n".join(converter.blocks)
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"
    title = " ".join(converter.title.split())
    if not title:
        heading = next((b for b in converter.blocks if b.startswith("# ")), "")
        title = heading[2:]
    return title, markdown
