"""The cues a header's lines are told apart by, shared by both header parsers.

A line's text: an e-mail address, an "Abstract" heading, the first section heading or
keywords line (where the header ends), an article-type label ("Research Article") and
the words of an institution. A line's place and font: rows on one baseline, sizes that
count as the same, a paragraph of running prose. The layout parser
(:mod:`prioris.ingest.header.header`) uses all of them and the plain-text one
(:mod:`prioris.ingest.header.text`) the patterns; they live here so the parsers share
one vocabulary without the plain-text parser importing the layout one.
"""

from __future__ import annotations

import re

from prioris.ingest.header.layout import HeaderLine

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\{[^}]*\}\s*@[\w-]+(?:\.[\w-]+)+")
ABSTRACT = re.compile(
    r"^\s*(?:abstract|a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary)\b\s*[.:—–-]?\s*(.*)$", re.I
)
HEADING = re.compile(
    r"^\s*(?:(?:\d{1,2}|[IVX]{1,4})\.?\s+)?(?:introduction|background|related work|"
    r"motivation|overview)\s*$|^\s*(?:keywords|key\s?words|index terms|ccs concepts|"
    r"categories and subject descriptors|general terms|subjects)\b",
    re.I,
)
LABEL = re.compile(
    r"^\s*(?:(?:original|research|review|brief|short|full|regular|position|technical|"
    r"invited|mini|systematic)\s+)?(?:article|paper|report|review|communication|"
    r"research|letter|note|survey)?\s*(?:open\s+access)?\s*$|^\s*(?:editorial|commentary|"
    r"perspective|preprint|methodology|case report|open access)\s*$",
    re.I,
)
AFFILIATION = re.compile(
    r"\b(?:univ|universit|institut|department|departament|dipartiment|dept\b|school|college|"
    r"faculty|facultad|faculdade|escuela|centro\b|laborator|politecnic|hochschule|"
    r"\blabs?\b|cent(?:er|re)|hospital|academy|corporation|\binc\b|ltd|gmbh|company|"
    r"division|foundation|research|google|microsoft|ibm|facebook|meta ai|amazon|"
    r"bytedance|tencent|alibaba|baidu|\bai\b)",
    re.I,
)


def _rows(lines: list[HeaderLine]) -> list[list[HeaderLine]]:
    """Lines grouped into rows (same baseline band), top to bottom, each left to right.

    The baseline, not the top edge, places a line: a radical or a raised marker makes a
    line taller without moving the text it sits on (``Collisions at √s = 7`` stays
    under the title line above it)."""
    rows: list[list[HeaderLine]] = []
    for line in sorted(lines, key=lambda ln: (ln.base, ln.x0)):
        if rows and line.base - rows[-1][0].base <= 0.5 * max(rows[-1][0].size, 1.0):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [sorted(row, key=lambda ln: ln.x0) for row in rows]


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def _is_prose(lines: list[HeaderLine]) -> bool:
    """A paragraph of running text (abstract or body), not a header element."""
    text = " ".join(line.text for line in lines)
    words = re.findall(r"[^\W\d_]+", text)
    lower = sum(w[0].islower() for w in words)
    return len(lines) >= 3 and len(text) >= 200 and lower >= 0.5 * max(len(words), 1)


def _same_size(a: float, b: float) -> bool:
    return abs(a - b) <= max(0.35, 0.04 * max(a, b))
