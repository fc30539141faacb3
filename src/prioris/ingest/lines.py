"""The text of a PDF's lines, as both the page reader and the header parser need it.

Joining wrapped lines (line-end hyphens removed where the word goes on), cleaning
(:mod:`prioris.text_clean`: control characters, TeX's spacing accents, ligatures), MuPDF's
text flags and the page's margin band: one place, so :mod:`prioris.ingest.pdf` (pages to
Markdown) and :mod:`prioris.ingest.header` (title, authors, year) read a line the same way
without either importing the other's internals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pymupdf

from prioris.text_clean import clean_text as clean_stored_text
from prioris.text_clean import remove_controls

# Text flags: MuPDF's default for text extraction, but with ligatures expanded (ﬁ -> fi).
TEXT_FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
MARGIN_BAND = 0.08  # top/bottom share of the page where running headers and footers live

_HYPHENS = "-\u00ad\u2010"
_COMPOUND = re.compile(r"(?<![\w-])[^\W\d_]+(?:[-\u2010][^\W\d_]+)+(?![\w-])")
_PLAIN = re.compile(r"(?<![\w-])[^\W\d_]+(?![\w-])")
_LAST_WORD = re.compile(r"[^\W\d_]+(?:[-\u2010][^\W\d_]+)*$")
_FIRST_WORD = re.compile(r"[^\W\d_]+(?:[-\u2010][^\W\d_]+)*")


def compounds_in(lines: Iterable[str]) -> frozenset[str]:
    """The hyphenated words a document prints whole inside its lines (lower case), less
    those it also prints joined: when one of them is broken at a line end ("large-" /
    "scale"), :func:`join_lines` keeps its hyphen instead of gluing it ("largescale")."""
    hyphenated: set[str] = set()
    plain: set[str] = set()
    for line in lines:
        lowered = line.lower()
        hyphenated.update(m.replace("\u2010", "-") for m in _COMPOUND.findall(lowered))
        plain.update(_PLAIN.findall(lowered))
    return frozenset(h for h in hyphenated if h.replace("-", "") not in plain)


def join_lines(lines: list[str], compounds: frozenset[str] = frozenset()) -> str:
    """Join wrapped lines into one paragraph, removing line-end hyphenation; a word the
    document prints hyphenated elsewhere (``compounds``, :func:`compounds_in`) keeps its
    hyphen."""
    out = ""
    for raw in lines:
        line = remove_controls(raw).strip()  # a control char must not hide a line-end hyphen
        if not line:
            continue
        if not out:
            out = line
        elif out[-1] in _HYPHENS and out[-2:-1].isalpha() and line[:1].islower():
            out = out + line if _is_compound(out, line, compounds) else out[:-1] + line
        elif out[-1] in _HYPHENS and out[-2:-1].isalpha() and line[:1].isupper():
            out = out + line  # "Trace-" + "Monkey": keep the hyphen, drop the break
        elif out[-1] in _HYPHENS and out[-2:-1].isdigit():
            out = out + line  # "4,5-" + "dimethyl": a locant's hyphen, never a word break
        else:
            out = f"{out} {line}"
    return out


def _is_compound(out: str, line: str, compounds: frozenset[str]) -> bool:
    if not compounds or out[-1] == "\u00ad":  # a soft hyphen is a break, never a compound
        return False
    left, right = _LAST_WORD.search(out[:-1]), _FIRST_WORD.match(line)
    if left is None or right is None:
        return False
    return f"{left.group(0)}-{right.group(0)}".lower().replace("\u2010", "-") in compounds


def clean_text(text: str) -> str:
    """No control characters, TeX spacing accents composed with the right letter,
    ligatures spelled out, NFC: :func:`prioris.text_clean.clean_text`, the one cleaning
    every stored text gets."""
    return clean_stored_text(text)
