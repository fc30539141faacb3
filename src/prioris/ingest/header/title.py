"""A paper's title on its first page: the largest-font run of lines near the top.

The run is one size (several lines, possibly several MuPDF blocks) and evenly spaced: a
row further below than the run's own leading starts another element set alike (a parallel
title in a second language). A title is set at least a tenth larger than the body text,
or bold and a twentieth larger (conference styles: 12 pt bold over 10.95 pt). A single
row right under it, a little smaller and centred under it or aligned with it, that is no
byline, is its subtitle. A journal's masthead or a book series set large is no title, and
what publishers print after a title (a version note, a reference mark, a footnote sign)
is no part of it. Used by :func:`prioris.ingest.header.header.parse_header`.
"""

from __future__ import annotations

import re

from prioris.ingest.header.cues import EMAIL, LABEL, _letters, _rows, _same_size
from prioris.ingest.header.layout import HeaderLine, HeaderPage
from prioris.ingest.header.names import MARK, names_in_byline
from prioris.ingest.lines import join_lines

TITLE_MIN_RATIO = 1.1  # a title is set at least this much larger than the body text
BOLD_TITLE_MIN_RATIO = 1.05  # ... or bold and this much larger (12 pt bold over 10.95 pt)
SUBTITLE_MIN_RATIO = 0.85  # a subtitle is set nearly as large as its title, right under it


def title_lines(
    lines: list[HeaderLine], limit: float, page: HeaderPage, body_size: float
) -> list[HeaderLine]:
    candidates = [
        line
        for line in lines
        if line.y0 < min(limit, page.height * 0.55)
        and _letters(line.text) >= 2
        and not LABEL.match(line.text)
        and (
            line.size >= body_size * TITLE_MIN_RATIO
            or (line.bold and line.size >= body_size * BOLD_TITLE_MIN_RATIO)
        )
    ]
    for size in sorted({round(line.size, 1) for line in candidates}, reverse=True):
        run: list[HeaderLine] = []
        leading = 0.0  # the widest gap between the run's rows so far
        for row in _rows([c for c in candidates if _same_size(c.size, size)]):
            if run:
                gap = min(ln.y0 for ln in row) - max(ln.y1 for ln in run)
                # a row further below than the title's own leading allows starts another
                # element set alike (a parallel title in a second language)
                if gap > 1.6 * size or (len(run) >= 2 and gap > max(0.8 * size, 3 * leading)):
                    break
                leading = max(leading, gap)
            run.extend(row)
        text = " ".join(line.text for line in run)
        if len(text.split()) >= 2 and _letters(text) >= 8 and not _not_a_title(text):
            return run + _subtitle(run, lines, limit, body_size)
    return []


def _subtitle(
    run: list[HeaderLine], lines: list[HeaderLine], limit: float, body_size: float
) -> list[HeaderLine]:
    """The row right under a title set a little smaller (``DISCOURS ...`` / ``Une vue
    d'ensemble``), centred under it or aligned with it, that is no byline."""
    size = max(line.size for line in run)
    bottom = max(line.y1 for line in run)
    left, right = min(ln.x0 for ln in run), max(ln.x1 for ln in run)
    below = [
        line
        for line in lines
        if bottom - 1 <= line.y0 <= bottom + 2.5 * size
        and line.y0 < limit
        and SUBTITLE_MIN_RATIO * size <= line.size < size * 0.97
        and line.size >= body_size * TITLE_MIN_RATIO
    ]
    rows = _rows(below)
    if len(rows) != 1 or min(ln.y0 for ln in rows[0]) > bottom + size:
        return []  # several rows alike: a block of its own (a parallel title), not a subtitle
    row = rows[0]
    text = " ".join(line.text for line in row)
    x0, x1 = min(ln.x0 for ln in row), max(ln.x1 for ln in row)
    centred = abs((x0 + x1) / 2 - (left + right) / 2) <= 0.05 * (right - left) + 2
    aligned = abs(x0 - left) <= 2
    if (
        (centred or aligned)
        and _letters(text) >= 4
        and not EMAIL.search(text)
        and not names_in_byline(MARK.join(line.byline for line in row))
        and not LABEL.match(text)
    ):
        return row
    return []


_SERIES = re.compile(
    r"^(?:springer\s*briefs|springer\b|lecture notes\b|texts in\b|undergraduate texts\b)|"
    r"^(?:the )?(?:international )?journal of\b|^(?:ieee |acm )?transactions on\b|"
    r"\b(?:series|texts|briefs|monographs|lecture notes) (?:in|on|of)\b",
    re.I,
)


def _not_a_title(text: str) -> bool:
    """A run set large that is no title: a journal's logo in lower case (``applied
    sciences``) or its masthead (``Journal of Statistical Software``), a book series
    (``Springer Texts in Statistics``)."""
    return not any(ch.isupper() for ch in text) or bool(_SERIES.search(text))


# what is printed after a title and is none of it: a version note ("[v2; ref status:
# indexed, http://...]"), a reference to a note or an earlier part ("[1]")
_TITLE_TAIL = re.compile(
    r"\s*\[(?:[^\]]*(?:\bv\d+\b|https?://|status)[^\]]*|\d{1,3}(?:[,–-]\s?\d{1,3})*)\]\s*$", re.I
)


def title_text(lines: list[HeaderLine]) -> str | None:
    text = join_lines([line.text for line in lines])
    text = _TITLE_TAIL.sub("", text)
    # footnote signs, also a symbol font's private-use glyphs (U+E000-U+F8FF)
    text = re.sub(r"[\s*∗†‡§¶\ue000-\uf8ff]+$", "", text).strip()
    return text or None
