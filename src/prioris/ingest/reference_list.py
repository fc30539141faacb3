"""Finding a work's reference list in its Markdown and cutting it into entries.

The list arrives in every state a PDF leaves it in: under a ``## References`` heading or a
run-in ``REFERENCES``, without any heading at all; numbered ``[1]`` or ``1.``, keyed
``[Cop87]`` or in author-year order; several entries run together on one line; entries
broken across columns and pages, with the page's running header in between.
:func:`reference_section` finds the list (the last references heading or label followed by
entries, to the next section; else a bracketed list without a heading) and
:func:`split_entries` cuts it into entries as printed (the numbering followed in sequence;
author-year entries split where an author list followed by a year begins, in alphabetical
order). Separate from parsing one entry (:mod:`prioris.ingest.reference_entry`): this
module only decides where entries begin and end. Pure ``re``; bounded by
:mod:`prioris.ingest.reference_text`'s limits.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from itertools import pairwise

from prioris.ingest.reference_text import (
    MAX_ENTRIES,
    MAX_RAW_CHARS,
    MAX_SECTION_CHARS,
    YEAR,
    author_prefix,
)
from prioris.ingest.sections import heading_label, run_in_label

_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
# a heading after the list that starts something else: "A Appendix", "7 Proofs", "B.1 ..."
_SECTION_HEADING = re.compile(r"^(?:[A-Z]|\d{1,2})(?:\.\d+)*\.?\s+[A-Z]")
_TRAILING_LABEL = re.compile(r"(?:^|[.!?]\s+)(?:References|REFERENCES|Bibliography)\s*:?\s*$")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?\s*$", re.I)

_SPACED = re.compile(r"^(?:[A-Z] ){3,}[A-Z]\b")


def _unspaced(line: str) -> str:
    """A letter-spaced label closed up (``R E F E R E N C E S`` -> ``REFERENCES``)."""
    match = _SPACED.match(line)
    return line if match is None else match.group(0).replace(" ", "") + line[match.end() :]


# --- finding the list --------------------------------------------------------------


def _heading_text(line: str) -> str | None:
    match = _HEADING.match(line)
    return match.group(1) if match else None


def _starts(lines: list[str]) -> list[tuple[int, str]]:
    """Where a reference list may begin: ``(line index, the rest of that line)`` after a
    references heading, a run-in label (``REFERENCES``, ``References 1. Smith``) or a
    paragraph that ends with the label (``... our funders. References``)."""
    found: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        heading = _heading_text(line)
        if heading is not None:
            if heading_label(heading) == "references":
                found.append((i + 1, ""))
            continue
        stripped = _unspaced(line.strip())
        if stripped and run_in_label(stripped) == "references":
            rest = re.sub(
                r"^[*_\s]*(?i:references|bibliography|literature cited)[*_]*\s*[.:]?[*_]*\s*",
                "",
                stripped,
            )
            found.append((i + 1, rest))
        elif stripped and _TRAILING_LABEL.search(stripped):
            found.append((i + 1, ""))
    return found


def _section_end(lines: list[str], start: int) -> int:
    """The line where the list ends: a heading that names another section (appendix,
    acknowledgements) or opens a numbered one; other headings (a running header the reader
    took for one) stay inside and are dropped later."""
    for i in range(start, len(lines)):
        heading = _heading_text(lines[i])
        if heading is None:
            continue
        label = heading_label(heading)
        if label not in (None, "references") or (
            label is None and _SECTION_HEADING.match(heading.strip("*_ "))
        ):
            return i
    return len(lines)


_NUMBERED_ONE = re.compile(r"(?:^|\s)\[\s*1\s*\]\s+\S")


def _unheaded_start(text: str) -> int | None:
    """A list without a heading: the last ``[1]`` in the second half of the text that is
    followed by ``[2]`` and ``[3]`` (a bracketed list); None when there is none."""
    best = None
    for match in _NUMBERED_ONE.finditer(text, len(text) // 2):
        after = text[match.end() : match.end() + 4000]
        if re.search(r"\[\s*2\s*\]", after) and re.search(r"\[\s*3\s*\]", after):
            best = match.start()
    return best


def reference_section(markdown: str) -> str:
    """The text of the work's reference list ('' when it has none): from the last
    references heading or label that is followed by entries to the next section, else a
    bracketed list without a heading in the second half of the text."""
    lines = markdown.split("\n")
    for start, rest in reversed(_starts(lines)):
        end = _section_end(lines, start)
        body = "\n".join([rest, *lines[start:end]]).strip()
        if len(split_entries(body[:20_000])) >= 1:
            return body[:MAX_SECTION_CHARS]
    start_at = _unheaded_start(markdown)
    if start_at is not None:
        return markdown[start_at : MAX_SECTION_CHARS + start_at].strip()
    return ""


# --- cutting it into entries -------------------------------------------------------


def _paragraphs(section: str) -> list[str]:
    """The section's paragraphs, each on one line: headings, page numbers and lines
    repeated on several pages (running headers) dropped, words hyphenated across a line
    or page break joined."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", section) if b.strip()]
    counts = Counter(b for b in blocks if len(b) < 120)
    kept: list[str] = []
    for block in blocks:
        if _heading_text(block.split("\n", 1)[0]) is not None and "\n" not in block:
            continue
        if _PAGE_NUMBER.match(block) or (counts[block] > 1 and not YEAR.search(block)):
            continue
        if (
            len(block) < 100
            and not YEAR.search(block)
            and re.search(r"[A-Za-z]{3} \d{1,4}$", block)
        ):
            continue  # a running header or footer with its page number

        kept.append(" ".join(block.split()))
    return kept


