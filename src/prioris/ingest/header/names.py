"""Author names from a paper's byline: split a printed line into clean full names.

Pure functions over text. A byline joins names with commas, ``and``, ``&``, semicolons or
only with footnote markers (``Yichen He*1 Guanhua Huang*1``); the caller replaces the
superscript markers it saw in the layout by :data:`MARK`, which separates names like a
comma does. What is left is judged name by name (:func:`looks_like_name`): capitalised
words and initials with the usual particles (``van``, ``de``, ``bin``), no digits, no
words of an affiliation or a sentence. Honorifics (``Dr.``) and degrees (``PhD``) are
dropped; accents are kept as printed.
"""

from __future__ import annotations

import re
import unicodedata

MARK = "\u2063"  # INVISIBLE SEPARATOR: where a superscript marker stood
_MARKERS = "*∗†‡§¶‖#$+⋆✝✉⊥♮♭♯°˚∥⁎☆★♣♠♦♥⊕⊗⋄◇△▽♢®©™¹²³⁴⁵⁶⁷⁸⁹⁰"
_SEPARATORS = re.compile(rf"\s*[,;{MARK}·•|]\s*|\s+(?:and|&)\s+", re.IGNORECASE)
_LEADING_AND = re.compile(r"^(?:and|&)\s+|\s+(?:and|&)$|^(?:and|&)$|^et\.?\s+al\.?$", re.IGNORECASE)
_PARTICLES = {
    "van",
    "von",
    "der",
    "den",
    "de",
    "del",
    "della",
    "dei",
    "di",
    "da",
    "das",
    "dos",
    "du",
    "la",
    "le",
    "ter",
    "ten",
    "zu",
    "bin",
    "binti",
    "ibn",
    "al",
    "el",
    "y",
    "e",
    "mac",
}
_HONORIFICS = re.compile(
    r"^(?:dr|prof|professor|mr|mrs|ms|sir|dame)\.?\s+|^by\s+|"
    r",?\s+(?:ph\.?\s?d|m\.?d|m\.?sc|b\.?sc|mba|frcp|jr|sr|ii|iii)\.?$",
    re.IGNORECASE,
)
# words of an organisation's name: a byline piece holding one is an affiliation
_ORGANISATION = {
    "university",
    "universität",
    "université",
    "universidad",
    "universidade",
    "università",
    "institute",
    "institut",
    "instituto",
    "department",
    "dept",
    "school",
    "college",
    "faculty",
    "laboratory",
    "lab",
    "labs",
    "center",
    "centre",
    "hospital",
    "clinic",
    "klinik",
    "clinique",
    "institutet",
    "polytechnique",
    "academy",
    "corporation",
    "inc",
    "ltd",
    "gmbh",
    "company",
    "research",
    "google",
    "microsoft",
    "electronics",
    "pharma",
    "pharmaceuticals",
    "diagnostics",
    "usa",
    "uk",
}
# words that never appear in a person's name but do in affiliations, captions and prose
_NOT_NAME_WORDS = (_ORGANISATION - {"uk"}) | {
    "departamento",
    "dipartimento",
    "centro",
    "facultad",
    "escuela",
    "laboratorio",
    "laboratories",
    "group",
    "division",
    "foundation",
    "program",
    "programme",
    "science",
    "sciences",
    "engineering",
    "technology",
    "national",
    "international",
    "abstract",
    "introduction",
    "keywords",
    "email",
    "e-mail",
    "correspondence",
    "corresponding",
    "author",
    "authors",
    "editor",
    "received",
    "accepted",
    "published",
    "the",
    "of",
    "for",
    "in",
    "on",
    "with",
    "from",
    "to",
    "at",
    "by",
    "is",
    "are",
    "we",
    "this",
    "that",
    "our",
    "an",
    "a",
    "via",
    "using",
    "towards",
    "toward",
    "based",
    "analysis",
    "study",
    "approach",
    "method",
    "methods",
    "learning",
    "network",
    "networks",
    "model",
    "models",
    "data",
    "system",
    "systems",
    "equal",
    "contribution",
    "work",
    "paper",
    "article",
    "journal",
    "proceedings",
    "conference",
    "workshop",
    "vol",
    "volume",
    "open",
    "access",
    "review",
    "brain",
    "street",
    "road",
    "avenue",
    "box",
    "ai",
    # places that read like two capitalised names ("New Zealand", "Hong Kong")
    "new",
    "united",
    "kingdom",
    "states",
    "republic",
    "san",
    "santa",
    "los",
    "las",
    "hong",
    "kong",
    "saudi",
    "arabia",
    "zealand",
    "africa",
    "america",
    "korea",
    "lanka",
    "rica",
    # countries and places printed after an affiliation ("Redmond WA USA")
    "china",
    "germany",
    "france",
    "japan",
    "canada",
    "italy",
    "spain",
    "india",
    "australia",
    "netherlands",
    "switzerland",
    "sweden",
    "norway",
    "denmark",
    "finland",
    "austria",
    "belgium",
    "israel",
    "brazil",
    "singapore",
    "greece",
    "portugal",
    "poland",
    "ireland",
    "england",
    "scotland",
    "taiwan",
    "mexico",
    "turkey",
    "iran",
    "egypt",
    "nigeria",
    "kenya",
    "russia",
    "ukraine",
    "usa.",
    "students",
    "student",
    "capstone",
    "report",
    "edition",
    "series",
    "editors",
    "outcomes",
    "measurements",
    "inc.",
    "llc",
    "corp",
    "amazon",
    "apple",
    "yahoo",
    "nvidia",
    "intel",
    "deepmind",
    "openai",
    "baidu",
    "alibaba",
    "tencent",
}
# words that end a name and start what was printed after it on the same line
_AFTER_NAME = _NOT_NAME_WORDS - _PARTICLES - {"de", "the", "of", "a", "an", "e", "y"}
_URL = re.compile(r"^(?:https?://|www\.)\S+$|^\S+\.(?:com|org|net|edu|io|ac\.\w\w|gov)\S*$", re.I)
_EMAIL_TOKEN = re.compile(r"^\S+@\S+$")
_SUFFIXES = re.compile(r"^(?:jr|sr|ii|iii|iv|ph\.?\s?d|m\.?d|m\.?sc)\.?$", re.IGNORECASE)
_COLLECTIVE = re.compile(r"\b(?:collaboration|consortium|collaborators|study group)\b", re.I)
_TOKEN = re.compile(r"^[^\W\d_][\w'’\-.]*$")
_INITIALS = re.compile(r"^(?:[^\W\d_]\.)+(?:-[^\W\d_]\.)?$|^[^\W\d_]\.?-[^\W\d_]\.$")


