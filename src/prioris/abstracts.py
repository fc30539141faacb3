"""Where an abstract stops: the part of a printed abstract before the body runs on.

An abstract read from a PDF's first page often continues into what follows it in the
same column: the keywords, "Index Terms", the ACM "CCS Concepts" block or its classes
("D.3.4 [Programming Languages]"), a copyright line, or the introduction itself
("1 Introduction", "I. INTRODUCTION", or just its number when the heading was left out).
Citations and the work's own vector should carry the abstract only, so
:func:`trim_abstract` cuts the text at the first such marker. It is a base module because
two features use it: ingest (where a PDF's abstract is set) and export (a safety net for
abstracts stored before it).
"""

from __future__ import annotations

import re

MIN_KEPT = 40
"""A marker this close to the start is part of the abstract's own first sentence, not an
end; cutting there would leave nothing worth citing."""

_MARKERS = re.compile(
    r"""
    (?:^|(?<=[\s.;:)\]]))
    (?:
        (?:keywords?|key\s?words|key\s+terms|index\s+terms|general\s+terms
           |ccs\s+concepts|acm\s+reference\s+format|jel\s+classification|jel\s+codes?
           |ams\s+subject\s+classification|msc\s*(?:2010|2020)?|pacs(?:\s+numbers?)?
           |subjects?|categories\s+and\s+subject\s+descriptors
        )\s*(?:[:—–]|-\s|\.\s)
      | (?:1|1\.|I\.?|I)\s+(?:INTRODUCTION|Introduction)\b
      | INTRODUCTION\b
      | (?:copyright\s*)?©\s*(?:\d{4}|the\s+authors?)
      | copyright\s+\d{4}
      | \*?\s*corresponding\s+author\b
      | received\s*:?\s*\d{1,2}\s+\w+\s+\d{4}
      | preprint\s+submitted\s+to\b
      | (?<=[.!?]\s)[A-K]\.\d{1,2}(?:\.\d{1,2})?\s*\[   # an ACM class: "D.3.4 [Programming"
      | (?<=[.!?]\s)(?:\d{1,2}|[IVX]{1,4})\.?\s*$    # a section number left of a heading
    )
    """,
    re.I | re.X,
)
# "INTRODUCTION" and "Introduction" as a heading must keep their case
_CASE_SENSITIVE = re.compile(r"^(?:(?:1|1\.|I\.?)\s+)?(?:INTRODUCTION|Introduction)$")


def trim_abstract(text: str | None) -> str | None:
    """``text`` cut before the first keyword, index-term, copyright or introduction marker.

    Returns the text unchanged when no marker follows at least :data:`MIN_KEPT`
    characters of abstract, and ``None`` for ``None`` or blank text, so a caller can
    write ``work.abstract = trim_abstract(work.abstract)``.
    """
    if text is None:
        return None
    text = text.strip()
    if not text:
        return None
    for match in _MARKERS.finditer(text):
        found = match.group(0)
        if match.start() < MIN_KEPT:
            continue
        stripped = found.strip()
        if "ntroduction" in stripped or "NTRODUCTION" in stripped:
            # the regex is case-insensitive; a heading is capitalised as printed
            if not _CASE_SENSITIVE.match(stripped):
                continue
            bare = stripped in {"Introduction", "INTRODUCTION"}
            if bare and not _heading_like(text, match.start(), match.end()):
                continue
        kept = text[: match.start()].rstrip(" \t\n,;:—–-")
        if len(kept) >= MIN_KEPT:
            return kept
    return text


def _heading_like(text: str, start: int, end: int) -> bool:
    """A bare "Introduction" after a full stop is a heading when a sentence follows it
    ("… results. Introduction Deep networks …"), not "Introduction of X …"."""
    if not text[:start].rstrip().endswith((".", "!", "?")):
        return False
    following = (text[end:].split() or [""])[0]
    return following[:1].isupper() and following.lower() not in {"of", "to", "and", "in", "for"}
