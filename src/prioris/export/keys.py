"""Citation keys: readable, ASCII, unique within an export and stable across exports.

A key is the first author's family name folded to ASCII, the year, and the title's first
significant word: ``vaswani2017attention``. Greek and Cyrillic names are transliterated
(``ivanov…``); a name in a script without a Latin spelling here (Chinese, Japanese, Korean,
Arabic…) gives its first letter as a code point (``u738b…`` for 王), so a key names
``anon…`` only a work that has no author at all (issue 39); a work
without a year gets ``nd`` (only then). When several works of one export share a key,
they are ordered by their work id and the first keeps the bare key while the others get
``a``, ``b``, ``c``… So a work's key never depends on the order it was asked for in,
and adding works with other keys never changes it; only adding a work with the very same
key and a smaller id can move a suffix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from prioris.export.names import ascii_word, is_collective, split_name
from prioris.models import Work

STOPWORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "on",
        "of",
        "in",
        "for",
        "and",
        "to",
        "with",
        "from",
        "by",
        "at",
        "is",
        "are",
        "as",
        "into",
        "towards",
        "toward",
        "via",
        "using",
        "what",
        "how",
        "why",
        "when",
        "do",
        "does",
        "can",
        "we",
        "our",
        "its",
        "be",
        "not",
        "no",
    }
)


def _family(first_author: str) -> str:
    if is_collective(first_author):
        words = [ascii_word(w) for w in first_author.split()]
        return next((w for w in words if w and w not in STOPWORDS), "")
    family = split_name(first_author)[0] or first_author
    return ascii_word(family) or _code_points(family)


def _code_points(name: str) -> str:
    """A name no ASCII spelling is known for, as its first letter's code point
    (``王小明`` -> ``u738b``, the family name first): ASCII, stable, and not ``anon``."""
    letters = [c for c in name if c.isalnum()][:1]
    return "".join(f"u{ord(c):x}" for c in letters)


OWN_KEY = re.compile(r"[A-Za-z0-9_:.+/-][A-Za-z0-9_:.+/'-]{0,99}")
"""A citation key a .bib file gave (``bibtex:KEY`` alias) that BibTeX itself accepts."""


def citation_key(work: Work) -> str:
    """The researcher's own key when the work came from their .bib file or Better BibTeX
    (its ``bibtex:KEY`` alias), else ``<first author family><year><first significant
    title word>``, ASCII lower-case."""
    own = next(
        (a[len("bibtex:") :] for a in (work.id, *work.aliases) if a.startswith("bibtex:")), ""
    )
    if own and OWN_KEY.fullmatch(own):
        return own
    family = _family(work.authors[0]) if work.authors else ""
    year = str(work.year) if work.year else "nd"
    words = [ascii_word(w) for w in re.split(r"[\s\-/:.,;!?()\[\]]+", work.title or "")]
    word = next((w for w in words if w and w not in STOPWORDS), "")
    return f"{family or 'anon'}{year}{word}"


def suffix(n: int) -> str:
    """``a``, ``b``, …, ``z``, ``aa``, ``ab``… for n = 0, 1, 2…"""
    letters = ""
    n += 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return letters


def unique_keys(works: Sequence[Work]) -> list[str]:
    """One key per work, in input order; clashes resolved by work id (module docstring)."""
    bases = [citation_key(w) for w in works]
    groups: dict[str, list[int]] = {}
    for index, base in enumerate(bases):
        groups.setdefault(base, []).append(index)
    used = set(bases)
    keys = list(bases)
    for base, members in groups.items():
        ordered = sorted(members, key=lambda i: (works[i].id, i))
        n = 0
        for index in ordered[1:]:
            key = base + suffix(n)
            while key in used:
                n += 1
                key = base + suffix(n)
            n += 1
            used.add(key)
            keys[index] = key
    return keys
