"""A paper's header read from its first page's layout: title, authors, affiliations, abstract.

Pure functions of a :class:`~prioris.ingest.header.layout.HeaderPage` (the page's lines
with their fonts, read by :func:`~prioris.ingest.header.layout.read_header_page`), the
way reference managers and GROBID-style header parsers read a page:

* the **title** is the largest-font run of lines near the top (several lines, possibly
  several MuPDF blocks), above the first e-mail address and the abstract, skipping
  article-type labels ("Research Article"): :mod:`prioris.ingest.header.title`;
* the **authors** are the lines between the title and the abstract in the style (size and
  weight) of the first line there that reads as a byline; a byline is split on commas,
  ``and``, ``&`` and on the superscript markers that tie names to affiliations, so names
  side by side in a grid (one per column) and names wrapped over two lines both come out
  whole and in printed order;
* **affiliations** are the other lines of that zone that name an institution or start
  with a marker; the **abstract** is what follows an "Abstract" heading in its column.

:mod:`prioris.ingest.header.text` does the same from plain text when there is no layout
(a page that was OCR'd). Both return a :class:`Header`; missing parts stay empty rather
than guessed. The cues both read lines by (the e-mail, abstract, heading, article-label and
institution patterns; rows and font sizes) are in :mod:`prioris.ingest.header.cues`.
"""

from __future__ import annotations

import re

from prioris.ingest.header.cues import (
    ABSTRACT,
    AFFILIATION,
    EMAIL,
    HEADING,
    LABEL,
    _is_prose,
    _letters,
    _rows,
    _same_size,
)
from prioris.ingest.header.layout import Header, HeaderLine, HeaderPage
from prioris.ingest.header.names import (
    MARK,
    clean_name,
    ends_a_name,
    looks_like_name,
    names_in_byline,
    split_byline,
)
from prioris.ingest.header.title import title_lines as find_title_lines
from prioris.ingest.header.title import title_text
from prioris.ingest.lines import clean_text, join_lines

ABSTRACT_MAX_CHARS = 5000

_NAME_PART = re.compile(r"^[^\W\d_][\w'’\-.]*$")  # one word, no colon ("E-Mail:" is none)


def parse_header(page: HeaderPage, body_size: float) -> Header:
    """Title, authors, affiliations, e-mails, abstract and date notes of a first page."""
    lines = [line for line in page.lines if line.horizontal and line.text]
    if not lines:
        return Header()
    limit = page.height * 0.75
    for line in sorted(lines, key=lambda ln: ln.y0):
        if ABSTRACT.match(line.text) or HEADING.match(line.text) or EMAIL.search(line.text):
            limit = min(limit, line.y0)
            break
    title_lines = find_title_lines(lines, limit, page, body_size)
    header = Header()
    if title_lines:
        header.title = title_text(title_lines)
    top = max((line.y1 for line in title_lines), default=0.0)
    zone = _author_zone(lines, top, page, title_lines)
    # the byline is what stands under a title: a page with none (a form, a multilingual
    # "Hello World" sheet) has no authors, only lines that look like names
    author_lines = _author_lines(zone) if title_lines else []
    header.authors = _authors(author_lines)
    header.emails = _emails(zone)
    header.affiliations = _affiliations(zone, author_lines)
    header.abstract = _abstract(page, lines, body_size)
    skip = {id(line) for line in [*title_lines, *author_lines]}  # a title may say "2019"
    header.notes = _notes(page, [ln for ln in lines if id(ln) not in skip], zone, body_size)
    return header


def _author_zone(
    lines: list[HeaderLine], top: float, page: HeaderPage, title: list[HeaderLine]
) -> list[HeaderLine]:
    """Lines between the title and the abstract (or the first paragraph of text)."""
    end = page.height * 0.75
    by_block: dict[int, list[HeaderLine]] = {}
    for line in lines:
        by_block.setdefault(line.block, []).append(line)
    for line in sorted(lines, key=lambda ln: ln.y0):
        if line.y0 < top - 1:
            continue
        if ABSTRACT.match(line.text) or HEADING.match(line.text):
            end = min(end, line.y0)
            break
    for block in by_block.values():
        first = min(line.y0 for line in block)
        if first >= top - 1 and _is_prose(block):
            end = min(end, first)
    left, right = 0.0, page.width
    if title and max(ln.x1 for ln in title) < page.width * 0.5:
        right = page.width * 0.5  # a title in the left column: its header is there too
    elif title and min(ln.x0 for ln in title) > page.width * 0.5:
        left = page.width * 0.5
    titled = {id(line) for line in title}
    return [
        line
        for line in lines
        if top - 1 <= line.y0 < end
        and id(line) not in titled
        and line.x0 >= left - 1
        and line.x1 <= right + 1
    ]


def _byline(line: HeaderLine) -> str:
    """The line as a byline: markers and e-mail addresses become name separators."""
    return EMAIL.sub(MARK, line.byline)


