"""BibTeX entries that BibTeX, biber and bibtexparser read back to the work's values.

Choices (docs/usage.md, "Citations"):

* non-ASCII letters stay UTF-8 (biber and modern BibTeX read it; ``{\\"u}`` would make
  the file harder to read and to search); only the characters LaTeX treats specially
  are escaped: ``\\ { } & % $ # _ ~ ^``;
* in titles, words whose capitals must survive a style that lower-cases titles (an inner
  capital: ``BERT``, ``ImageNet``, ``GPT-3``, ``pH``) are wrapped in braces;
* pages use ``--``; the month is the BibTeX macro (``mar``); keywords are comma-separated;
* control characters (C0, DEL, C1) never reach the file: each run becomes a space, as line
  breaks and tabs do (other characters, a soft hyphen included, are written as they are).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from prioris.abstracts import trim_abstract
from prioris.export.keys import unique_keys
from prioris.export.kinds import entry_kind, is_preprint_server
from prioris.export.names import (
    arxiv_id,
    doi,
    is_collective,
    page_range,
    primary_class,
    split_name,
    work_url,
)
from prioris.models import Work, display_title

_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_RE = re.compile("|".join(re.escape(ch) for ch in _LATEX_ESCAPES))
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]+")
"""C0 (tab and line ends included: a field is one line), DEL and C1: a space each run."""
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
BIBTEX_TYPES = {
    "article": "article",
    "inproceedings": "inproceedings",
    "book": "book",
    "incollection": "incollection",
    "phdthesis": "phdthesis",
    "mastersthesis": "mastersthesis",
    "techreport": "techreport",
    "preprint": "misc",
    "misc": "misc",
}
"""The BibTeX entry type of each kind (:mod:`prioris.export.kinds`)."""


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def escape_latex(text: str) -> str:
    """``text`` with LaTeX specials escaped (``{ } & % $ # _ \\ ~ ^``); UTF-8 untouched.

    BibTeX counts braces even after a backslash, so ``\\{`` is used only when the braces
    balance; otherwise ``\\textbraceleft{}`` / ``\\textbraceright{}`` keep the entry parseable.
    """
    escapes = _LATEX_ESCAPES
    if not _balanced(text):
        escapes = {**escapes, "{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
    return _LATEX_RE.sub(lambda m: escapes[m.group(0)], text)


def protect_capitals(escaped: str) -> str:
    """Brace each word of an escaped title whose capitals are not just its first letter
    (``{BERT}``, ``{ImageNet}``), so a style that sentence-cases titles keeps them."""

    def one(word: str) -> str:
        letters = [ch for ch in word if ch.isalpha()]
        if "{" in word or "}" in word or len(letters) < 2:
            return word
        if any(ch.isupper() for ch in letters[1:]):
            return "{" + word + "}"
        return word

    return " ".join(one(word) for word in escaped.split())


def _verbatim(value: str) -> str:
    """DOIs and URLs stay verbatim (biber reads them so); only braces are cut."""
    return value.replace("{", "").replace("}", "")


def _names(authors: list[str]) -> str:
    names = []
    for author in authors:
        if is_collective(author):  # braces keep a group name whole in BibTeX
            names.append("{" + escape_latex(author) + "}")
            continue
        family, given = split_name(author)
        name = f"{family}, {given}" if given else family
        # escape first, then brace a literal "and" so BibTeX does not split on it
        names.append(re.sub(r"\band\b", "{and}", escape_latex(name)))
    return " and ".join(names)


def _month(work: Work) -> str | None:
    match = re.match(r"^\d{4}-(\d{2})", work.published or "")
    if match and 1 <= int(match.group(1)) <= 12:
        return _MONTHS[int(match.group(1)) - 1]
    return None


def bib_entry(work: Work, key: str) -> str:
    """One BibTeX entry for ``work`` under ``key``."""
    kind = entry_kind(work)
    bib_type = BIBTEX_TYPES[kind]
    fields: list[tuple[str, str]] = []
    if work.authors:
        fields.append(("author", _names(work.authors)))
    fields.append(("title", protect_capitals(escape_latex(display_title(work.title)))))
    venue = (work.venue or "").strip()
    if venue and not (kind in ("preprint", "misc") and is_preprint_server(venue)):
        venue_field = {
            "article": "journal",
            "inproceedings": "booktitle",
            "incollection": "booktitle",
            "phdthesis": "school",
            "mastersthesis": "school",
            "techreport": "institution",
            "book": "series",
        }.get(kind, "howpublished")
        if kind == "book" and not work.publisher:
            venue_field = "publisher"
        fields.append((venue_field, escape_latex(venue)))
    if work.year:
        fields.append(("year", str(work.year)))
    month = _month(work)
    if month:
        fields.append(("month", month))  # a macro, written without braces
    if work.volume:
        fields.append(("volume", escape_latex(work.volume)))
    if work.issue:
        fields.append(("number", escape_latex(work.issue)))
    pages = page_range(work.pages)
    if pages:
        first, last = pages
        fields.append(("pages", escape_latex(f"{first}--{last}" if last else first)))
    if work.publisher and not any(name == "publisher" for name, _ in fields):
        if kind in ("phdthesis", "mastersthesis") and not venue:
            fields.append(("school", escape_latex(work.publisher)))
        elif kind == "techreport" and not venue:
            fields.append(("institution", escape_latex(work.publisher)))
        else:
            fields.append(("publisher", escape_latex(work.publisher)))
    found_doi = doi(work)
    if found_doi:
        fields.append(("doi", _verbatim(found_doi)))
    arxiv = arxiv_id(work)
    if arxiv:
        fields.append(("eprint", _verbatim(arxiv)))
        fields.append(("archiveprefix", "arXiv"))
        primary = primary_class(work)
        if primary:
            fields.append(("primaryclass", _verbatim(primary)))
    url = work_url(work)
    if url:
        fields.append(("url", _verbatim(url)))
    if work.keywords:
        fields.append(("keywords", escape_latex(", ".join(k.strip() for k in work.keywords))))
    abstract = trim_abstract(work.abstract)
    if abstract:
        fields.append(("abstract", escape_latex(abstract)))
    lines = [f"@{bib_type}{{{key},"]
    for name, value in fields:
        # no control character reaches the file, whatever field it came in by (an import,
        # an edit, a provider): BibTeX tools stop on some, and a terminal obeys an ESC
        text = " ".join(_CONTROLS.sub(" ", value).split())
        lines.append(f"  {name} = {text}," if name == "month" else f"  {name} = {{{text}}},")
    lines.append("}")
    return "\n".join(lines)


def to_bibtex(works: Iterable[Work]) -> str:
    """BibTeX entries, one per work, with unique ASCII keys (``smith2024word``)."""
    works = list(works)
    keys = unique_keys(works)
    return "".join(bib_entry(w, k) + "\n\n" for w, k in zip(works, keys, strict=True))