def _join_hyphens(text: str) -> str:
    # "Page- Rank" (a break across lines or pages) -> "PageRank"; "Addison- Wesley" stays
    return re.sub(r"(?<=[a-z])- (?=[a-z])", "", text)


def _sequence_splits(text: str, marker: str) -> list[int]:
    """Start offsets of entries numbered in sequence (``[1]``, ``[2]``... or ``1.``,
    ``2.``...): each number is looked for after the previous one, so a number inside an
    entry that is not the next one never starts an entry."""
    first = re.match(r"\s*" + marker.format(n=r"(\d{1,4})"), text)
    if first is None:
        return []
    expected = int(first.group(1))
    starts: list[int] = []
    pos = 0
    while len(starts) < MAX_ENTRIES:
        pattern = re.compile(r"(?:^|(?<=\s))" + marker.format(n=str(expected)))
        match = pattern.search(text, pos)
        if match is None:
            break
        starts.append(match.start())
        pos = match.end()
        expected += 1
    return starts


_BRACKET = r"\[\s*{n}\s*\]\s*(?=\S)"
_DOTTED = r"{n}\.\s+(?=[A-Z\u00c0-\u017f\u2014\u2013\[\"\u201c])"
_KEYED = re.compile(r"(?:^|(?<=\s))\[[A-Za-z][A-Za-z+.\-]{0,12}\s?\d{2,4}[a-z1]?[\]1]\s+")
_BULLET = re.compile(r"(?:^|(?<=\s))[\u00b7\u2022\u25aa\u25e6]\s+")
# the section that may follow a list set without headings ("Vitae", "8 Appendix A: ...")
_NEXT_SECTION = re.compile(
    r"\s(?:\d{1,2}\s)?(?:Vitae|Biograph(?:y|ies)|About the [Aa]uthors?|Appendix [A-Z0-9]:?)\s"
)


_ENTRY_START = re.compile(
    r"(?<![\s.][A-Z]\.)(?<![\s.][A-Z][A-Z]\.)(?<=[.?!)])\s+(?=[A-Z\u00c0-\u017f])"
)
_ENDS_AT_YEAR = re.compile(r"(?:\b[A-Z]{1,3}\.?|\bal\.)\s*\(?(?:1[89]|20)\d\d[a-z]?\)?\.?$")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _sort_keys(entry: str) -> tuple[str, str]:
    """The first author's first and last word, folded: one of them is the family name the
    list is sorted by (``Smith J`` or ``John Smith``)."""
    first = re.split(r",|\.\s|\s(?:and|&)\s", entry, maxsplit=1)[0].split() or [""]
    return _fold(first[0]), _fold(first[-1])