def clean_name(raw: str) -> str:
    """A name without markers, digits, honorifics or stray punctuation; spacing normalised."""
    text = unicodedata.normalize("NFC", raw)
    text = re.sub(rf"[{re.escape(_MARKERS)}\d{MARK}]+", " ", text)
    text = re.sub(r"\([^)]*\)", " ", text)  # "( )" where an icon was, "(MIT)", "(a@b.c)"
    text = " ".join(t for t in text.split() if any(ch.isalpha() for ch in t))
    text = text.strip(" ,;:()[]{}'\"")
    previous = None
    while previous != text:
        previous = text
        text = _HONORIFICS.sub("", text).strip(" ,")
    return text


def strip_trailing(piece: str) -> str:
    """A name without what a byline printed after it: a URL, an e-mail address, a company,
    an affiliation or a place (``Satoshi Nakamoto www.bitcoin.org``, ``Robert E. Gruber
    Google``, ``Sophia Papadopoulou National ...``), when what is left is a full name."""
    tokens = [t for t in piece.split() if not (_URL.match(t) or _EMAIL_TOKEN.match(t))]
    for cut in range(max(2, len(tokens) - 2), len(tokens)):  # a word or two after it
        if tokens[cut].lower().strip(".,;:") in _AFTER_NAME:
            head = " ".join(tokens[:cut])
            if looks_like_name(head):
                return head
            break
    return " ".join(tokens)


