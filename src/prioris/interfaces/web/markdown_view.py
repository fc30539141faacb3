"""A stored page's Markdown as HTML for the Read page, with a search hit's passage marked.

The text of a work is Markdown (headings, lists, emphasis, tables from the PDF reader, JATS
and HTML converters); the Read page shows it rendered, not as its markers. It is rendered
by markdown-it (CommonMark plus tables) with raw HTML off, so nothing in a paper's text
becomes markup of its own, images off (the page loads nothing from elsewhere) and links
opened apart from the app. Its headings are shifted below the page's own (``#`` becomes
``<h3>``), so the work's title stays the page's one ``<h1>``.

The passage of a hit is a character range of the Markdown. Two private-use characters
are put at its ends before rendering (after a line's block marker, so ``## Heading``
stays a heading) and turned afterwards into ``<mark>`` around each piece of text between
them: one mark per text run, so marks never cross an element boundary, the first with
``id="passage"`` for the page to scroll to.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markupsafe import Markup

_START, _END = "\ue000", "\ue001"
_BLOCK_MARKER = re.compile(r"(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?|\|[ \t]*)")
_TAG_OR_TEXT = re.compile(r"(<[^>]*>)")
_HEADING_TAG = re.compile(r"<(/?)h([1-6])>")
HEADING_SHIFT = 2  # the page has its <h1> (the title) and <h2> sections above the text


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.disable("image")
    return md


_MD = _renderer()


def _with_sentinels(text: str, start: int | None, end: int | None) -> str:
    if start is None or end is None or not (0 <= start < end <= len(text)):
        return text
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip() == "":  # the passage starts a line: after its marker
        marker = _BLOCK_MARKER.match(text, start)
        if marker:
            start = min(marker.end(), end)
    return text[:start] + _START + text[start:end] + _END + text[end:]


def _marked(html: str) -> str:
    out: list[str] = []
    inside = False
    first = True
    for piece in _TAG_OR_TEXT.split(html):
        if piece.startswith("<"):
            out.append(piece.replace(_START, "").replace(_END, ""))
            continue
        for part in re.split(f"([{_START}{_END}])", piece):
            if part == _START:
                inside = True
            elif part == _END:
                inside = False
            elif part and inside and part.strip():
                ident = ' id="passage" tabindex="-1"' if first else ""
                out.append(f"<mark{ident}>{part}</mark>")
                first = False
            else:
                out.append(part)
    return "".join(out)


def _shift_headings(html: str) -> str:
    def shifted(match: re.Match[str]) -> str:
        level = min(6, int(match.group(2)) + HEADING_SHIFT)
        return f"<{match.group(1)}h{level}>"

    return _HEADING_TAG.sub(shifted, html)


def markdown_html(text: str, start: int | None = None, end: int | None = None) -> Markup:
    """``text`` (Markdown) rendered safely, characters ``start:end`` marked."""
    clean = (text or "").replace(_START, "").replace(_END, "")
    html = _MD.render(_with_sentinels(clean, start, end))
    html = _shift_headings(_marked(html))
    html = html.replace("<a href=", '<a rel="noopener noreferrer nofollow" target="_blank" href=')
    html = html.replace("<table>", '<div class="table-wrap"><table>').replace(
        "</table>", "</table></div>"
    )
    return Markup(html)
