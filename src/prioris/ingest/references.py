"""A work's reference list, read from its Markdown and parsed entry by entry.

The PDF reader gives a paper's text as Markdown, and the reference list arrives in every
state a PDF leaves it in: under a ``## References`` heading or a run-in ``REFERENCES``,
without any heading at all; numbered ``[1]`` or ``1.``, keyed ``[Cop87]`` or in author-year
order; one entry per paragraph or several run together on one line; entries broken
across columns and pages (``Page-`` / ``Rank``), with the page's running header or a
footnote in between. OCR text is Markdown too and goes the same way.

:func:`parse_references` finds the list (:func:`reference_section`), cuts it into entries
(:func:`split_entries`: the numbering is followed in sequence, so a ``[3]`` inside an
entry or ``vol. 2.`` does not start a new one; author-year entries are split where an
author list followed by a year begins, in alphabetical order) and parses each
(:func:`parse_entry`: authors, title, year, venue, DOI, arXiv id, URL). Everything is
bounded (:data:`MAX_ENTRIES`, :data:`MAX_RAW_CHARS`, :data:`MAX_SECTION_CHARS`): a
10,000-character line is cut, never a reason to fail. Pure functions over ``re``; a paper
without a list gives ``[]``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from itertools import pairwise

from prioris.identifiers import normalise_arxiv, normalise_doi
from prioris.ingest.sections import heading_label, run_in_label
from prioris.models import Reference

MAX_ENTRIES = 1000  # entries kept per work (a longer list is cut, in printed order)
MAX_RAW_CHARS = 1500  # an entry's stored text; longer is cut (a real entry is < 600)
MAX_SECTION_CHARS = 300_000  # the reference section read at most
MAX_FIELD_CHARS = 500  # a parsed title or venue

_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
# a heading after the list that starts something else: "A Appendix", "7 Proofs", "B.1 ..."
_SECTION_HEADING = re.compile(r"^(?:[A-Z]|\d{1,2})(?:\.\d+)*\.?\s+[A-Z]")
_TRAILING_LABEL = re.compile(r"(?:^|[.!?]\s+)(?:References|REFERENCES|Bibliography)\s*:?\s*$")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?\s*$", re.I)

_YEAR = re.compile(r"(?<![\d/.])(?:1[89]\d\d|20[0-3]\d)[a-z]?(?![\d/])")
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"'<>\u201c\u201d]+", re.IGNORECASE)
_ARXIV_NEW = re.compile(
    r"(?:arxiv\s*:?\s*|arxiv\.org/(?:abs|pdf)/|\babs/|\barxiv\s+preprint\s+)"
    r"(\d{4}\.\d{4,5}(?:v\d+)?)",
    re.IGNORECASE,
)
_ARXIV_OLD = re.compile(
    r"\b((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|"
    r"nucl-th|physics|quant-ph|math|cs|q-bio|q-fin|stat|chao-dyn|solv-int|patt-sol|adap-org)"
    r"(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)\b"
)
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"\u201c\u201d]+", re.IGNORECASE)
_TRAILING_PUNCT = ".,;:)]}>'\"\u201d\u2019"

# lower-case words an author list may hold ("van", "de", "and", "et al.")
_NAME_PARTICLES = frozenset(
    "and et al al. van von der den de da del della di du dos la le y ter ten bin "
    "editors eds ed".split()
)
_QUOTED = re.compile(
    r"[\u201c\u201d\"\u201e]\s*(.+?)\s*(?:[\u201d\u201c\"]|,''|'')|``\s*(.+?)\s*''"
)
_INITIALS = re.compile(r"^(?:(?:[A-Z\u00c0-\u00de]\.?|[A-Z][a-z]\.)\s?-?){1,4}$")


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
        if _PAGE_NUMBER.match(block) or (counts[block] > 1 and not _YEAR.search(block)):
            continue
        if (
            len(block) < 100
            and not _YEAR.search(block)
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


def _author_prefix(text: str) -> bool:
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
        if word.lower() in _NAME_PARTICLES:
            continue
        if not word[0].isupper():
            return False
    return True


# a new entry may start after a sentence end that is not an initial ("Lipman DJ. Gapped")
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
            years = list(_YEAR.finditer(prev))
            at_year = (
                len(years) == 1
                and not prev[years[0].end() :].strip(" .)")
                and _author_prefix(prev[: years[0].start()].rstrip(" .(,"))
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
                or (not _YEAR.search(para) and not _author_prefix(para.split(". ", 1)[0]))
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
            year = _YEAR.search(block, start, start + 1500)
            if year is None or not _author_prefix(block[start : year.start()]):
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


# --- parsing one entry -------------------------------------------------------------


def _strip_end(value: str) -> str:
    while value and (
        value[-1] in _TRAILING_PUNCT
        and not (value[-1] == ")" and value.count("(") >= value.count(")"))
    ):
        value = value[:-1]
    return value


def _identifiers(raw: str) -> tuple[str | None, str | None, str | None, str]:
    """(DOI, arXiv id, URL, the text with them blanked out): a DOI lower-cased without
    trailing punctuation; an arXiv id new or old style, version kept."""
    doi = arxiv = url = None
    rest = raw
    for match in _DOI.finditer(raw):
        value = normalise_doi(_strip_end(match.group(0)))
        if value:
            doi = doi or value
            rest = rest.replace(match.group(0), " ")
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        for match in pattern.finditer(raw):
            value = normalise_arxiv(_strip_end(match.group(1)))
            if value and arxiv is None:
                arxiv = value
            rest = rest.replace(match.group(0), " ")
    for match in _URL.finditer(raw):
        value = _strip_end(match.group(0))
        url = url or value
        rest = rest.replace(match.group(0), " ")
        if doi is None:
            found = re.search(r"doi\.org/(10\.\d{4,9}/\S+)", value, re.I)
            doi = normalise_doi(_strip_end(found.group(1))) if found else None
        if arxiv is None:
            found = re.search(r"arxiv\.org/(?:abs|pdf)/([\w./-]+)", value, re.I)
            arxiv = normalise_arxiv(_strip_end(found.group(1))) if found else None
    if doi and arxiv is None and doi.startswith("10.48550/arxiv."):
        arxiv = normalise_arxiv(doi.split("arxiv.", 1)[1])
    return doi, arxiv, url, rest


def _segments(text: str) -> list[str]:
    """The entry cut at its sentence ends (``. `` not after an initial or an abbreviation;
    ``? `` and ``! ``), each kept with its text."""
    parts: list[str] = []
    start = 0
    for match in re.finditer(r"(?<=[.?!])\s+", text):
        before = text[start : match.start()]
        last = before.rsplit(None, 1)[-1] if before.split() else ""
        word = last.rstrip(".")
        if before.endswith(".") and (
            len(word) <= 1
            or re.fullmatch(
                r"(?:[A-Z]\.?-?)+|[A-Z][a-z]?|al|vol|no|pp|eds?|Proc|Jr|Sr|St|Inc|Conf|Int|J|Tech|rep|Univ|Dept",
                word,
            )
        ):
            continue
        parts.append(before.strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def split_authors(text: str) -> list[str]:
    """An author list as names: ``A. Smith, B. Jones and C. Lee``, ``Smith, J., Jones, B.``
    (family name first: each family name joined to its initials), ``Smith J, Jones B``;
    ``et al.`` dropped."""
    text = re.sub(r"\bet\.? al\.?", "", text)
    text = re.sub(r"^[\s,.;]+|[\s,;:]+$", "", text)
    text = re.sub(r"(?<![A-Z])\.$", "", text)  # a full stop, not an initial's
    parts = [p.strip() for p in re.split(r"(?i:,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|;\s*)", text)]
    parts = [p for p in parts if p and p.lower() not in ("and", "others")]
    names: list[str] = []
    for part in parts:
        if (
            names
            and _INITIALS.match(part)
            and not _INITIALS.match(names[-1])
            and " " not in names[-1]
        ):
            names[-1] = f"{names[-1]}, {part}"
        else:
            names.append(part)
    return [n[:120] for n in names if re.search(r"[A-Za-z\u00c0-\u024f]", n)][:100]


def _clean_field(value: str | None) -> str | None:
    if not value:
        return None
    value = re.sub(r"^\s*(?:In:?|in:)\s+", "", value.strip())
    value = value.strip(" ,.;:\u201c\u201d\"'`-\u2013\u2014")
    return value[:MAX_FIELD_CHARS] or None


_INITIALS_END = re.compile(
    r"(?<=[\s,])(?:[A-Z]{1,3}|[A-Z]\.(?:\s?-?[A-Z]\.)*)\.?,?\s(?=[A-Z\u00c0-\u017f\"\u201c])"
)
_NAME_WITH_INITIALS = re.compile(
    r"^\s*(?:[A-Z]\.\s?-?)+\s?[A-Z\u00c0-\u017f][\w'\u2019-]+(?:\s[A-Z\u00c0-\u017f][\w'\u2019-]+)?\s*$"
)


def _initials_end(text: str) -> int | None:
    """Where an author list whose last name ends with initials ends (``Smith J, Lee KA.
    Title``, ``LAMPSON, B., AND STURGIS, H. Crash``): the last such place whose prefix is
    still an author list, or None."""
    best = None
    for match in _INITIALS_END.finditer(text, 0, 600):
        if not _author_prefix(text[: match.start() + len(match.group(0).rstrip(" ,"))]):
            break
        if not re.match(r"[\w'\u2019-]+(?:\s[\w'\u2019-]+)?,", text[match.end() :]):
            best = match.end()  # not "J. Smith," (a name): the list may end here
    return best


def _comma_names_end(text: str) -> int | None:
    """Where a comma-separated list of ``H. Smith`` names ends and the title begins
    (``H. Stein Shiromoto, P. Feketa, Example demonstrating ...``), or None."""
    end = None
    pos = 0
    for part in text[:600].split(","):
        if _NAME_WITH_INITIALS.match(part) or (end and re.match(r"^\s*and\s", part)):
            pos += len(part) + 1
            end = pos
        else:
            break
    return end if end and end < len(text) else None


def parse_entry(raw: str, ordinal: int) -> Reference:
    """One entry's fields; what it cannot tell stays None (the raw text is kept)."""
    raw = " ".join(raw.split())[:MAX_RAW_CHARS]
    # a DOI or URL broken at a line end ("10.4060/ cb2409en", "http:// www.fao.org")
    doi, arxiv, url, text = _identifiers(re.sub(r"(\b10\.\d{4,9}/|\bhttps?://)\s+", r"\1", raw))
    text = re.sub(
        r"\[Online\]\.?|Available(?: online)?(?: at| from)?:?|\bURL:?(?=\s{2,}|\s*$)|\bDOI\b:?",
        " ",
        text,
    )
    text = " ".join(text.split())
    years = [m for m in _YEAR.finditer(text)]
    year: int | None = None
    authors: list[str] = []
    title = venue = None
    quoted = _QUOTED.search(text)
    if quoted and len(quoted.group(1) or quoted.group(2) or "") >= 8:
        title = quoted.group(1) or quoted.group(2)
        authors = split_authors(text[: quoted.start()])
        venue = text[quoted.end() :]
    elif years and _author_prefix(text[: years[0].start()].rstrip(" .,(")):
        # author-year: "Smith J, Jones B. 2019. Title. Venue" / "Smith, J. (2019). Title."
        first = years[0]
        authors = split_authors(text[: first.start()].rstrip(" (,."))
        parts = _segments(text[first.end() :].lstrip(" ).,:"))
        title = parts[0] if parts else None
        venue = parts[1] if len(parts) > 1 else None
        year = int(first.group(0)[:4])
    else:
        parts = _segments(text)
        head, sep, tail = text.partition(": ")
        if parts and _author_prefix(parts[0]):  # "A. Smith and B. Lee. Title. Venue"
            authors = split_authors(parts[0])
            parts = parts[1:]
        elif sep and _author_prefix(head) and len(head) < 300:  # "Smith, J., Lee, K.: Title."
            authors = split_authors(head)
            parts = _segments(tail)
        elif (split := _initials_end(text)) is not None:  # "Smith J, Lee K. Title. Venue"
            authors = split_authors(text[:split])
            rest = text[split:].lstrip(" .")
            if text[:split].rstrip().endswith(","):  # "Smith J. and Lee K., Title, Venue"
                title_end = re.search(r",\s", rest)
                parts = (
                    [rest[: title_end.start()], rest[title_end.end() :]] if title_end else [rest]
                )
            else:
                parts = _segments(rest)
        elif (split := _comma_names_end(text)) is not None:  # "J. Smith, K. Lee, Title, J"
            authors = split_authors(text[:split])
            rest = text[split:].lstrip(" ,")
            title_end = re.search(r",\s|\.\s", rest)
            parts = [rest[: title_end.start()], rest[title_end.end() :]] if title_end else [rest]
        title = parts[0] if parts else None
        venue = parts[1] if len(parts) > 1 else None
    if year is None and years:
        # the last year that is not in a page range ("1984–1990") or a volume ("2010:66")
        plain = [
            m
            for m in years
            if text[m.start() - 1 : m.start()] not in ("\u2013", "-", ":")
            and not re.match(r"[\u2013-]\d", text[m.end() : m.end() + 2])
        ]
        year = int((plain or years)[-1].group(0)[:4])
    if venue:
        venue = re.split(r",?\s*(?:vol\.|pp\.|pages|\d{1,4}\s*\(|\(?(?:1[89]|20)\d\d)", venue)[0]
    if title and (_YEAR.fullmatch(title.strip(" .")) or re.fullmatch(r"\W*\w{1,5}\W*", title)):
        title = None  # a year or an abbreviation ("Phys. Rev. D 53"): no title printed
    return Reference(
        ordinal=ordinal,
        raw=raw,
        authors=authors,
        title=_clean_field(title),
        year=year,
        venue=_clean_field(venue),
        doi=doi,
        arxiv=arxiv,
        url=url[:MAX_FIELD_CHARS] if url else None,
    )


def parse_references(markdown: str) -> list[Reference]:
    """The work's reference list parsed, in printed order ([] when it has none)."""
    if not markdown:
        return []
    section = reference_section(markdown)
    if not section:
        return []
    return [parse_entry(raw, i) for i, raw in enumerate(split_entries(section), start=1)]


__all__ = [
    "MAX_ENTRIES",
    "MAX_RAW_CHARS",
    "parse_entry",
    "parse_references",
    "reference_section",
    "split_authors",
    "split_entries",
]