def ends_a_name(word: str) -> bool:
    """Whether ``word`` is printed after a name rather than in it (``Google``, ``National``,
    ``University``): a byline row ending open is not continued by it."""
    return word.lower().strip(".,;:") in _AFTER_NAME


def _is_place(name: str) -> bool:
    """``Redmond WA``: a town and a state code, printed in mixed case (a name in capitals
    may end in two capitals, ``ANDREW NG``)."""
    tokens = name.split()
    last = tokens[-1]
    return (
        len(tokens) >= 2
        and len(last) == 2
        and last.isupper()
        and not all(t.isupper() for t in tokens)
    )


def _is_name_token(token: str) -> bool:
    if token.lower() in _PARTICLES:
        return True
    if not _TOKEN.match(token):
        return False
    if _INITIALS.match(token):
        return True
    if "." in token[:-1] and not re.match(r"^(?:Mc|Mac|St)\.", token):
        return False  # "STAT.BERKELEY.EDU": an address, not a name
    first = token[0]  # a capital, or a letter without case (CJK names)
    return not first.islower() or (token[:2].lower() in ("d'", "d’", "o'", "o’") and len(token) > 2)


def _is_uncased_letter(char: str) -> bool:
    return char.isalpha() and not char.isupper() and not char.islower()


def looks_like_name(name: str) -> bool:
    """Whether ``name`` reads as one person's full name (or a named collaboration)."""
    if _COLLECTIVE.search(name):
        return 2 <= len(name.split()) <= 8 and not any(c.isdigit() for c in name)
    tokens = name.split()
    if len(tokens) == 1 and 2 <= len(name) <= 4 and all(_is_uncased_letter(c) for c in name):
        return True  # a CJK name printed without spaces (王小明)
    if not 2 <= len(tokens) <= 6 or len(name) > 60 or _is_place(name):
        return False
    if tokens[0].lower() in _PARTICLES and tokens[0][0].islower():
        return False  # a name starts with a given name or an initial
    words = [t.lower().strip(".,") for t in tokens]
    if any(len(w) > 1 and w in _NOT_NAME_WORDS for w in words):
        return False
    if not all(_is_name_token(t) for t in tokens):
        return False
    # a family name is a word (or one capital, as in "Weinan E"), not an initial "J."
    return not _INITIALS.match(tokens[-1])


def split_byline(text: str) -> list[str]:
    """Every piece of a byline between separators, cleaned (empty pieces dropped)."""
    pieces = [_LEADING_AND.sub("", p.strip()) for p in _SEPARATORS.split(text)]
    names = [clean_name(strip_trailing(piece)) for piece in pieces]
    return [name for name in names if name]


def _is_affiliation(piece: str) -> bool:
    words = {w.lower().strip(".,;:()") for w in piece.split()}
    return bool(words & _ORGANISATION) or _URL.match(piece.strip()) is not None


def names_in_byline(text: str) -> list[str] | None:
    """The names of a byline when it is one (most pieces are names), else None.

    A byline may carry a stray piece (a lone ``Jr.``, an envelope icon's text); more than
    a quarter of pieces that are not names means this line is something else.
    """
    pieces = [p for p in split_byline(text) if not _SUFFIXES.match(p)]
    if not pieces:
        return None
    names = [p for p in pieces if looks_like_name(p)]
    if names and looks_like_name(pieces[0]):
        # "Name, University College London, name@host": what follows the names is their
        # affiliation or address, not other names
        pieces = [p for p in pieces if looks_like_name(p) or not _is_affiliation(p)]
    if not names or len(names) < 0.75 * len(pieces):
        return None
    return names
