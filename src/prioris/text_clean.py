"""One cleaning for every text that enters storage: pages, Markdown, titles, abstracts.

Text reaches a library from PDF text layers (MuPDF), OCR, JATS/HTML converted to
Markdown, and providers' records. Each source has its own defects, and a reader, the
full-text index and the embedding model all see whatever is stored, so the same rules
run on all of them (:func:`clean_text`), and again on stored text by
``prioris reindex --clean-text`` (the rules are idempotent):

- **control characters** (C0 but ``\\t`` and ``\\n``, DEL, C1) are removed: PDF text
  layers map unmapped glyphs to them (``Mangen \\x012009\\x02``). Where one stood between a
  letter and a digit it becomes a space, so the two words do not glue; between two
  letters it is dropped (it stood for a glyph inside the word). ``\\r``, ``\\v`` and
  ``\\f`` end a line. Zero-width spaces, BOMs and soft hyphens inside a word go too.
- **TeX spacing accents**: TeX fonts draw an accent as a glyph of its own next to the
  letter, and the text layer keeps it as a *spacing* diacritic: ``O˘guz``, ``Gy¨ongyi``
  (the accent before the letter it marks), ``Franc¸ois`` (cedilla and ogonek after it,
  or before it in some fonts: ``¸Stefan``; each goes with the neighbour that can carry
  it), sometimes with a space between. They are composed into the letter (``Oğuz``,
  ``Gyöngyi``, ``François``), so a search for either spelling finds the name (the index
  folds diacritics). A combining mark printed before its letter is moved after it, and
  the earlier cleaner's cedilla put on the *following* vowel (``Franco̧is``) is repaired.
- **ligatures** (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) are spelled out, so ``ﬁnd`` is the word ``find``; an
  "fl" some fonts map to a macron before a space (``in¯ uenced``) is mended;
- **NFC**, so one letter has one spelling.

:func:`clean_metadata` is for a provider's short fields (title, abstract, names): the
same rules plus LaTeX accent macros (``Schr{\\"o}dinger``, ``\\'{e}``, ``{\\ss}``), which
arXiv records carry; only the accent macros are rewritten, so math (``$\\alpha$``) stays.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import TypeVar

# -- control characters ---------------------------------------------------------------------
_LINE_ENDS = re.compile("\r\n?|[\x0b\x0c\x85\u2028\u2029]")
_CONTROL = "\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f"
_CONTROL_RUN = re.compile(f"[{_CONTROL}]+")
_ANY_CONTROL = re.compile(f"[{_CONTROL}\r\x0b\x0c\x85]")
_INVISIBLE = re.compile("[\u200b\ufeff\u2060]")
# a soft hyphen inside a line is invisible; at a line end the line joiner handles it
_SOFT_HYPHEN = re.compile("(?<=\\w)\u00ad(?=\\w)")


def _control_gap(match: re.Match[str]) -> str:
    """A run of control characters: a space between a letter and a digit, else nothing."""
    text, start, end = match.string, match.start(), match.end()
    left = text[start - 1] if start else ""
    right = text[end] if end < len(text) else ""
    glue = left.isalnum() and right.isalnum() and (left.isdigit() != right.isdigit())
    return " " if glue else ""


def remove_controls(text: str) -> str:
    """``text`` without control characters (``\\n`` and ``\\t`` kept; see the module)."""
    text = _LINE_ENDS.sub("\n", text)
    if _CONTROL_RUN.search(text):
        text = _CONTROL_RUN.sub(_control_gap, text)
    text = _INVISIBLE.sub("", text)
    return _SOFT_HYPHEN.sub("", text)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character :func:`clean_text` removes."""
    return _ANY_CONTROL.search(text) is not None


