"""What a citation leaves out of a work's text fields: footnote markers after a title,
and an abstract read from a page that stops mid-sentence.

A title read from a PDF's first page often carries the marker of a footnote it points to
(``Deep learning of cormorants✩``, ``… in lakes*``, ``…†‡``); a citation is not the page,
so the marker goes. An abstract the page's reading stopped in mid-sentence (the column
went on past the end of what was read, or the body ran in) would be cited cut short; a
citation leaves it out rather than print half a sentence. Values the user or their
reference manager gave are theirs and kept as they are.
"""

from __future__ import annotations

import re

from prioris.abstracts import trim_abstract
from prioris.models import Work

_ANYWHERE = "✩☆★✪⋆∗†‡§¶‖⁎"
"""Marks that are never part of a title's words."""
_MARKERS = re.compile(rf"(?:\s*[{_ANYWHERE}*]+)+\s*$")
_INSIDE = re.compile(rf"(?<=\w)[{_ANYWHERE}]+(?=[\s:,.;]|$)|\s[{_ANYWHERE}]+(?=\s)")
_SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’)\]]*$|\.\)$")
_FROM_THE_PAGE = ("printed", "pdf_metadata")


def strip_markers(title: str) -> str:
    """``title`` without footnote markers (``✩``, daggers, a trailing ``*``); a ``*``
    inside (``A* search``) and a superscript (``mc²``) are the title's own."""
    cleaned = _INSIDE.sub("", title)
    cleaned = _MARKERS.sub("", cleaned)
    return cleaned.strip() or title


def exportable_abstract(work: Work) -> str | None:
    """The abstract a citation carries: trimmed of what ran on after it, and left out
    when it was read from the page and stops mid-sentence."""
    abstract = trim_abstract(work.abstract)
    if not abstract:
        return None
    origin = (work.origins or {}).get("abstract")
    if origin in _FROM_THE_PAGE and not _SENTENCE_END.search(abstract.rstrip()):
        return None
    return abstract