def _is_byline_candidate(line: HeaderLine) -> bool:
    """Not a label, a link or an e-mail line (an address after a name is fine)."""
    text = EMAIL.sub(" ", line.text)
    if LABEL.match(text) or "http" in text or "@" in text or _letters(text) < 3:
        return False
    return text == line.text or any(looks_like_name(p) for p in split_byline(_byline(line)))


def _reads_as_byline(byline: str) -> bool:
    """Names, possibly ending with a given name whose family name wrapped to the next row."""
    if names_in_byline(byline):
        return True
    split = _dangling(byline)
    return split is not None and bool(names_in_byline(split[0]))


def _author_lines(zone: list[HeaderLine]) -> list[HeaderLine]:
    """The zone's lines in the author style (that of its first byline-like line)."""
    style: tuple[float, bool] | None = None
    for row in _rows(zone):
        for line in row:
            if _is_byline_candidate(line) and _reads_as_byline(_byline(line)):
                style = (line.size, line.bold)
                break
        if style:
            break
    if style is None:
        return []
    return [
        line
        for line in zone
        if _same_size(line.size, style[0]) and line.bold == style[1] and _is_byline_candidate(line)
    ]


def _ends_open(text: str) -> bool:
    """Whether a byline row stops mid-name (no comma, ``and`` or marker at its end)."""
    text = text.rstrip()
    if text.endswith("-") and text[-2:-1].isalpha():
        return True  # a name hyphenated at the line end
    return bool(text) and text[-1] not in ",;&" + MARK and not text.lower().endswith(" and")


def _split_first(byline: str) -> tuple[str, str]:
    """The first piece of a byline and the rest after its separator."""
    match = re.search(rf"\s*[,;{MARK}]\s*|\s+and\s+", byline)
    return (byline, "") if match is None else (byline[: match.start()], byline[match.end() :])


def _row_byline(row: list[HeaderLine]) -> str:
    """A row's lines as one byline: pieces set close together are one name (``MICHAEL``
    ``J. FISCHER`` in small capitals), pieces spaced apart are separate names."""
    text = ""
    previous: HeaderLine | None = None
    for line in row:
        if previous is not None:
            near = line.x0 - previous.x1 < 1.2 * max(line.size, previous.size)
            text += " " if near and not text.endswith(MARK) else MARK
        text += _byline(line)
        previous = line
    return text


def _dangling(byline: str) -> tuple[str, str] | None:
    """(the byline before its last piece, that piece) when the row ends with a lone given
    name whose family name is on the next row (``..., and Vincent`` / ``Andrieu``)."""
    separators = list(re.finditer(rf"[,;{MARK}]|\s(?:and|&)\s", byline))
    if not separators or not _ends_open(byline):
        return None
    last = byline[separators[-1].end() :].strip()
    last = re.sub(r"^(?:and|&)\s+", "", last)
    if not _NAME_PART.match(last) or not last[:1].isupper() or ends_a_name(last):
        return None
    if re.match(r"(?i)^(?:jr|sr|ii|iii|iv)\.?$", last):
        return None  # "William B. Driggers III": a suffix ends its name
    return byline[: separators[-1].start()], last


def _other_case(name: str, word: str) -> bool:
    """Whether ``word`` is set in capitals under a name in mixed case (``J. C. Yun`` /
    ``FNAL, Batavia``): a name wrapped to the next row keeps its case, an acronym of an
    institution does not continue it."""
    letters = [ch for ch in word if ch.isalpha()]
    return (
        len(letters) >= 2
        and all(ch.isupper() for ch in letters)
        and any(ch.islower() for ch in name)
    )


def _authors(lines: list[HeaderLine]) -> list[str]:
    names: list[str] = []
    previous_open = False
    given: str | None = None  # a given name left at the end of the previous row
    for row in _rows(lines):
        byline = _row_byline(row)
        if given:
            byline = f"{given} {byline}"
            given = None
        found = names_in_byline(byline)
        split = _dangling(byline)
        if split is not None and (found is None or split[1] not in found):
            # "..., Hairui Wang, Zhihe" / "Zhang, ...": the given name waits for its row
            before = names_in_byline(split[0])
            if before:
                found, given = before, split[1]
        if previous_open and names:
            head, rest = _split_first(byline)
            head = clean_name(head) if _NAME_PART.match(head.strip()) else ""
            if head.lower() in ("and", "&") or ends_a_name(head) or _other_case(names[-1], head):
                head = ""
            if head and len(head.split()) == 1:  # "Benjamin Charles Germain" + "Lee, ..."
                glue = "" if names[-1].endswith("-") else " "  # "Agyeman-" + "Duah"
                names[-1] = f"{names[-1]}{glue}{head}"
                found = names_in_byline(rest) or []
        if found:
            names.extend(found)
        previous_open = bool(found) and _ends_open(byline)
    return list(dict.fromkeys(names))


