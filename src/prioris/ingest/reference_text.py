"""What the reference-list splitter and the entry parser both read in a line of text.

Kept apart from :mod:`prioris.ingest.reference_list` and
:mod:`prioris.ingest.reference_entry` because both lean on the same two readings: a year
(:data:`YEAR`) and whether a stretch of text is an author list (:func:`author_prefix`: the
splitter starts an author-year entry where one is followed by a year; the parser takes the
authors off an entry's head with it), and on the same bounds (:data:`MAX_ENTRIES`,
:data:`MAX_RAW_CHARS`, :data:`MAX_SECTION_CHARS`, :data:`MAX_FIELD_CHARS`). Pure ``re``.
"""

from __future__ import annotations

import re

MAX_ENTRIES = 1000  # entries kept per work (a longer list is cut, in printed order)
MAX_RAW_CHARS = 1500  # an entry's stored text; longer is cut (a real entry is < 600)
MAX_SECTION_CHARS = 300_000  # the reference section read at most
MAX_FIELD_CHARS = 500  # a parsed title or venue

YEAR = re.compile(r"(?<![\d/.])(?:1[89]\d\d|20[0-3]\d)[a-z]?(?![\d/])")

# lower-case words an author list may hold ("van", "de", "and", "et al.")
NAME_PARTICLES = frozenset(
    "and et al al. van von der den de da del della di du dos la le y ter ten bin "
    "editors eds ed".split()
)


def author_prefix(text: str) -> bool:
    """Whether ``text`` (what precedes an entry's year) reads as an author list: names,
    initials, commas, ``and``/``&``/``et al.``, no other lower-case words."""
    text = re.sub(r"\[[^\]]{0,120}\]", "", text).strip().rstrip("(").strip()  # "MPS [Mountain ...]"
    if not text or len(text) > 1500 or not text[0].isupper():
        return False
    if re.search(r"[:!?\d\"\u201c\u201d]", text):
        return False
    pieces = re.split(r",|;|\s(?:and|AND|&)\s", text)
    if any(len(piece.split()) > 5 for piece in pieces):
        return False  # a name has at most five words ("Jan van der Berg"): this is a title
    for token in re.split(r"[\s,]+", text):
        word = token.strip(".&-'\u2019[]()")
        if not word:
            continue
        if word.lower() in NAME_PARTICLES:
            continue
        if not word[0].isupper():
            return False
    return True
