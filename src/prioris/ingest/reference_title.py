"""Whether a reference entry's parsed title is a title: not an author list, not a
citation string, not the name of a venue.

A reference line split at the wrong place gives a "title" that is its authors
(``Smith J, Lee KA, Chen W``), its journal and volume (``JCAP12(2004)012, [ ]``,
``Phys. Rev. D 53, 5123``) or a proceedings name (``Proceedings of the 2019 IEEE
Conference on ...``). :func:`title_problem` names which of these a text is, so the entry
parser can read the entry again (:mod:`prioris.ingest.reference_entry`) and what shows a
reference (``prioris show --references``, the snowball's candidates) can show the entry's
raw text, marked, instead of something that is not a title. Rules on how such strings are
typeset (initials, digits and brackets, a venue's opening words), not on any paper.
Pure ``re``; kept apart from the parser so the display and the snowball use it too.
"""

from __future__ import annotations

import re

_WORD = r"[A-Z\u00c0-\u00de][\w'\u2019-]+"
_INITIALS = r"(?:[A-Z\u00c0-\u00de]\.\s?-?\s?){1,3}"
_INITIALS_BARE = r"(?:[A-Z\u00c0-\u00de]\.?\s?-?){1,3}"
_PARTICLE = r"(?:van|von|de|der|da|di|le|la)"
_INITIAL_SURNAME = re.compile(rf"^{_INITIALS}{_WORD}(?:\s{_PARTICLE}?\s?{_WORD})?$")
_SURNAME_INITIALS = re.compile(rf"^{_WORD}(?:\s{_WORD})?\s{_INITIALS_BARE}$")
_BARE_INITIALS = re.compile(rf"^{_INITIALS_BARE}$")
_SURNAME = re.compile(rf"^(?:(?:van|von|de|der|da|di|le|la)\s)*{_WORD}(?:\s{_WORD})?$")
_ET_AL = re.compile(r"\bet\.?\s?al\b\.?", re.I)
_SPLIT = re.compile(r",|;|\s(?:and|AND|&)\s|^and\s")

_VENUE = re.compile(
    r"^(?:in:?\s+)?(?:"
    r"proc(?:eedings|\.)|(?:\d{1,4}(?:st|nd|rd|th)\s+)?(?:annual\s+)?"
    r"(?:(?:international|ieee|acm|siam|national|european|joint)\s+)+"
    r"(?:conference|symposium|workshop|journal|transactions)\b"
    r"|(?:ieee|acm)\s+trans(?:actions|\.)|journal\s+of\b|transactions\s+on\b|annals\s+of\b"
    r"|advances\s+in\s+neural\s+information|arxiv\s+(?:preprint|e-prints)"
    r"|phys(?:ical|\.)\s*rev(?:iew|\.)|nucl(?:ear|\.)\s*phys"
    r")",
    re.I,
)
_CITATION = re.compile(
    r"\(\s?(?:1[89]|20)\d\d\s?\)\s?\d"  # JCAP12(2004)012, Nucl. Phys. B 234 (1984) 269
    r"|\b\d{1,4}\s?\(\d{1,3}\)\s?[:,]?\s?\d"  # 12(3):45
    r"|\[\s*\]"  # an empty bracket left by a link
    r"|^[A-Z][\w.]*\.?\s?[A-Z]?\s?\d+\s?,\s?\d+"  # Phys. Rev. D 53, 5123
)


def _name_pieces(text: str) -> tuple[int, int]:
    """(pieces that are names or initials, all pieces) of a comma/and-separated text."""
    pieces = [p.strip(" .") for p in _SPLIT.split(text) if p and p.strip(" .")]
    named = 0
    for index, piece in enumerate(pieces):
        piece = " ".join(piece.split())
        if _INITIAL_SURNAME.match(piece + ("." if len(piece) == 1 else "")) or (
            _SURNAME_INITIALS.match(piece) or _BARE_INITIALS.match(piece + ".")
        ):
            named += 1
        elif _SURNAME.match(piece) and index + 1 < len(pieces):
            following = pieces[index + 1].strip(" .")
            if _BARE_INITIALS.match(following + "."):  # "Smith, J." as two pieces
                named += 1
    return named, len(pieces)


def names_like(text: str) -> bool:
    """Whether ``text`` is an author list (``A. Smith, B. Lee``, ``Smith J, Lee KA``,
    ``Smith, J., Lee, K.``, ``Smith et al.``) rather than a title."""
    text = " ".join(text.split()).strip(" .,;:")
    if not text or len(text) > 600:
        return False
    if _ET_AL.search(text) and len(_ET_AL.split(text, 1)[0].split()) <= 4:
        return True
    named, total = _name_pieces(text)
    return named >= 2 and named >= 0.75 * total


def citation_like(text: str) -> bool:
    """Whether ``text`` is a journal, volume, year and page string (``JCAP12(2004)012``)
    or mostly numbers, rather than a title."""
    text = " ".join(text.split())
    if _CITATION.search(text):
        words = re.findall(r"[a-z]{4,}", text)
        return len(words) <= 3
    alnum = [c for c in text if c.isalnum()]
    return bool(alnum) and sum(c.isdigit() for c in alnum) / len(alnum) >= 0.4


def venue_like(text: str) -> bool:
    """Whether ``text`` opens as the name of a venue (``Proceedings of…``, ``Journal of…``,
    ``IEEE Transactions on…``, ``arXiv preprint…``) rather than a title."""
    return bool(_VENUE.match(" ".join(text.split())))


def title_problem(text: str | None) -> str | None:
    """Why ``text`` is not a title (``names``, ``citation``, ``venue``), or None when it
    reads as one (or is empty: nothing to show instead)."""
    if not text or not text.strip():
        return None
    if names_like(text):
        return "names"
    if citation_like(text):
        return "citation"
    if venue_like(text):
        return "venue"
    return None
