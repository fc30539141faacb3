"""HTML to plain text for the researcher's notes (Zotero child notes are HTML).

Small on purpose: a note is a few paragraphs, lists and links written in Zotero's note
editor, and what the library needs is its words, one paragraph a line, for search and
display. Block elements become line breaks, list items get a "- ", ``<br>`` breaks a line,
scripts and styles are dropped, entities are decoded, runs of spaces are collapsed. The
refman readers may not import :mod:`prioris.sources` (the import-linter contract), so this
lives here rather than reusing its HTML-to-Markdown.

Linear time whatever the input: a note is text someone else wrote, and ``html.parser``
(like a regular expression that backtracks) takes time that grows with the square of the
length on unclosed constructs (``<a x='`` repeated: minutes for a megabyte). So the scan
here moves forward only: each search for a tag's end, a quote's end or a comment's end
starts where the last one stopped, and a search that finds nothing ends the scan (what
follows an unclosed tag, quote or comment is no text, as in a browser), so no character is
looked at more than a fixed number of times. :func:`strip_tags` is the same scan for the
BibTeX and RIS notes that hold a few tags.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from prioris.strings import without_surrogates
from prioris.text_clean import remove_controls

_BLOCKS = frozenset(
    "address article aside blockquote dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 "
    "h6 header hr li ol p pre section table tbody thead tfoot tr ul".split()
)
_SKIP = frozenset(("script", "style", "head", "title"))
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_TAG_NAME = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)")
# what ends a tag, or starts a quoted attribute value inside it (each found once: the
# search goes on from where it stopped)
_IN_TAG = re.compile("[>\"']")


def tokens(markup: str) -> Iterator[tuple[str, str, bool]]:
    """``(kind, value, closing)`` in order: ``("text", data, False)``, ``("tag", name,
    closing)`` and ``("empty", name, False)`` for ``<br/>`` (names lower-cased); comments,
    declarations and processing instructions are dropped. One forward scan (see the
    module text)."""
    position, end = 0, len(markup)
    while position < end:
        lt = markup.find("<", position)
        if lt < 0:
            yield "text", markup[position:], False
            return
        if lt > position:
            yield "text", markup[position:lt], False
        if markup.startswith("<!--", lt):
            close = markup.find("-->", lt + 4)
            if close < 0:
                return  # an unclosed comment hides the rest
            position = close + 3
            continue
        name = _TAG_NAME.match(markup, lt)
        if name is None:
            if markup.startswith(("<!", "<?"), lt):  # a declaration, an instruction
                close = markup.find(">", lt + 2)
                if close < 0:
                    return
                position = close + 1
                continue
            yield "text", "<", False
            position = lt + 1
            continue
        scan = name.end()
        while True:  # to the tag's '>', over quoted values that may hold one
            found = _IN_TAG.search(markup, scan)
            if found is None:
                return  # an unclosed tag: nothing after it is text
            if found.group() == ">":
                break
            quote = markup.find(found.group(), found.end())
            if quote < 0:
                return  # an unclosed quote, the same
            scan = quote + 1
        empty = markup[found.start() - 1] == "/"  # <br/>
        yield ("empty" if empty else "tag"), name.group(2).lower(), bool(name.group(1))
        position = found.end()


def html_to_text(markup: str) -> str:
    """The text of an HTML fragment: one paragraph a line, no markup, no blank lines."""
    parts: list[str] = []
    skip = 0
    for kind, value, closing in tokens(markup):
        if kind == "text":
            if not skip:
                parts.append(html.unescape(value).replace("\n", " "))
        elif kind == "empty":
            if value in ("br", "hr"):
                parts.append("\n")
        elif value in _SKIP:
            skip = max(0, skip - 1) if closing else skip + 1
        elif closing:
            if value in _BLOCKS:
                parts.append("\n")
        elif value == "br":
            parts.append("\n")
        elif value in _BLOCKS:
            parts.append("\n- " if value == "li" else "\n")
        elif value in ("td", "th"):
            parts.append(" ")
    text = remove_controls(without_surrogates("".join(parts)))
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line and line != "-")


def strip_tags(markup: str, replacement: str = "\n") -> str:
    """``markup`` with each tag replaced by ``replacement`` and entities decoded (a
    BibTeX ``annote`` or a RIS note that holds some HTML); the same forward scan."""
    parts: list[str] = []
    for kind, value, _closing in tokens(markup):
        parts.append(html.unescape(value) if kind == "text" else replacement)
    return "".join(parts)


def has_tag(text: str) -> bool:
    """Whether ``text`` holds something like an HTML tag (``<`` and a letter or ``/``)."""
    return _TAG_NAME.search(text) is not None
