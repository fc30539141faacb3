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

from prioris.export.clean import exportable_abstract, strip_markers
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
from prioris.export.own import merge_entry, month_macro, own_doi, own_names
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


def _names(work: Work) -> str:
    """The ``author`` field: the user's own split names where known (a double surname
    whole, a corporate name braced), else each name split here."""
    parts = own_names(work)
    if parts is not None:
        return " and ".join(_own_name(p) for p in parts)
    names = []
    for author in work.authors:
        if is_collective(author):  # braces keep a group name whole in BibTeX
            names.append("{" + escape_latex(author) + "}")
            continue
        family, given = split_name(author)
        name = f"{family}, {given}" if given else family
        # escape first, then brace a literal "and" so BibTeX does not split on it
        names.append(re.sub(r"\band\b", "{and}", escape_latex(name)))
    return " and ".join(names)


def _own_name(part: dict[str, str]) -> str:
    if part.get("literal"):
        return "{" + escape_latex(part["literal"]) + "}"
    family = escape_latex(part.get("family", ""))
    if " " in family or "-" in family:
        family = "{" + family + "}"  # one family name, whatever a style makes of spaces
    given = escape_latex(part.get("given", ""))
    suffix = escape_latex(part.get("suffix", ""))
    name = ", ".join(p for p in (family, suffix, given) if p) if suffix else family
    if not suffix and given:
        name = f"{family}, {given}"
    return re.sub(r"\band\b", "{and}", name)


def _month(work: Work) -> str | None:
    match = re.match(r"^\d{4}-(\d{2})", work.published or "")
    if match and 1 <= int(match.group(1)) <= 12:
        return _MONTHS[int(match.group(1)) - 1]
    return None


def _generated(work: Work, kind: str) -> list[tuple[str, str, str]]:
    """The library's fields of ``work`` as ``(concept, field, value)`` (the concepts of
    :data:`prioris.export.own.CONCEPTS`), values already LaTeX."""
    fields: list[tuple[str, str, str]] = []
    if work.authors:
        fields.append(("authors", "author", _names(work)))
    title = strip_markers(display_title(work.title))
    fields.append(("title", "title", protect_capitals(escape_latex(title))))
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
        fields.append(("venue", venue_field, escape_latex(venue)))
    if work.year:
        fields.append(("year", "year", str(work.year)))
    month = _month(work)
    if month:
        fields.append(("year", "month", month))  # a macro, written without braces
    if work.volume:
        fields.append(("volume", "volume", escape_latex(work.volume)))
    if work.issue:
        fields.append(("issue", "number", escape_latex(work.issue)))
    pages = page_range(work.pages)
    if pages:
        first, last = pages
        fields.append(("pages", "pages", escape_latex(f"{first}--{last}" if last else first)))
    if work.publisher and not any(name == "publisher" for _, name, _ in fields):
        if kind in ("phdthesis", "mastersthesis") and not venue:
            fields.append(("publisher", "school", escape_latex(work.publisher)))
        elif kind == "techreport" and not venue:
            fields.append(("publisher", "institution", escape_latex(work.publisher)))
        else:
            fields.append(("publisher", "publisher", escape_latex(work.publisher)))
    found_doi = own_doi(work, doi(work))
    if found_doi:
        fields.append(("doi", "doi", _verbatim(found_doi)))
    arxiv = arxiv_id(work)
    if arxiv:
        fields.append(("arxiv", "eprint", _verbatim(arxiv)))
        fields.append(("arxiv", "archiveprefix", "arXiv"))
        primary = primary_class(work)
        if primary:
            fields.append(("arxiv", "primaryclass", _verbatim(primary)))
    url = work_url(work)
    if url:
        fields.append(("url", "url", _verbatim(url)))
    if work.keywords:
        keywords = ", ".join(k.strip() for k in work.keywords)
        fields.append(("keywords", "keywords", escape_latex(keywords)))
    abstract = exportable_abstract(work)
    if abstract:
        fields.append(("abstract", "abstract", escape_latex(abstract)))
    return fields


def bib_entry(work: Work, key: str) -> str:
    """One BibTeX entry for ``work`` under ``key``: the user's own entry where the work
    came from their .bib file and still agrees with it (:mod:`prioris.export.own`)."""
    kind = entry_kind(work)
    bib_type, fields = merge_entry(work, _generated(work, kind), BIBTEX_TYPES[kind])
    lines = [f"@{bib_type}{{{key},"]
    for name, value in fields:
        # no control character reaches the file, whatever field it came in by (an import,
        # an edit, a provider): BibTeX tools stop on some, and a terminal obeys an ESC
        text = " ".join(_CONTROLS.sub(" ", value).split())
        if month_macro(name, text):
            lines.append(f"  {name} = {text.lower()},")
        else:
            lines.append(f"  {name} = {{{text}}},")
    lines.append("}")
    return "\n".join(lines)


def to_bibtex(works: Iterable[Work]) -> str:
    """BibTeX entries, one per work, with unique ASCII keys (``smith2024word``)."""
    works = list(works)
    keys = unique_keys(works)
    return "".join(bib_entry(w, k) + "\n\n" for w, k in zip(works, keys, strict=True))
