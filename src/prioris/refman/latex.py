"""LaTeX in BibTeX field values, as the Unicode text a reader sees.

``Schr{\\"o}dinger``, ``{\\'e}``, ``\\textendash``, ``{{DNA}}`` (braces protecting capitals),
``~`` and ``--`` are what reference managers write; a library stores ``Schrödinger``,
``é``, ``–``, ``DNA``. Accents and letters go through :func:`prioris.text_clean.latex_accents`
(fast, and the same rules the providers' records get); what else carries a macro goes
through pylatexenc, math kept verbatim (``$\\alpha$`` stays). pylatexenc fails on some
input (``\\href`` with a missing argument raises IndexError): then the macros are dropped
and their arguments kept, so a value is never lost to a decoding error.
"""

from __future__ import annotations

import logging
import re

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


def decode(value: str) -> str:
    """``value`` with LaTeX turned into Unicode (see the module); never raises."""
    if not value:
        return ""
    # in a field, % is a percent sign (BibTeX has no comments inside values), but to
    # pylatexenc it starts a comment that would swallow the rest of the line
    text = _UNESCAPED_PERCENT.sub(r"\\%", value) if "%" in value else value
    if "\\" in text:
        text = _HREF.sub(r"\1", latex_accents(text))
    if "\\" not in text and "$" not in text:
        return _plain(text)
    try:
        return _DECODER.latex_to_text(text)
    except Exception:  # pylatexenc raises IndexError, KeyError... on odd input
        return _fallback(text)


def verbatim(value: str) -> str:
    """A field that is no text (a URL, a DOI, an eprint id): only TeX escapes undone."""
    text = re.sub(r"\\url\{([^}]*)\}", r"\1", value or "")
    text = re.sub(r"\\([%&#_$~{}])", r"\1", text)
    return text.replace("{", "").replace("}", "").replace("$\\backslash$", "\\")
