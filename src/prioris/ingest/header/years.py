"""The year a paper prints as its own, and the year its arXiv id encodes.

A year comes only from a place a paper prints its own date: a copyright or "published"
line, a proceedings or journal line, a venue tag (``PLDI'09``, ``NIPS 2017``) in the
header, running heads or footnotes, or else the month encoded in its arXiv id. File and
scanner dates and years in the body text are never used: no year beats a wrong one.

The review-process words are read in the languages papers print them in (``Recibido``,
``Aprovado``, ``Eingegangen``); a date printed twice (a running head on every page, a
line read twice) counts once. A year in the paper's own DOI
(``10.1016/j.is.2020.101562``, a SciELO ``2318-0889202133e200057``: ISSN, year, volume;
:func:`doi_year`) settles a tie between printed years; it never dates a page that prints
none (a DOI is minted near publication, not always in its year).

The rules and their priorities are a job of their own, apart from
:mod:`prioris.ingest.header.metadata`, which gathers the notes they read and weighs the
result against the PDF's embedded year (it re-exports :func:`printed_year` and
:func:`arxiv_year`).
"""

from __future__ import annotations

import re
import time
from collections import Counter

_Y = r"((?:19|20)\d\d)"
# the words of a paper's history, also in Spanish, Portuguese, French and German
_PUBLISHED = (
    r"published(?: online)?|available online|first published|date of publication|issue date|"
    r"publicado|publicada|publié|publiée|veröffentlicht|online publiziert"
)
_ACCEPTED = r"accepted|revised|aceptado|aprobado|aceito|aprovado|accepté|acceptée|angenommen"
_RECEIVED = r"received|submitted|recibido|recebido|reçu|reçue|eingegangen|eingereicht|submetido"
# up to the date, through "nov. 2022" and "3. Mai 2007" but no sentence's end
_UPTO = r"(?:[^.;]|\.(?=\s*\d)|(?<=\d)\.)"
_NOT_VENUES = (  # grants, viruses, standards, and states before a postcode ("NSW 2006")
    r"(?:COVID|SARS|MERS|NSF|NIH|DOE|ERC|DFG|NSERC|EU|USA|UK|ISO|IEEE Std|NSW|QLD|VIC|TAS|ACT)"
)
# (priority, pattern): 0 = how the paper is cited (its issue), 1 = the publication itself,
# 2 = its venue, 3-4 = the review process
_YEAR_RULES: tuple[tuple[int, re.Pattern[str]], ...] = (
    # "To cite this article: S. M. Dobson & J. A. Goddard (1998) Performance and ..."
    (
        0,
        re.compile(
            rf"\b(?:to cite this article|cite this article as)\b[^()]{{0,250}}\({_Y}\)", re.I
        ),
    ),
    # a journal's citation line: "Information Systems 93 (2020) 101562",
    # "Int J Data Sci Anal (2018) 5:213-222", "ACM Trans. Comput. Syst. 2008.26:1-26"
    (0, re.compile(rf"(?<![\d.])\d{{1,4}}\s*\({_Y}\)\s*[:,]?\s*[A-Za-z]?\d+")),
    (0, re.compile(rf"[A-Za-z.]\s*\({_Y}\)\s*\d{{1,4}}\s*[:(]\s*\d+")),
    (0, re.compile(rf"\b{_Y}\.\d{{1,4}}:\d+")),
    (0, re.compile(rf"\bdate of current version\b[^.;]{{0,40}}?\b{_Y}\b", re.I)),
    # ResearchGate's cover: "Article · February 2009", "Conference Paper · May 2019"
    (
        1,
        re.compile(
            rf"^\s*(?:article|conference paper|chapter|book|preprint|thesis|technical report|"
            rf"research|working paper)(?: in [^·]{{0,120}})?\s*·\s*(?:[A-Z][a-z]+\s+)?{_Y}\b",
            re.I | re.M,
        ),
    ),
    (1, re.compile(rf"(?:©|\(c\)|c⃝|\bcopyright\b)\s*(?:\(c\)|©|c⃝)?\s*(?:by\s+)?{_Y}\b", re.I)),
    # "© Springer International Publishing AG, part of Springer Nature 2018"
    (1, re.compile(rf"^\s*(?:©|\(c\)|c⃝|copyright\b)[^\n]{{0,100}}?\b{_Y}\s*\.?\s*$", re.I | re.M)),
    (1, re.compile(rf"\b(?:{_PUBLISHED})\b{_UPTO}{{0,40}}?\b{_Y}\b", re.I)),
    (
        2,
        re.compile(
            rf"(?:\b(?:proceedings|conference|workshop|symposium|congress|journal|transactions|"
            rf"annual meeting|vol|volume|issue)\b|\bv\.(?=\s*\d)).{{0,160}}?\b{_Y}\b",
            re.I | re.S,
        ),
    ),
    # a journal's line "TransInformação, Campinas, 33:e200057, 2021": volume:article, year
    (2, re.compile(rf"(?<![\d.])\d{{1,4}}\s*:\s*[A-Za-z]?\d+\s*,\s*{_Y}\b")),
    (2, re.compile(rf"\b(?!{_NOT_VENUES}\b)[A-Z][A-Za-z]*[A-Z]\s?{_Y}\b")),  # NIPS 2017
    # "MathSport International 2019 Conference Proceedings"
    (
        2,
        re.compile(
            rf"\b{_Y}\s+(?:[A-Z]\w*\s+){{0,3}}(?:conference|proceedings|symposium|workshop)\b", re.I
        ),
    ),
    (2, re.compile(r"\b[A-Z][A-Za-z]*[A-Z][’'](\d\d)\b")),  # PLDI'09
    (2, re.compile(rf"\bet al\.?,?\s*\({_Y}\)")),  # "How to cite: Webb et al. (2017)"
    (2, re.compile(rf"\b{_Y}\s*[,;]\s*\d+\s*[:(]")),  # "Health Services Research 2014, 14:1"
    (3, re.compile(rf"\b(?:{_ACCEPTED})\b{_UPTO}{{0,40}}?\b{_Y}\b", re.I)),
    (4, re.compile(rf"\b(?:{_RECEIVED})\b{_UPTO}{{0,40}}?\b{_Y}\b", re.I)),
)
# lines of page 1 that date the paper wherever they stand (a cover page, a box)
_STRONG_LINES = re.compile(
    r"(?im)^.*\b(?:to cite this article|cite this article as)\b.*$|"
    r"^\s*(?:article|conference paper|chapter|book|preprint|thesis|technical report|"
    r"working paper)\b[^\n]{0,120}·[^\n]*$|"
    rf"^\W{{0,3}}(?:{_RECEIVED}|{_ACCEPTED}|{_PUBLISHED})\s*(?::|on\b|el\b|em\b|le\b|am\b|\d)"
    r"[^\n]*$|"
    r"^\s*(?:©|copyright\s*©?)\s*[^\n]{0,100}$|"
    # a copyright sign and its year anywhere in a line ("978-1-4577-9538-2/11/$26.00 ©2011 IEEE")
    r"^[^\n]{0,100}(?:©|\(c\))\s*(?:19|20)\d\d\b[^\n]{0,100}$"
)
_ARXIV_STAMP = re.compile(r"arXiv:\S+\s+\[[^\]]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}")
_ARXIV_NEW = re.compile(r"^(\d\d)(\d\d)\.\d{4,5}")
_ARXIV_OLD = re.compile(r"^[a-z][\w.-]*/(\d\d)(\d\d)\d{3}")