# -- TeX spacing accents ----------------------------------------------------------------------
# spacing diacritic -> combining mark; TeX draws these before the letter they mark
ACCENTS_BEFORE = {
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u00b4": "\u0301",  # ´ acute
    "\u02ca": "\u0301",  # ˊ modifier acute
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ tilde
    "\u02c7": "\u030c",  # ˇ caron
    "\u02da": "\u030a",  # ˚ ring
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02dd": "\u030b",  # ˝ double acute
    "\u00af": "\u0304",  # ¯ macron
    "\u02c9": "\u0304",  # ˉ modifier macron
    "\u02cb": "\u0300",  # ˋ modifier grave
}
# ... and these after it
ACCENTS_AFTER = {
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02db": "\u0328",  # ˛ ogonek
}
_LETTER = "A-Za-z\u0131\u0237"  # dotless i and j take the accents of i and j
# a space between accent and letter only inside a word ("Gy¨ ongyi"): an accent after a
# space, then a space, is more likely a glyph the font mapped wrongly ("greater ¯ exibility")
_BEFORE = re.compile(
    f"(?:(?<=[{_LETTER}])([{''.join(ACCENTS_BEFORE)}]) ?|([{''.join(ACCENTS_BEFORE)}]))"
    f"([{_LETTER}])"
)
# A cedilla or an ogonek goes with the neighbour that can carry it, the letter before
# first ("Franc¸ois", "Wa˛sowski"), else the one after (some fonts print it first:
# "¸Stefan", "Tapu¸s" for Ștefan, Țapuș).
_TAKES = {"\u00b8": "CcSsTtGgKkLlNnRrEeDdHh", "\u02db": "AaEeIiOoUu"}
_AFTER = re.compile("|".join(f"([{letters}]) ?({accent})" for accent, letters in _TAKES.items()))
_AFTER_NEXT = re.compile(
    "|".join(f"({accent}) ?([{letters}])" for accent, letters in _TAKES.items())
)
# Some publishers' fonts map the "fl" ligature to the macron, drawn apart from the rest of
# the word ("in¯ uenced", "re¯ ects", "greater ¯ exibility" in the fixture papers); a TeX
# macron never stands before a space and a lower-case letter.
_FL_AS_MACRON = re.compile("(?:(?<=[A-Za-z])|(?<![^\\s(]))\u00af (?=[a-z]{2})")
# the long solidus overlay printed before the relation it negates ("f(x)̸ = 0": ≠)
_NOT = re.compile("\u0338( ?)([=<>\u2208\u220b\u2261\u223c\u2264\u2265\u2282\u2283\u2286\u2287])")
# the grave is an ASCII backtick in TeX fonts: only inside a word, before a vowel that
# takes it ("Universit`a", "Ren`e"), never code or TeX quotes (``...'')
_GRAVE = re.compile("(?<=[A-Za-z])`(?=[AEIOUaeiou](?![A-Za-z]*'))")
# a combining mark with no letter before it, printed before its letter; a run of marks
# is tried from its start only (not preceded by a mark either): tried from each of its
# marks, a long run with no letter after it took time growing with its square
_MARK_FIRST = re.compile(
    "(?<![^\\W\\d_])(?<![\u0300-\u0336\u0339-\u036f])([\u0300-\u0336\u0339-\u036f]+)([A-Za-z])"
)
# the cedilla the earlier cleaner put on the vowel after c/s/t ("Franco̧is")
_CEDILLA_MISPLACED = re.compile("([CcSsTt])([AEIOUaeiou])\u0327")
_DOTLESS = {"\u0131": "i", "\u0237": "j"}


def _pair(match: re.Match[str], *, letter_first: bool) -> str:
    """A letter and the cedilla/ogonek matched with it, as the letter and its mark."""
    first, second = [g for g in match.groups() if g is not None]
    letter, accent = (first, second) if letter_first else (second, first)
    return letter + ACCENTS_AFTER[accent]


