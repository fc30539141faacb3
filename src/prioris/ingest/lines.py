"""The text of a PDF's lines, as both the page reader and the header parser need it.

Joining wrapped lines (line-end hyphens removed where the word goes on), composing TeX's
spacing accents with their letter, MuPDF's text flags and the page's margin band: one
place, so :mod:`prioris.ingest.pdf` (pages to Markdown) and :mod:`prioris.ingest.header`
(title, authors, year) read a line the same way without either importing the other's
internals.
"""

from __future__ import annotations

import re
import unicodedata

import pymupdf

# Text flags: MuPDF's default for text extraction, but with ligatures expanded (ﬁ -> fi).
TEXT_FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
MARGIN_BAND = 0.08  # top/bottom share of the page where running headers and footers live

_HYPHENS = "-\u00ad\u2010"
# TeX fonts often draw accents as a spacing diacritic next to the letter ("na¨ıve").
_SPACING_ACCENTS = {
    "\u00a8": "\u0308",
    "\u00b4": "\u0301",
    "\u02c6": "\u0302",
    "\u02dc": "\u0303",
    "\u02c7": "\u030c",
    "\u00b8": "\u0327",
    "\u02da": "\u030a",
}
_ACCENT_PAIR = re.compile("([" + "".join(_SPACING_ACCENTS) + "]) ?([A-Za-z\u0131])")


def join_lines(lines: list[str]) -> str:
    """Join wrapped lines into one paragraph, removing line-end hyphenation."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
        elif out[-1] in _HYPHENS and out[-2:-1].isalpha() and line[:1].islower():
            out = out[:-1] + line
        elif out[-1] in _HYPHENS and out[-2:-1].isalpha() and line[:1].isupper():
            out = out + line  # "Trace-" + "Monkey": keep the hyphen, drop the break
        else:
            out = f"{out} {line}"
    return out


def clean_text(text: str) -> str:
    """Compose TeX-style spacing accents with their letter and NFC-normalise."""
    if _ACCENT_PAIR.search(text):
        text = _ACCENT_PAIR.sub(
            lambda m: (
                ("i" if m.group(2) == "\u0131" else m.group(2)) + _SPACING_ACCENTS[m.group(1)]
            ),
            text,
        )
    return unicodedata.normalize("NFC", text)
