"""The bibliographic details of a provider's record: volume, issue, pages, publisher,
keywords, as one shape for every provider (what citations need beyond the venue).

* OpenAlex: ``biblio`` {volume, issue, first_page, last_page},
  ``primary_location.source.host_organization_name`` (the publisher) and ``.type``
  (``journal``, ``conference``, ``repository``…), ``keywords`` [{display_name}];
* Europe PMC: ``journalInfo`` {volume, issue}, ``pageInfo``, ``keywordList``;
* arXiv: the free-text ``journal_ref`` the authors typed, read by :func:`parse_journal_ref`
  only when it has a shape seen in practice; otherwise the venue stays the text as typed.
"""

from __future__ import annotations

import re
from typing import Any

_SPACE = re.compile(r"\s+")


def _text(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = _SPACE.sub(" ", value).strip()
    return value or None


def page_text(first: Any, last: Any = None) -> str | None:
    """``"first-last"``, or one page when there is no last page or it is the same."""
    first, last = _text(first), _text(last)
    if not first:
        return None
    return f"{first}-{last}" if last and last != first else first


def openalex_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """Volume, issue, pages, publisher, keywords and the source's type of an OpenAlex work."""
    biblio = obj.get("biblio") if isinstance(obj.get("biblio"), dict) else {}
    location = obj.get("primary_location") if isinstance(obj.get("primary_location"), dict) else {}
    source = location.get("source") if isinstance(location.get("source"), dict) else {}
    keywords = obj.get("keywords") if isinstance(obj.get("keywords"), list) else []
    return {
        "volume": _text(biblio.get("volume")),
        "issue": _text(biblio.get("issue")),
        "pages": page_text(biblio.get("first_page"), biblio.get("last_page")),
        "publisher": _text(source.get("host_organization_name")),
        "keywords": [
            name for k in keywords if isinstance(k, dict) and (name := _text(k.get("display_name")))
        ],
        "source_type": _text(source.get("type")),
    }


_NUMBERED = re.compile(r"^[A-Za-z]{0,3}\d[\w./]{0,15}$")
_PAGE_INFO = re.compile(r"^[A-Za-z]{0,3}\d{1,7}(?:\s*[-–]\s*[A-Za-z]{0,3}\d{1,7})?$")


def _numbered(value: Any) -> str | None:
    """A volume or issue as printed (``404``, ``S1``, ``3-4``); a placeholder such as
    Europe PMC's ``Forthcoming`` is not one."""
    text = _text(value)
    return text if text and _NUMBERED.match(text) else None


def europepmc_fields(record: dict[str, Any]) -> dict[str, Any]:
    """Volume, issue, pages and keywords of a Europe PMC search result (core or lite).

    ``pageInfo`` is taken only when it reads as pages (``2603-2604``, ``e12807``): for
    articles ahead of print it holds the publisher's article id instead."""
    info = record.get("journalInfo") if isinstance(record.get("journalInfo"), dict) else {}
    listed = record.get("keywordList") if isinstance(record.get("keywordList"), dict) else {}
    keywords = listed.get("keyword") if isinstance(listed.get("keyword"), list) else []
    pages = _text(record.get("pageInfo"))
    if pages and not _PAGE_INFO.match(pages):
        pages = None
    return {
        "volume": _numbered(info.get("volume")) or _numbered(record.get("journalVolume")),
        "issue": _numbered(info.get("issue")) or _numbered(record.get("issue")),
        "pages": page_text(*re.split(r"\s*[-–]\s*", pages, maxsplit=1)) if pages else None,
        "keywords": [k for k in (_text(x) for x in keywords) if k],
    }


_JOURNAL = r"(?P<journal>[A-Za-z][A-Za-z.&'’ \-]*?[A-Za-z.])"
_VOLUME = r"(?P<volume>\d{1,5})"
_ISSUE = r"(?:\s*\((?P<issue>[\dA-Za-z\-–]{1,9})\))?"
_PAGES = r"(?P<pages>[A-Za-z]?\d{1,7}(?:\s*(?:-{1,2}|–)\s*[A-Za-z]?\d{1,7})?)"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_SHAPES = [
    # Phys. Rev. D 76, 013009 (2007) · Nature 521, 436-444 (2015)
    re.compile(rf"^{_JOURNAL}\s+{_VOLUME}{_ISSUE}\s*,\s*{_PAGES}\s*\({_YEAR}\)\.?$"),
    # Astrophys. J. 701 (2009) 1057-1067
    re.compile(rf"^{_JOURNAL}\s+{_VOLUME}\s*\({_YEAR}\)\s*,?\s*{_PAGES}\.?$"),
    # J. Mach. Learn. Res. 15(1):1929-1958, 2014 · JHEP 0805:012, 2008
    re.compile(rf"^{_JOURNAL}\s+{_VOLUME}{_ISSUE}\s*:\s*{_PAGES}\s*,?\s*\(?{_YEAR}\)?\.?$"),
]
_LOOSE = {
    "pages": re.compile(
        r",?\s*\(?\b(?:pp?\.|pages?)\s*(?P<value>\d{1,7}\s*(?:-{1,2}|–)\s*\d{1,7})\)?", re.I
    ),
    "volume": re.compile(r",?\s*\b(?:vol\.?|volume)\s*(?P<value>\d{1,5})\b", re.I),
    "issue": re.compile(r",?\s*\b(?:no\.?|issue)\s*(?P<value>\d{1,5})\b", re.I),
}


def parse_journal_ref(text: str | None) -> dict[str, str]:
    """Venue, volume, issue and pages from an arXiv ``journal_ref``, conservatively.

    A reference in one of the usual shapes (``Phys. Rev. D 76, 013009 (2007)``) gives
    all of them; otherwise only explicitly labelled parts (``Vol. 3``, ``No. 1``,
    ``pp. 66-69``) are taken out and the rest stays the venue as typed. The year of the
    reference is returned as ``year`` but is not the work's year (arXiv's date is).
    """
    text = _text(text)
    if not text:
        return {}
    for shape in _SHAPES:
        match = shape.match(text)
        if match:
            found = {k: v for k, v in match.groupdict().items() if v}
            found["venue"] = found.pop("journal").strip()
            found["pages"] = re.sub(r"\s*(?:-{1,2}|–)\s*", "-", found["pages"])
            return found
    found = {"venue": text}
    for name, pattern in _LOOSE.items():
        match = pattern.search(found["venue"])
        if match:
            found[name] = re.sub(r"\s*(?:-{1,2}|–)\s*", "-", match.group("value"))
            venue = found["venue"][: match.start()] + found["venue"][match.end() :]
            found["venue"] = venue.strip(" ,;:.")
    return found
