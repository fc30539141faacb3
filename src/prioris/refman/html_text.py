"""HTML to plain text for the researcher's notes (Zotero child notes are HTML).

Small on purpose: a note is a few paragraphs, lists and links written in Zotero's note
editor, and what the library needs is its words, one paragraph a line, for search and
display. Block elements become line breaks, list items get a "- ", ``<br>`` breaks a line,
scripts and styles are dropped, entities are decoded (``html.parser`` does it), runs of
spaces are collapsed. The refman readers may not import :mod:`prioris.sources` (the
import-linter contract), so this lives here rather than reusing its HTML-to-Markdown.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from prioris.strings import without_surrogates
from prioris.text_clean import remove_controls

_BLOCKS = frozenset(
    "address article aside blockquote dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 "
    "h6 header hr li ol p pre section table tbody thead tfoot tr ul".split()
)
_SKIP = frozenset(("script", "style", "head", "title"))
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in _BLOCKS:
            self.parts.append("\n")
            if tag == "li":
                self.parts.append("- ")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data.replace("\n", " "))


def html_to_text(html: str) -> str:
    """The text of an HTML fragment: one paragraph a line, no markup, no blank lines."""
    parser = _Text()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # pragma: no cover - html.parser is lenient
        pass
    text = remove_controls(without_surrogates("".join(parser.parts)))
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line and line != "-")