def compose_accents(text: str) -> str:
    """TeX's spacing accents composed into the letters they mark (not yet NFC)."""
    if "\u00af " in text:
        text = _FL_AS_MACRON.sub("fl", text)
    if _CEDILLA_MISPLACED.search(text):
        text = _CEDILLA_MISPLACED.sub("\\1\u0327\\2", text)
    if "\u00b8" in text or "\u02db" in text:
        text = _AFTER.sub(lambda m: _pair(m, letter_first=True), text)
        text = _AFTER_NEXT.sub(lambda m: _pair(m, letter_first=False), text)
    if "`" in text:
        text = _GRAVE.sub("\u02cb", text)  # the modifier grave, composed just below
    if _BEFORE.search(text):
        text = _BEFORE.sub(
            lambda m: (
                _DOTLESS.get(m.group(3), m.group(3)) + ACCENTS_BEFORE[m.group(1) or m.group(2)]
            ),
            text,
        )
    if "\u0338" in text:
        text = _NOT.sub("\\1\\2\u0338", text)
    if _MARK_FIRST.search(text):
        text = _MARK_FIRST.sub("\\2\\1", text)
    return text


# -- ligatures --------------------------------------------------------------------------------
LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    }
)


# every character some rule acts on: text without any (most paragraphs) only needs NFC
_TRIGGER = re.compile(
    f"[{_CONTROL}\r\x0b\x0c\x85\u2028\u2029\u200b\ufeff\u2060\u00ad`\ufb00-\ufb06"
    f"\u0300-\u036f{''.join(ACCENTS_BEFORE)}{''.join(ACCENTS_AFTER)}]"
)


def clean_text(text: str) -> str:
    """Text fit to store and index: no control characters, TeX accents composed,
    ligatures spelled out, NFC. Idempotent: cleaning clean text changes nothing."""
    if not text or _TRIGGER.search(text) is None:
        return unicodedata.normalize("NFC", text) if text else text
    text = remove_controls(text).translate(LIGATURES)
    return unicodedata.normalize("NFC", compose_accents(text))


# -- LaTeX accent macros in providers' strings ------------------------------------------------
_MACRO_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
# \"o  \"{o}  {\"o}  \'{\i}  \c c  \c{c}: the accent command, then one letter or \i/\j
_MACRO = re.compile(
    r"(\{)?\\(?:([\"'`^~=.])\s*|([uvHckrdb])(?:\s+|(?=\{)))"
    r"(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))(?(1)\})"
)
_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
}
_LETTER_MACRO = re.compile(r"\{\\(ss|o|O|l|L|ae|AE|oe|OE|aa|AA)\}|\\(ss|ae|AE|oe|OE|aa|AA)\b")


def _macro(match: re.Match[str]) -> str:
    accent = _MACRO_ACCENTS[match.group(2) or match.group(3)]
    letter = match.group(4) or match.group(5)
    if letter.startswith("\\"):
        letter = letter[1:]  # \i, \j: the dotless letter takes the accent of i, j
    return letter + accent


def latex_accents(text: str) -> str:
    """LaTeX accent and letter macros as Unicode (``{\\"o}`` -> ``ö``); the rest as is."""
    if "\\" not in text:
        return text
    text = _MACRO.sub(_macro, text)
    return _LETTER_MACRO.sub(lambda m: _LETTERS[m.group(1) or m.group(2)], text)


def clean_metadata(text: str | None) -> str | None:
    """A provider's title, abstract or name: LaTeX accents, then :func:`clean_text`."""
    if text is None:
        return None
    return clean_text(latex_accents(text))


_W = TypeVar("_W")


def clean_work(work: _W) -> _W:
    """A :class:`~prioris.models.Work` with its title, authors, venue and abstract cleaned
    (:func:`clean_metadata`); a new object when anything changed, else the same one."""
    title = clean_metadata(getattr(work, "title", None))
    abstract = clean_metadata(getattr(work, "abstract", None))
    venue = clean_metadata(getattr(work, "venue", None))
    authors = [clean_metadata(a) or "" for a in getattr(work, "authors", None) or []]
    changes = {
        name: value
        for name, value in (
            ("title", title),
            ("abstract", abstract),
            ("venue", venue),
            ("authors", authors),
        )
        if value != getattr(work, name, None)
    }
    return replace(work, **changes) if changes else work  # type: ignore[type-var]
