"""Citations of library works: BibTeX, CSL-JSON and JSON lines, as pure functions.

Nothing here reads the database; the library passes :class:`~prioris.models.Work` objects.
BibTeX output keeps non-ASCII characters as UTF-8 (biber and modern BibTeX read it) and
escapes the characters LaTeX treats specially in text fields. Keys are ASCII
(``smith2024word``) and unique within one export.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.models import Work, display_title

FORMATS = ("bibtex", "csl-json", "jsonl")

_PARTICLES = {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le"}
_STOPWORDS = {
    "a",
    "an",
    "the",
    "on",
    "of",
    "in",
    "for",
    "and",
    "to",
    "with",
    "from",
    "by",
    "at",
    "is",
    "are",
    "towards",
    "toward",
    "via",
    "using",
}
_COLLECTIVE = re.compile(r"\b(?:collaboration|consortium|collaborators|study group)\b", re.I)
# "JD" in Europe PMC's index form "Schoenfeld JD"; one capital is a family name ("Weinan E")
_INDEX_INITIALS = re.compile(r"^[A-Z]{2,3}$")
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
_JOURNAL_TYPES = {"article", "review", "letter", "editorial", "erratum", "retraction"}
_CSL_TYPES = {
    "article": "article-journal",
    "review": "article-journal",
    "letter": "article-journal",
    "editorial": "article-journal",
    "erratum": "article-journal",
    "retraction": "article-journal",
    "preprint": "article",
    "book": "book",
    "book-chapter": "chapter",
    "dissertation": "thesis",
    "dataset": "dataset",
    "report": "report",
    "standard": "standard",
    "peer-review": "review",
    "reference-entry": "entry-encyclopedia",
}


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


def is_collective(name: str) -> bool:
    """A group author (``The ATLAS Collaboration``): cited as printed, never split."""
    return bool(_COLLECTIVE.search(name))


def split_name(name: str) -> tuple[str, str]:
    """``(family, given)`` from a display name: ``"Smith, John"``, ``"Ludwig van
    Beethoven"`` or the index form ``"Schoenfeld JD"`` (family, then initials)."""
    name = " ".join(name.split())
    if "," in name:
        family, _, given = name.partition(",")
        return family.strip(), given.strip()
    parts = name.split(" ")
    if len(parts) == 1:
        return parts[0], ""
    if _INDEX_INITIALS.match(parts[-1]) and not _INDEX_INITIALS.match(parts[0]):
        return " ".join(parts[:-1]), " ".join(f"{letter}." for letter in parts[-1])
    start = len(parts) - 1
    while start > 1 and parts[start - 1].lower() in _PARTICLES:
        start -= 1
    return " ".join(parts[start:]), " ".join(parts[:start])


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _alias(work: Work, scheme: str) -> str | None:
    prefix = f"{scheme}:"
    for alias in [work.id, *work.aliases]:
        if alias.lower().startswith(prefix) and len(alias) > len(prefix):
            return alias[len(prefix) :]
    return None


def _arxiv_id(work: Work) -> str | None:
    return _alias(work, "arxiv")


def _doi(work: Work) -> str | None:
    return _alias(work, "doi")


def _pmcid(work: Work) -> str | None:
    value = _alias(work, "europepmc")
    return value.upper() if value and value.upper().startswith("PMC") else None


def _pmid(work: Work) -> str | None:
    value = _alias(work, "pmid")
    if value:
        return value
    value = _alias(work, "europepmc")
    return value[4:] if value and value.upper().startswith("MED:") else None


def work_url(work: Work) -> str | None:
    """The most stable public link: arXiv abstract page, DOI, PMC, else the PDF link."""
    arxiv = _arxiv_id(work)
    if arxiv:
        return f"https://arxiv.org/abs/{arxiv}"
    doi = _doi(work)
    if doi:
        return f"https://doi.org/{doi}"
    pmcid = _pmcid(work)
    if pmcid:
        return f"https://europepmc.org/article/PMC/{pmcid}"
    return work.pdf_url or None


def _is_arxiv_preprint(work: Work) -> bool:
    if not _arxiv_id(work):
        return False
    venue = (work.venue or "").lower()
    return (
        work.source == "arxiv"
        or bool(work.is_preprint)
        or work.type == "preprint"
        or not venue
        or "arxiv" in venue
    )


def citation_key(work: Work) -> str:
    """``<first author family><year><first significant title word>``, ASCII lower-case."""
    first = work.authors[0] if work.authors else ""
    family = _ascii_word(first.split()[-1] if is_collective(first) else split_name(first)[0])
    year = str(work.year) if work.year else "nd"
    words = [_ascii_word(w) for w in re.split(r"[\s\-/:]+", work.title or "")]
    word = next((w for w in words if w and w not in _STOPWORDS), "")
    return f"{family or 'anon'}{year}{word}"


def _unique_keys(works: Sequence[Work]) -> list[str]:
    """Keys made unique by ``a``, ``b``, ... suffixes in input order (never colliding)."""
    bases = [citation_key(w) for w in works]
    used: set[str] = set()
    keys = []
    for base in bases:
        key, n = base, 0
        while key in used:
            key = base + _suffix(n)
            n += 1
        used.add(key)
        keys.append(key)
    return keys


