"""The venue line a first page prints: journal with volume, issue and pages, or proceedings.

Citations need the venue, and a paper often prints it in its header or footer, in a few
fixed shapes::

    Journal of Machine Learning Research 12 (2011) 2493-2537
    International Journal of Data Science and Analytics (2018) 5:213-222
    Information Systems 93 (2020) 101562
    IEEE Transactions on Pattern Analysis, Vol. 12, No. 3, pp. 45-67, 2004
    Proceedings of the 52nd Annual Meeting of the ACL, pages 624-633, Baltimore, 2014
    In: Advances in Neural Information Processing Systems 30 (NIPS 2017)

:func:`venue_line` reads those shapes only and gives nothing when a line is not clearly
one of them: a wrong venue in a citation is worse than none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DASH = r"\s*[-–—]\s*"
_NAME = r"(?P<venue>[A-Z][A-Za-z][\w.&:'’/ -]{2,110}?)"
# a publisher's name set before the journal's ("Hindawi Publishing Corporation ...")
_PUBLISHER = re.compile(
    r"^(?:hindawi(?: publishing corporation)?|elsevier(?: ltd\.?| b\.?v\.?)?|"
    r"springer(?:-verlag)?|sage publications|wiley(?:-blackwell)?|taylor & francis)\s+",
    re.I,
)
_SHAPES: tuple[re.Pattern[str], ...] = (
    # Journal 12 (2011) 2493-2537 / Information Systems 93 (2020) 101562
    re.compile(
        rf"^{_NAME}[,\s]+(?P<volume>\d{{1,4}})\s*\((?P<year>(?:19|20)\d\d)\)\s*[:,]?\s*"
        rf"(?P<pages>[A-Za-z]?\d+(?:{_DASH}[A-Za-z]?\d+)?)\b"
    ),
    # Journal (2018) 5:213-222 / Journal (2018) 5(2):213-222
    re.compile(
        rf"^{_NAME}\s*\((?P<year>(?:19|20)\d\d)\)\s*(?P<volume>\d{{1,4}})\s*"
        rf"(?:\((?P<issue>\d{{1,4}})\))?\s*:\s*(?P<pages>\d+(?:{_DASH}\d+)?)\b"
    ),
    # Journal, Vol. 12, No. 3, pp. 45-67, 2004 (the issue and pages optional)
    re.compile(
        rf"^{_NAME}[,.]?\s+(?:vol\.?|volume)\s*(?P<volume>\d{{1,4}})\s*"
        rf"(?:[,(]?\s*(?:no\.?|issue|number|nr\.?)\s*(?P<issue>\d{{1,4}})\)?)?"
        rf"(?:.{{0,30}}?(?:pp?\.|pages)\s*(?P<pages>\d+(?:{_DASH}\d+)?))?",
        re.I,
    ),
    # Proceedings of ..., pages 624-633 / In: Proceedings of ...
    re.compile(
        rf"^(?:in:?\s+)?(?P<venue>(?:proceedings of|proc\. of|advances in)\s[^,;]{{5,150}}?)"
        rf"(?:[,.;]\s*(?:pages|pp\.?)\s*(?P<pages>\d+(?:{_DASH}\d+)?)|[,;]|$)",
        re.I,
    ),
)
_NOT_VENUE = re.compile(
    r"\b(?:copyright|licen[cs]e|received|accepted|published|correspond|e-?mail|http|www\.|"
    r"downloaded|available online|©|university|department)\b",
    re.I,
)


@dataclass(frozen=True)
class Venue:
    """A venue line's parts (None where the line does not say)."""

    venue: str
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None


def _pages(text: str | None) -> str | None:
    return re.sub(_DASH, "-", text).strip() if text else None


def venue_line(line: str) -> Venue | None:
    """The venue printed on ``line`` when it has one of the known shapes, else None."""
    line = " ".join(line.split())
    if not 10 <= len(line) <= 300 or _NOT_VENUE.search(line):
        return None
    for shape in _SHAPES:
        match = shape.match(line)
        if match is None:
            continue
        parts = match.groupdict()
        venue = _PUBLISHER.sub("", parts["venue"]).strip(" ,.;:-")
        if sum(ch.isalpha() for ch in venue) < 4 or len(venue.split()) > 20:
            continue
        has_numbers = any(parts.get(key) for key in ("volume", "issue", "pages"))
        if not has_numbers and not re.match(r"(?i)proceedings|proc\.|advances", venue):
            continue
        return Venue(
            venue=venue,
            volume=parts.get("volume"),
            issue=parts.get("issue"),
            pages=_pages(parts.get("pages")),
        )
    return None


def find_venue(lines: list[str]) -> Venue | None:
    """The first venue line among ``lines`` (header, running heads and footers of page 1)."""
    for text in lines:
        for line in text.split("\n"):
            found = venue_line(line)
            if found is not None:
                return found
    return None
