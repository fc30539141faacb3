"""The text of a PDF's lines, as both the page reader and the header parser need it.

Joining wrapped lines (line-end hyphens removed where the word goes on), cleaning
(:mod:`prioris.text_clean`: control characters, TeX's spacing accents, ligatures), MuPDF's
text flags and the page's margin band: one place, so :mod:`prioris.ingest.pdf` (pages to
Markdown) and :mod:`prioris.ingest.header` (title, authors, year) read a line the same way
without either importing the other's internals.
"""

from __future__ import annotations

import pymupdf

from prioris.text_clean import clean_text as clean_stored_text
from prioris.text_clean import remove_controls

# Text flags: MuPDF's default for text extraction, but with ligatures expanded (ﬁ -> fi).
TEXT_FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
MARGIN_BAND = 0.08  # top/bottom share of the page where running headers and footers live

_HYPHENS = "-\u00ad\u2010"


def join_lines(lines: list[str]) -> str:
    """Join wrapped lines into one paragraph, removing line-end hyphenation."""
    out = ""
    for raw in lines:
        line = remove_controls(raw).strip()  # a control char must not hide a line-end hyphen
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
    """No control characters, TeX spacing accents composed with the right letter,
    ligatures spelled out, NFC: :func:`prioris.text_clean.clean_text`, the one cleaning
    every stored text gets."""
    return clean_stored_text(text)