def _author_year_entries(paragraphs: list[str]) -> list[str]:
    """Author-year entries: paragraphs joined while one is unfinished (no year yet, or it
    ends at the year, or the next starts in lower case), then split where an author list
    followed by a year starts, first authors in alphabetical order."""
    merged: list[str] = []
    for para in paragraphs:
        if merged:
            prev = merged[-1]
            years = list(YEAR.finditer(prev))
            at_year = (
                len(years) == 1
                and not prev[years[0].end() :].strip(" .)")
                and author_prefix(prev[: years[0].start()].rstrip(" .(,"))
            ) or bool(
                _ENDS_AT_YEAR.search(prev)
            )  # "Smith J, Lee K. 2017." and the title in the next paragraph
            unfinished = (
                not years
                or at_year
                or re.search(r"(?:,|\band|-)$", prev)
                or not re.search(r"[.?!)\]]$", prev)  # cut mid-sentence by a column break
                or not para[:1].isupper()
                or re.match(r"(?:DOI|doi|URL|https?:|arXiv|In[: ])", para)
                or (not YEAR.search(para) and not author_prefix(para.split(". ", 1)[0]))
            )
            if unfinished and len(prev) < MAX_RAW_CHARS:
                merged[-1] = prev + " " + para
                continue
        merged.append(para)
    entries: list[str] = []
    for block in merged:
        cuts = [0]
        for match in _ENTRY_START.finditer(block):
            start = match.end()
            year = YEAR.search(block, start, start + 1500)
            if year is None or not author_prefix(block[start : year.start()]):
                continue
            if block[start : year.start()].rstrip()[-1:] not in (".", "("):
                continue  # "Smith J. 2019." / "Smith, J. (2019)", not "Elsevier, NL, 2001."
            if start - cuts[-1] < 40:
                continue
            if max(_sort_keys(block[start:])) < min(_sort_keys(block[cuts[-1] :])):
                continue  # entries are in alphabetical order of their first author
            cuts.append(start)
        cuts.append(len(block))
        entries += [block[a:b].strip() for a, b in pairwise(cuts)]
    return [e for e in entries if e]


def split_entries(section: str) -> list[str]:
    """The section cut into entries as printed (markers kept out), at most
    :data:`MAX_ENTRIES`, each at most :data:`MAX_RAW_CHARS`."""
    paragraphs = _paragraphs(section)
    if not paragraphs:
        return []
    text = _join_hyphens(" ".join(paragraphs))
    end = _NEXT_SECTION.search(text, 200)  # a list set without headings runs into "Vitae"
    if end is not None:
        text = text[: end.start()]
        while paragraphs and sum(len(p) + 1 for p in paragraphs) > len(text) + 1:
            paragraphs = paragraphs[:-1]
    entries: list[str] = []
    for marker in (_BRACKET, _DOTTED):
        starts = _sequence_splits(text, marker)
        if len(starts) >= 2 or (starts and len(text) < 2 * MAX_RAW_CHARS):
            bounds = [*starts, len(text)]
            entries = [text[a:b] for a, b in pairwise(bounds)]
            entries = [re.sub(r"^\s*" + marker.format(n=r"\d{1,4}"), "", e) for e in entries]
            break
    else:
        keyed = [  # a key that starts an entry, not one cited in prose ("published on [Kar15b]")
            m
            for m in _KEYED.finditer(text)
            if not re.search(
                r"\b(?:on|in|see|by|and|of|to|from|cf\.|e\.g\.)\s$", text[: m.start()][-8:]
            )
        ]
        bullets = list(_BULLET.finditer(text))
        if len(bullets) >= 3 and bullets[0].start() < 5:  # "· Harvest http://..."
            starts = sorted({m.start() for m in bullets} | {m.start() for m in keyed})
            bounds = [*starts, len(text)]
            entries = [
                _KEYED.sub("", _BULLET.sub("", text[a:b], count=1).lstrip(), count=1)
                for a, b in pairwise(bounds)
            ]
        elif len(keyed) >= 2 and keyed[0].start() < 5:
            bounds = [m.start() for m in keyed] + [len(text)]
            entries = [_KEYED.sub("", text[a:b], count=1) for a, b in pairwise(bounds)]
        else:
            entries = _author_year_entries([_join_hyphens(p) for p in paragraphs])
    cleaned = [e.strip()[:MAX_RAW_CHARS].strip() for e in entries[:MAX_ENTRIES]]
    return [e for e in cleaned if len(e) >= 10 and re.search(r"[A-Za-z]{3}", e)]
