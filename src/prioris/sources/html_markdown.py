"""Turn an arXiv HTML paper (LaTeXML output) into plain Markdown, in time linear in its size.

Deliberately simple: headings ``h1``-``h6`` become ``#``-``######``, paragraphs and list
items become blocks, table rows are flattened to ``a | b | c`` lines, figure captions are
kept, math is replaced by its LaTeX ``alttext`` (``$...$``) and page chrome (scripts,
styles, navigation, headers, footers, buttons) is dropped. The result is what the ingest
layer chunks and indexes, so readable text matters more than layout.

The page comes from the network, so its cost must be bounded by its size: tokens come
from :class:`~prioris.sources.html_tokens.LinearHTMLParser` (the stdlib ``html.parser`` is
quadratic on unclosed tags) and an end tag with no open match is dismissed in constant
time (a count of open tags per name), not by scanning the whole stack.
"""

from __future__ import annotations

import re
from collections import Counter

from prioris.sources.html_tokens import LinearHTMLParser

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
_SKIP_CLASSES = frozenset(
    {
        "ltx_page_header",
        "ltx_page_footer",
        "ltx_page_navbar",
        "ltx_dates",
        "package-alerts",
        "ltx_TOC",
        "ltx_role_navigation",
    }
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


class _Converter(LinearHTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open_tags: Counter[str] = Counter()  # names on the stack, for O(1) misses
        self.blocks: list[str] = []
        self.current: list[str] = []
        self.prefix = ""
        self.skip_depth = 0
        self.stack: list[tuple[str, bool]] = []  # (tag, opened a skipped region)
        self.title_parts: list[str] = []
        self._in_title = False
        self._has_text = False  # does ``current`` hold anything but whitespace?
        self._list_depth = 0

    def _flush(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.blocks.append(self.prefix + text)
        self.current = []
        self._has_text = False
        self.prefix = ""

    def _append(self, text: str) -> None:
        self.current.append(text)
        if not self._has_text and not text.isspace():
            self._has_text = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        starts_skip = (
            self.skip_depth > 0
            or tag in _SKIP
            or not _SKIP_CLASSES.isdisjoint(attributes.get("class", "").split())
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
                self._append(f" ${alt}$ ")
            self._push(tag, True)
            self.skip_depth += 1
            return
        self._push(tag, starts_skip)
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
            if self._has_text:  # a flag, not a join: a 100,000-cell row stays linear
                self._append(" | ")
        elif tag in _BLOCKS:
            self._flush()

    def _push(self, tag: str, skipped: bool) -> None:
        self.stack.append((tag, skipped))
        self.open_tags[tag] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _VOID:
            return
        if not self.open_tags[tag]:
            return  # a stray end tag (HTML in the wild is not always balanced)
        # Pop to the matching start tag: every element popped was pushed once, so all the
        # scans together cost no more than the pushes.
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                for name, skipped in self.stack[index:]:
                    self.open_tags[name] -= 1
                    if skipped:
                        self.skip_depth -= 1
                del self.stack[index:]
                break
        if self.skip_depth > 0:
            return
        if tag in ("ul", "ol"):
            self._flush()
            self._list_depth = max(0, self._list_depth - 1)
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
            return
        if self.skip_depth == 0 and data:
            self._append(data)

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
    title = " ".join("".join(converter.title_parts).split())
    if not title:
        heading = next((b for b in converter.blocks if b.startswith("# ")), "")
        title = heading[2:]
    return title, markdown
