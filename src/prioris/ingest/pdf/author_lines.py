"""Author lines the layout took for headings, made plain text again.

The PDF reader makes a heading of any line set larger or bolder than the body, and on a
first page that is often the authors' line (``## Georgiana Dinu and Marco Baroni``). Such
a heading shows as a section in the Read page and would start a "section" named after
the authors. Once the header parser knows the authors, a heading of the first page that
names one of them, above the first real section (Abstract, Introduction, a numbered
heading), becomes a paragraph. The title's own heading is never touched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_SECTION = re.compile(
    r"^(?:abstract|summary|introduction|background|keywords?|index terms|"
    r"(?:\d+|[ivx]+)\.?\s+\S)",
    re.IGNORECASE,
)


def _folded(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def demote_author_headings(markdown: str, authors: Sequence[str], title: str) -> str:
    """``markdown`` (a first page) with heading lines that name an author made plain."""
    names = [f" {_folded(a)} " for a in authors if len(_folded(a)) >= 4]
    if not names:
        return markdown
    own_title = _folded(title)
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        match = _HEADING.match(line)
        if not match:
            continue
        text = match.group(2).strip()
        folded = _folded(text)
        if _SECTION.match(text) or folded.startswith(("abstract", "introduction")):
            break  # the body has begun: later headings are the paper's own
        if folded == own_title:
            continue
        if any(name in f" {folded} " for name in names):
            lines[i] = text
    return "\n".join(lines)
