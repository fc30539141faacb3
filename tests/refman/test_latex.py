"""LaTeX in BibTeX values (src/prioris/refman/latex.py): the regular-expression path for
what reference managers write most gives what pylatexenc gives, and pylatexenc's own
failures never lose a value."""

from __future__ import annotations

import unicodedata

import bibtexparser
import pytest

from prioris.refman import latex
from prioris.refman.latex import decode, verbatim

from conftest import shared_path


def _pylatexenc(value: str) -> str:
    """What pylatexenc alone makes of ``value`` (after the same accent pass), NFC."""
    text = latex._UNESCAPED_PERCENT.sub(r"\\%", value)
    decoded = latex._DECODER.latex_to_text(latex._HREF.sub(r"\1", latex.latex_accents(text)))
    return unicodedata.normalize("NFC", decoded)


CASES = [
    ('Schr{\\"o}dinger', "Schrödinger"),
    ("Sports {{Analytics}} Algorithms", "Sports Analytics Algorithms"),
    ("long\\textendash term \\textemdash{} and\\ldots", "long–term — and…"),
    ("\\emph{\\textbf{nested}} {\\em old} \\textit{x}", "nested old x"),
    ("50% and 60\\% \\& \\_ \\# \\$", "50% and 60% & _ # $"),
    ("pages 12--34 and 1---2", "pages 12–34 and 1—2"),
    ("``quoted'' text", "“quoted” text"),
    ("$\\alpha$-helix in $x^{2}$ units", "$\\alpha$-helix in $x^{2}$ units"),
    ("a~b", "a\u00a0b"),
    ("{\\relax Ch}ristopher", "Christopher"),
    ("Na\\\"{\\i}ve caf\\'e", "Naïve café"),
    ("\\url{http://x.org/a}", "http://x.org/a"),
]


@pytest.mark.parametrize(("value", "expected"), CASES)
def test_decode(value: str, expected: str) -> None:
    assert decode(value) == expected
    assert " ".join(decode(value).split()) == " ".join(_pylatexenc(value).split())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("\\href{http://a}{the text}", "the text"),  # pylatexenc raises IndexError on it
        ("\\href{x}", "x"),
        ("\\unknownmacro{kept} word", "kept word"),
        ("{" * 3000 + "deep" + "}" * 3000, "deep"),  # pylatexenc recurses too deep
        ("\\", ""),
        ("", ""),
    ],
)
def test_what_pylatexenc_cannot_read_is_not_lost(value: str, expected: str) -> None:
    assert decode(value) == expected


def test_verbatim_fields() -> None:
    assert verbatim("10.1000/a\\_b") == "10.1000/a_b"
    assert verbatim("\\url{http://x.org/a\\_b\\%20}") == "http://x.org/a_b%20"
    assert verbatim("{arXiv}") == "arXiv"


def test_the_real_exports_decode_as_pylatexenc_does() -> None:
    folder = shared_path("fixtures", "bibtex")
    values = []
    for bib in sorted(folder.rglob("*.bib")):
        library = bibtexparser.parse_string(bib.read_text(encoding="utf-8"))
        for entry in library.entries:
            values += [str(f.value) for f in entry.fields if f.key not in ("file", "url", "doi")]
    assert len(values) > 400
    for value in values:
        assert " ".join(decode(value).split()) == " ".join(_pylatexenc(value).split()), value