def _emails(zone: list[HeaderLine]) -> list[str]:
    found: list[str] = []
    for line in zone:
        for match in EMAIL.finditer(line.text.replace(" @", "@")):
            raw = match.group(0)
            if raw.startswith("{"):
                users, _, host = raw[1:].partition("}")
                host = host.strip().lstrip("@")
                found.extend(f"{u.strip()}@{host}" for u in re.split(r"[,|]", users) if u.strip())
            else:
                found.append(raw)
    return list(dict.fromkeys(found))


def _affiliations(zone: list[HeaderLine], authors: list[HeaderLine]) -> list[str]:
    taken = {id(line) for line in authors}
    groups: list[list[HeaderLine]] = []
    for line in sorted(zone, key=lambda ln: (ln.block, ln.y0, ln.x0)):
        if id(line) in taken or "@" in line.text or "http" in line.text or len(line.text) < 3:
            continue
        starts = line.starts_with_marker or AFFILIATION.search(line.text)
        previous = groups[-1][-1] if groups else None
        continues = (
            previous is not None
            and previous.block == line.block
            and 0 <= line.y0 - previous.y1 <= line.size
            and not line.starts_with_marker
            and abs(line.x0 - previous.x0) < 0.5 * (previous.x1 - previous.x0)
        )
        if continues:
            groups[-1].append(line)
        elif starts:
            groups.append([line])
    texts: list[str] = []
    for group in groups:
        joined = join_lines([line.byline for line in group])
        # "1 Univ. A 2 Univ. B" on one line: each marker starts an affiliation
        texts.extend(part for part in joined.split(MARK) if part.strip())
    texts = [" ".join(text.split()).strip(" ,;") for text in texts]
    return list(dict.fromkeys(t for t in texts if _letters(t) >= 4))


def _abstract(page: HeaderPage, lines: list[HeaderLine], body_size: float) -> str | None:
    ordered = sorted(lines, key=lambda ln: (ln.block, ln.y0, ln.x0))
    index, line, match = next(
        (
            (i, ln, found)
            for i, ln in enumerate(ordered)
            if (found := ABSTRACT.match(ln.text))
            and ln.y0 < page.height * 0.75
            and len(ln.text) < 400
        ),
        (0, None, None),
    )
    if line is None or match is None:
        return None
    parts = [match.group(1)] if match.group(1) else []
    following = ordered[index + 1 :]
    if not following:
        return None
    start = line if parts else following[0]
    block = [other for other in ordered if other.block == start.block]
    slack = page.width * 0.03
    left = min(other.x0 for other in block) - slack
    right = max(other.x1 for other in block) + slack
    size = start.size
    for candidate in following:
        if candidate.y0 < line.y0 - 1 or HEADING.match(candidate.text):
            break
        inside = candidate.x0 >= left and candidate.x1 <= right
        if not inside or (not _same_size(candidate.size, size) and len(candidate.text) > 3):
            if parts:
                break
            continue
        parts.append(candidate.text)
        if sum(len(p) for p in parts) > ABSTRACT_MAX_CHARS:
            break
    text = clean_text(join_lines(parts)).strip()
    return text if len(text) >= 40 else None


def _notes(
    page: HeaderPage, lines: list[HeaderLine], zone: list[HeaderLine], body_size: float
) -> list[str]:
    """Texts of the places a paper prints its own dates, one per MuPDF block; blocks
    set in one small size right under one another are one note (a conference's name and
    its place and date, split by MuPDF: ``... Technology Conference`` / ``Brussels,
    Belgium, June 4-6, 1996``)."""
    header_bottom = max((line.y1 for line in zone), default=page.height * 0.3)
    blocks: dict[int, list[HeaderLine]] = {}
    for line in lines:
        small = line.size <= body_size * 0.95
        in_header = line.y1 <= header_bottom + 1
        top = line.y1 <= page.height * 0.12
        low = line.y0 >= page.height * 0.55
        if in_header or (small and (top or low)):
            blocks.setdefault(line.block, []).append(line)
    groups: list[list[HeaderLine]] = []
    for block in blocks.values():
        last = groups[-1][-1] if groups else None
        first = block[0]
        if (
            last is not None
            and last.size <= body_size * 0.95
            and _same_size(last.size, first.size)
            and 0 <= first.y0 - last.y1 <= 0.5 * first.size
            and abs(first.x0 - last.x0) <= 2 * first.size
        ):
            groups[-1].extend(block)
        else:
            groups.append(list(block))
    notes = [join_lines([line.text for line in group]) for group in groups]
    return [note for note in notes if note and not _is_prose_text(note)]


def _is_prose_text(text: str) -> bool:
    words = re.findall(r"[^\W\d_]+", text)
    return len(text) > 600 and sum(w[0].islower() for w in words) > 0.6 * len(words)
