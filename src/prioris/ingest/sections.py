"""Which part of a paper a passage comes from: abstract, body, references, back matter.

A search that finds the right paper should show a passage that answers, not its Funding
paragraph or reference list: every chunk carries the paper's title (in BM25's title column
and in its embedding), so when a query matches the title the emptiest chunk of the paper
can win. Labelling each chunk lets search rank the back matter below the paper's other
passages while keeping it searchable (a cited title is still found in a reference list).

The label comes from the heading path the chunker stores (Markdown headings from the PDF
reader, JATS section titles), the deepest heading that names a known section winning
(``Declarations > Funding`` is funding, ``Appendix > A.1 Proofs`` is appendix). Text
without such a heading gets two fallbacks: a block that opens with a run-in label
(``Acknowledgements We thank ...``, ``**Funding:** ...``, ``REFERENCES``) starts that
section until the next heading or label, a paragraph that is a thanks or a funding note
without a label (``We thank ...``, ``This work was supported by ...``) is labelled alone,
and a passage whose lines read as a reference
list (numbered or bracketed entries, author initials with years) is references. Pure
functions over ``re`` alone (no I/O, no prioris import, so a benchmark can load this file
to label another checkout's passages); :mod:`prioris.ingest.chunking` calls them.
"""

from __future__ import annotations

import re

_NUMBERING = re.compile(
    r"^(?:(?:section|chapter)\s+)?(?:\d+(?:\.\d+)*|[IVXLC]+|[A-Z](?:\.\d+)*)[.):]?\s+",
    re.IGNORECASE,
)
_DECORATION = re.compile(r"^[\s*_#|>]+|[\s*_:.\u2014\u2013-]+$")

# One pattern per label, matched against the whole heading (numbering and emphasis gone).
_HEADINGS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rf"^(?:{pattern})$", re.IGNORECASE))
    for label, pattern in (
        ("abstract", r"abstract|summary of the paper"),
        (
            "references",
            r"references?(?: and notes| cited| list)?|notes and references|bibliography|"
            r"works cited|literature cited|cited literature|literature|citations",
        ),
        (
            "acknowledgements",
            r"acknowledge?ments?|acknowledge?ments? and funding|thanks|"
            r"acknowledge?ments? and disclosures",
        ),
        (
            "funding",
            r"funding(?: information| statement| sources?| details)?|sources? of funding|"
            r"financial (?:support|disclosures?)|grant information|role of the funding source|"
            r"financial support and sponsorship|support",
        ),
        (
            "author_info",
            r"authors?['\u2019]? contributions?(?: statement)?|contributions|"
            r"credit authorship contribution statement|"
            r"(?:declaration of |declarations of )?(?:competing|conflicts?) (?:of )?interests?"
            r"(?: statement)?|conflicts? of interest(?: statement)?|"
            r"declarations?(?: of interests?)?|disclosures?(?: statement)?|"
            r"author(?:s['\u2019]?)? (?:information|details|biograph(?:y|ies)|notes)|"
            r"about the authors?|biograph(?:y|ies)|"
            r"(?:data|code|software|data and code|code and data|materials?) availability"
            r"(?: statement)?|availability of (?:data|code)(?: and materials?)?|"
            r"ethics(?: statement| approval| declarations?)?|ethical (?:approval|statement)|"
            r"consent for publication|additional information(?: and declarations)?|"
            r"publisher['\u2019]?s note|open access|corresponding authors?|"
            r"ethics approval and consent to participate|author disclosure statement",
        ),
        (
            "appendix",
            r"(?:appendix|appendices)\b.*|supplementary(?: material| materials| information"
            r"| data)?|supplemental (?:material|information)|supporting information|"
            r"additional files?|online methods",
        ),
    )
)

# A block opening with a section's name used as a run-in label: "Funding This work ...",
# "**Acknowledgments.** We thank", "REFERENCES", "References 1. Smith J ...".
_RUN_IN_NAMES: tuple[tuple[str, str], ...] = (
    ("references", r"references|bibliography|literature cited"),
    ("acknowledgements", r"acknowledge?ments?"),
    ("funding", r"funding(?: information| statement| sources?)?|financial support"),
    (
        "author_info",
        r"authors?['\u2019]? contributions?|author contributions|competing interests?|"
        r"conflicts? of interests?|declaration of competing interests?|"
        r"disclosures|data availability(?: statement)?|code availability|"
        r"availability of data and materials|ethics statement|ethical approval|"
        r"consent for publication",
    ),
    (
        "appendix",
        r"supplementary (?:material|information)|supplemental information|"
        r"additional files?",
    ),
)
_RUN_IN = tuple(
    (
        label,
        re.compile(
            rf"^[*_\s]*(?i:{names})[*_]*"
            # the label alone on its line, then punctuation, or a new sentence; a reference
            # list's first entry ("References 1. Smith J", "REFERENCES [1]"), never a
            # sentence ("REFERENCES Linked references are available on JSTOR")
            rf"(?:\s*$|\s*[.:\u2014\u2013][*_]*(?:\s|$)|\s+(?={follows}))"
        ),
    )
    for label, names in _RUN_IN_NAMES
    for follows in (r"[0-9\[]" if label == "references" else r"[A-Z\u2022\[(]",)
)

