"""LaTeX in BibTeX field values, as the Unicode text a reader sees.

``Schr{\\"o}dinger``, ``{\\'e}``, ``\\textendash``, ``{{DNA}}`` (braces protecting capitals),
``~`` and ``--`` are what reference managers write; a library stores ``Schrödinger``,
``é``, ``–``, ``DNA``. Accents and letters go through :func:`prioris.text_clean.latex_accents`
(the same rules the providers' records get); the macros reference managers write most
(``\\emph``, ``\\textendash``, escapes) are rewritten by regular expressions; a value with
any other macro goes through pylatexenc, which gives the same text for the common ones
(``tests/refman/test_latex.py``) but reads character by character. Math is kept verbatim
(``$\\alpha$`` stays), as pylatexenc's verbatim math mode keeps it. pylatexenc fails on
some input (``\\href`` with a missing argument raises IndexError, deep braces exhaust its
recursion): then the macros are dropped and their arguments kept, so a value is never
lost to a decoding error.
"""

from __future__ import annotations

import logging
import re
import unicodedata

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from prioris.text_clean import latex_accents

# pylatexenc reports what it tolerated on its own loggers; a value it could not read is
# handled here, so its warnings would only be noise in the CLI's output
logging.getLogger("pylatexenc").setLevel(logging.ERROR)

_context = get_default_latex_context_db()
_context.add_context_category(
    "prioris-bibtex",
    prepend=True,
    macros=[MacroTextSpec("url", simplify_repl="%s")],
)
_DECODER = LatexNodes2Text(latex_context=_context, math_mode="verbatim")

_UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")
_SIMPLE = str.maketrans({"~": "\u00a0", "{": None, "}": None})
_HREF = re.compile(r"\\href\s*\{[^{}]*\}\s*\{([^{}]*)\}")
_MACRO_WORD = re.compile(r"\\[A-Za-z]+\*?\s*|\\.")


def _plain(text: str) -> str:
    """Dashes, quotes, ties and braces of a value without macros (no pylatexenc needed)."""
    if "-" in text:
        text = text.replace("---", "\u2014").replace("--", "\u2013")
    if "`" in text or "''" in text:
        text = text.replace("``", "\u201c").replace("''", "\u201d")
    return text.translate(_SIMPLE)


def _fallback(text: str) -> str:
    """Macros dropped, their arguments kept: what is left when pylatexenc fails."""
    text = re.sub(r"\\([%&#_$])", r"\1", text)
    return _plain(_MACRO_WORD.sub("", text))


# the macros reference managers write most, rewritten without pylatexenc, which reads
# character by character (30 ms for a 1,000-character abstract: 2.5 minutes for 5,000)
_SYMBOLS = {
    "textendash": "\u2013",
    "textemdash": "\u2014",
    "ldots": "\u2026",
    "dots": "\u2026",
    "textellipsis": "\u2026",
    "textquoteright": "\u2019",
    "textquoteleft": "\u2018",
    "textquotedblleft": "\u201c",
    "textquotedblright": "\u201d",
    "textasciitilde": "~",
    "textbackslash": "\\",
    "textregistered": "\u00ae",
    "texttrademark": "\u2122",
    "copyright": "\u00a9",
    "textdegree": "\u00b0",
    "textmu": "\u00b5",
    "textbullet": "\u2022",
    "S": "\u00a7",
    "P": "\u00b6",
    "dag": "\u2020",
    "pounds": "\u00a3",
    "euro": "\u20ac",
    "relax": "",
    "noopsort": "",
}
_ARGUMENT_MACROS = (
    "emph|textit|textbf|textsc|textrm|textsf|texttt|textup|textsl|textmd|textnormal"
    "|mbox|text|NoCaseChange|nocase|enquote|url|uppercase|MakeUppercase"
)
_ARGUMENT = re.compile(rf"\\(?:{_ARGUMENT_MACROS})\s*\{{([^{{}}\\]*)\}}")
_DECLARATION = re.compile(r"\\(?:em|it|bf|sc|rm|sf|tt|sl|upshape|itshape|bfseries)(?![A-Za-z])\s*")
_SYMBOL = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])(?:\{\}|\s*)")
_ESCAPE = re.compile(r"\\([%&#_${}])|\\([ ,;:!/-])|\\\\")
_MATH = re.compile(r"(?<!\\)\$")


def _escape(match: re.Match[str]) -> str:
    if match.group(1):
        return match.group(1)
    if match.group(2):
        return "" if match.group(2) in "-/" else " "  # \- \/ vanish; \, \; \  space
    return " "  # \\ (a line break)


def _symbol(match: re.Match[str]) -> str:
    name = match.group(1)
    return _SYMBOLS[name] if name in _SYMBOLS else match.group(0)


def _fast(text: str) -> str | None:
    """``text`` decoded without pylatexenc, or None when a macro it does not know is left.

    Math (``$...$``) is kept verbatim, as pylatexenc's ``math_mode="verbatim"`` keeps it;
    text outside math loses the known macros, then braces, dashes and quotes.
    """
    pieces = _MATH.split(text)
    if len(pieces) % 2 == 0:  # an odd number of $: no math to keep apart
        pieces = [text]
    out: list[str] = []
    for index, piece in enumerate(pieces):
        if index % 2:
            out.append(f"${piece}$")
            continue
        if "\\" in piece:
            for _ in range(4):  # nested: \emph{\textbf{x}}
                piece, count = _ARGUMENT.subn(r"\1", piece)
                if not count:
                    break
            piece = _DECLARATION.sub("", piece)
            piece = _SYMBOL.sub(_symbol, piece)
            piece = _ESCAPE.sub(_escape, piece)
            if "\\" in piece:
                return None
        out.append(_plain(piece))
    return "".join(out)


def decode(value: str) -> str:
    """``value`` with LaTeX turned into Unicode (see the module), NFC; never raises."""
    return unicodedata.normalize("NFC", _decode(value)) if value else ""


def _decode(value: str) -> str:
    text = value
    if "\\" in text:
        text = _HREF.sub(r"\1", latex_accents(text))
    if "\\" not in text and "$" not in text:
        return _plain(text)
    fast = _fast(text)
    if fast is not None:
        return fast
    # in a field, % is a percent sign (BibTeX has no comments inside values), but to
    # pylatexenc it starts a comment that would swallow the rest of the line
    if "%" in text:
        text = _UNESCAPED_PERCENT.sub(r"\\%", text)
    try:
        return _DECODER.latex_to_text(text)
    except Exception:  # pylatexenc raises IndexError, KeyError... on odd input
        return _fallback(text)


def verbatim(value: str) -> str:
    """A field that is no text (a URL, a DOI, an eprint id): only TeX escapes undone."""
    text = re.sub(r"\\url\{([^}]*)\}", r"\1", value or "")
    text = re.sub(r"\\([%&#_$~{}])", r"\1", text)
    return text.replace("{", "").replace("}", "").replace("$\\backslash$", "\\")