def _suffix(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return letters


def _bib_entry(work: Work, key: str) -> str:
    fields: list[tuple[str, str, str]] = []  # (name, value, "text" | "verbatim" | "raw")
    if work.authors:
        names = []
        for author in work.authors:
            if is_collective(author):  # braces keep a group name whole in BibTeX
                names.append("{" + escape_latex(author) + "}")
                continue
            family, given = split_name(author)
            name = f"{family}, {given}" if given else family
            # escape first, then brace a literal "and" so BibTeX does not split on it
            names.append(re.sub(r"\band\b", "{and}", escape_latex(name)))
        fields.append(("author", " and ".join(names), "raw"))
    fields.append(("title", display_title(work.title), "text"))
    if work.year:
        fields.append(("year", str(work.year), "verbatim"))
    arxiv = _arxiv_id(work)
    preprint = _is_arxiv_preprint(work)
    if preprint:
        kind = "misc"
    elif work.type in _JOURNAL_TYPES or (work.venue and not work.type):
        kind = "article"
    elif work.type == "book":
        kind = "book"
    elif work.type == "book-chapter":
        kind = "incollection"
    elif work.type == "dissertation":
        kind = "phdthesis"
    else:
        kind = "misc"
    if work.venue and not preprint:
        venue_field = {"article": "journal", "incollection": "booktitle"}.get(kind, "howpublished")
        if kind == "book":
            venue_field = "publisher"
        fields.append((venue_field, work.venue, "text"))
    doi = _doi(work)
    if doi:
        fields.append(("doi", doi, "verbatim"))
    if arxiv:
        fields.append(("eprint", arxiv, "verbatim"))
        fields.append(("archiveprefix", "arXiv", "verbatim"))
        primary = work.extra.get("primary_category") if isinstance(work.extra, dict) else None
        if isinstance(primary, str) and primary:
            fields.append(("primaryclass", primary, "verbatim"))
    url = work_url(work)
    if url:
        fields.append(("url", url, "verbatim"))
    if work.abstract:
        fields.append(("abstract", work.abstract, "text"))
    lines = [f"@{kind}{{{key},"]
    for name, value, mode in fields:
        text = {"text": escape_latex, "verbatim": _verbatim}.get(mode, str)(value)
        lines.append(f"  {name} = {{{' '.join(text.split())}}},")
    lines.append("}")
    return "\n".join(lines)


def _verbatim(value: str) -> str:
    """DOIs and URLs stay verbatim (biber reads them so); only unbalanced braces are cut."""
    return value.replace("{", "").replace("}", "")


def to_bibtex(works: Iterable[Work]) -> str:
    """BibTeX entries, one per work, with unique ASCII keys (``smith2024word``)."""
    works = list(works)
    keys = _unique_keys(works)
    return "".join(_bib_entry(w, k) + "\n\n" for w, k in zip(works, keys, strict=True))


def _issued(work: Work) -> dict[str, Any] | None:
    if work.published:
        parts = re.match(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", work.published)
        if parts:
            return {"date-parts": [[int(p) for p in parts.groups() if p]]}
    if work.year:
        return {"date-parts": [[work.year]]}
    return None


def to_csl_json(works: Iterable[Work]) -> list[dict[str, Any]]:
    """CSL-JSON items (citeproc, Zotero, pandoc ``--citeproc``)."""
    items = []
    for work in works:
        arxiv = _arxiv_id(work)
        if _is_arxiv_preprint(work):
            csl_type = "article"
        else:
            csl_type = _CSL_TYPES.get(
                work.type or "", "article-journal" if work.venue else "article"
            )
        item: dict[str, Any] = {"id": work.id, "type": csl_type, "title": work.title or ""}
        authors = []
        for name in work.authors:
            family, given = split_name(name)
            if is_collective(name) or not given:
                authors.append({"literal": name})
            else:
                authors.append({"family": family, "given": given})
        if authors:
            item["author"] = authors
        issued = _issued(work)
        if issued:
            item["issued"] = issued
        doi = _doi(work)
        if doi:
            item["DOI"] = doi
        url = work_url(work)
        if url:
            item["URL"] = url
        if work.venue and not _is_arxiv_preprint(work):
            item["container-title"] = work.venue
        if arxiv:
            item["publisher"] = "arXiv"
            item["number"] = f"arXiv:{arxiv}"
        if _pmcid(work):
            item["PMCID"] = _pmcid(work)
        if _pmid(work):
            item["PMID"] = _pmid(work)
        if work.abstract:
            item["abstract"] = work.abstract
        items.append(item)
    return items


def to_jsonl(works: Iterable[Work]) -> str:
    """One JSON object per line: every stored field of each work (UTF-8, not escaped)."""
    return "".join(
        json.dumps(work.to_dict(), ensure_ascii=False, sort_keys=True, default=str) + "\n"
        for work in works
    )


def render(works: Iterable[Work], fmt: str) -> str:
    """The export as text in ``fmt`` (``bibtex``, ``csl-json`` or ``jsonl``)."""
    if fmt == "bibtex":
        return to_bibtex(works)
    if fmt == "csl-json":
        return json.dumps(to_csl_json(works), ensure_ascii=False, indent=2) + "\n"
    if fmt == "jsonl":
        return to_jsonl(works)
    raise InvalidRequestError(f"unknown export format {fmt!r}; accepted: {', '.join(FORMATS)}")