# A paragraph that is an acknowledgement or a funding note without any label ("We thank
# ...", "This work was supported by grant ..."): that paragraph alone is labelled.
_STATEMENTS = (
    (
        "funding",
        re.compile(
            r"^(?:this (?:work|research|study|project|material)|the (?:work|research|study)"
            r"(?: reported here)?) (?:was|is|has been) (?:partially |partly |also |in part )*"
            r"(?:supported|funded|financed|sponsored) by\b|^funding for this\b",
            re.IGNORECASE,
        ),
    ),
    (
        "acknowledgements",
        re.compile(
            r"^(?:we|the authors?) (?:would (?:also )?like to |wish to |also )?"
            r"(?:thank|gratefully acknowledge|acknowledge(?! that))\b|"
            r"^(?:we|the authors?) (?:are|is) (?:very |most )?(?:grateful|indebted|thankful) to\b",
            re.IGNORECASE,
        ),
    ),
)

# Lines of a reference list: "[12] Smith, J. ...", "12. Smith J, ...", "Smith, J. (2019).".
_REFERENCE_LINE = re.compile(
    r"^\s*(?:\[\s*[\w+.-]{1,12}\s*\]|\d{1,3}\.\s+[A-Z\u00c0-\u017f]|"
    r"[A-Z\u00c0-\u017f][\w'\u2019-]+,\s+(?:[A-Z]\.\s*){1,3}.*\b(?:19|20)\d\d)"
)
_YEAR = re.compile(r"\b(?:19|20)\d\d[a-z]?\b")
# a cited author with initials: "Afgan E,", "Kim PM,", "J. L. Ba,", "Smith, J." (an in-text
# citation such as "(Kim, Korbel & Gerstein, 2007)" has none)
_AUTHOR = re.compile(
    r"\b[A-Z][\w'\u2019-]+ [A-Z]{1,3}[,.]|\b(?:[A-Z]\.\s?){1,3}[A-Z][\w'\u2019-]+[,.]|"
    r"\b[A-Z][\w'\u2019-]+,\s(?:[A-Z]\.\s?){1,3}"
)


_SPACED = re.compile(r"^(?:[A-Z] ){3,}[A-Z]\b")  # "R E F E R E N C E S", as some journals set it


def _unspaced(line: str) -> str:
    """A letter-spaced label closed up (``R E F E R E N C E S`` -> ``REFERENCES``)."""
    match = _SPACED.match(line)
    if match is None:
        return line
    return match.group(0).replace(" ", "") + line[match.end() :]


def _clean_heading(title: str) -> str:
    text = _unspaced(_DECORATION.sub("", title.strip()))
    text = _NUMBERING.sub("", text)
    return " ".join(_DECORATION.sub("", text).split())


def heading_label(title: str) -> str | None:
    """The section one heading names (``References``, ``7 Acknowledgments``,
    ``Appendix B: Proofs``), or None for a heading that names no known section."""
    text = _clean_heading(title)
    if not text:
        return None
    for label, pattern in _HEADINGS:
        if pattern.match(text):
            return label
    return None


def label_for_path(heading_path: str) -> str:
    """The label of a heading path ``A > B > C``: its deepest heading that names a known
    section (an Acknowledgements subsection of an appendix is acknowledgements), else
    body. A path without headings (the title page) is body."""
    for part in reversed(heading_path.split(" > ")):
        label = heading_label(part)
        if label is not None:
            return label
    return "body"


def run_in_label(block: str) -> str | None:
    """The section a block opens as a run-in label (``Funding This work was ...``), or
    None. Body sentences that merely start with such a word ("Funding was scarce") are
    not labels: the word must stand alone, be followed by punctuation, or by a capital."""
    first = _unspaced(block.lstrip().lstrip("*_").split("\n", 1)[0])
    if not first[:1].isupper():  # "funding this work" in lower case is prose
        return None
    for label, pattern in _RUN_IN:
        if pattern.match(first):
            return label
    return None


def statement_label(block: str) -> str | None:
    """``acknowledgements`` or ``funding`` for a paragraph that is one without a label
    (``We thank ...``, ``This work was supported by ...``), else None. Only that paragraph
    is labelled: what follows it is not known to be back matter."""
    first = block.lstrip().lstrip("*_")
    for label, pattern in _STATEMENTS:
        if pattern.match(first):
            return label
    return None


def looks_like_reference_list(text: str) -> bool:
    """True when a passage reads as bibliography entries: most of its lines are numbered
    or bracketed entries, or (entries run together on a few long lines) it is dense in
    authors with initials and in years. A reference list the PDF reader gave no heading,
    or merged into a body section."""
    lines = [line for line in text.split("\n") if line.strip()]
    entries = sum(1 for line in lines if _REFERENCE_LINE.match(line))
    if entries >= 3 and entries >= 0.5 * len(lines):
        return True
    words = max(len(text.split()), 1)
    authors = len(_AUTHOR.findall(text)) * 100 / words
    years = len(_YEAR.findall(text)) * 100 / words
    return words >= 20 and authors >= 8 and years >= 3


def chunk_label(path_label: str, text: str) -> str:
    """The final label of a chunk: its heading's (or run-in) label, with body passages
    that read as a reference list labelled references."""
    if path_label in ("body", "appendix") and looks_like_reference_list(text):
        return "references"
    return path_label


__all__ = [
    "chunk_label",
    "heading_label",
    "label_for_path",
    "looks_like_reference_list",
    "run_in_label",
    "statement_label",
]