def dating_lines(text: str) -> list[str]:
    """The lines of page 1 that date the paper wherever they stand: a copyright,
    how-to-cite, or Received/Published line (a cover page, a box)."""
    return _STRONG_LINES.findall(text)


def _year_in_range(year: int) -> bool:
    return 1900 <= year <= time.gmtime().tm_year + 1


def printed_year(notes: list[str], prefer: int | None = None) -> tuple[int, int] | None:
    """(year, priority) from the places a paper prints its dates; priority 1 is best.

    Among years printed equally often at the best priority, ``prefer`` (the year the
    paper's own DOI spells out, :func:`doi_year`) settles it, else the latest; it never
    dates a paper that prints no year."""
    found: list[tuple[int, int, str]] = []
    for note in notes:
        note = _ARXIV_STAMP.sub(" ", note)
        for priority, pattern in _YEAR_RULES:
            for match in pattern.finditer(note):
                value = match.group(1)
                year = int(value) if len(value) == 4 else 2000 + int(value)
                if len(value) == 2 and year > time.gmtime().tm_year + 1:
                    year -= 100
                if _year_in_range(year):  # the same words printed twice count once
                    found.append((priority, year, " ".join(match.group(0).lower().split())))
    if not found:
        return None
    best = min(priority for priority, _, _ in found)
    counts = Counter(year for priority, year, _ in set(found) if priority == best)
    year = max(counts, key=lambda y: (counts[y], y == prefer, y))
    return year, best


def arxiv_year(identifiers: list[str]) -> int | None:
    """The year an arXiv id was first submitted (``2103.15348`` -> 2021)."""
    for ident in identifiers:
        if not ident.startswith("arxiv:"):
            continue
        value = ident[6:]
        match = _ARXIV_NEW.match(value) or _ARXIV_OLD.match(value)
        if match:
            yy = int(match.group(1))
            return 2000 + yy if match.re is _ARXIV_NEW or yy < 91 else 1900 + yy
    return None


# a year inside a DOI: a dotted or slashed component (Elsevier "j.is.2020.101562",
# Hindawi "2010/157939", "2024v33n3"), or right after an ISSN (SciELO "2318-0889202133e200057")
_DOI_YEAR = re.compile(
    rf"[./]{_Y}(?=[.]|v\d)|(?<=/){_Y}(?=/)|(?<=/)\d{{4}}-\d{{3}}[\dXx]{_Y}(?=\d)|(?<=/)[A-Z]?\d{{4}}-\d{{3}}[\dXx]{_Y}"
)


def doi_year(identifiers: list[str]) -> int | None:
    """The year a paper's own DOI spells out, where its publisher puts one in."""
    for ident in identifiers:
        if ident.startswith("doi:"):
            match = _DOI_YEAR.search(ident[4:])
            if match:
                year = int(next(g for g in match.groups() if g))
                if _year_in_range(year):
                    return year
    return None
