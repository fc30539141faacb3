"""The identifiers printed in a reference entry: its DOI, arXiv id and URL.

An entry's identifiers are read before anything else and blanked out of its text, so a
DOI's digits are never taken for a year and a URL's words never for a title; this is its
own job (the patterns for DOIs, new and old-style arXiv ids and URLs, the trailing
punctuation a PDF leaves on them), used by :func:`prioris.ingest.reference_entry.parse_entry`.
Pure ``re`` over :mod:`prioris.identifiers`' normalisers.
"""

from __future__ import annotations

import re

from prioris.identifiers import normalise_arxiv, normalise_doi

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


def _strip_end(value: str) -> str:
    while value and (
        value[-1] in _TRAILING_PUNCT
        and not (value[-1] == ")" and value.count("(") >= value.count(")"))
    ):
        value = value[:-1]
    return value


def read_identifiers(raw: str) -> tuple[str | None, str | None, str | None, str]:
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
