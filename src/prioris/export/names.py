"""People and identifiers as citations need them: split names, ASCII words, ids, links.

Shared by every export format (BibTeX, CSL-JSON, RIS, formatted text) so a work's first
author, DOI and link read the same in all of them.
"""

from __future__ import annotations

import re
import unicodedata

from prioris.models import Work

_PARTICLES = {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le"}
_COLLECTIVE = re.compile(r"\b(?:collaboration|consortium|collaborators|study group)\b", re.I)
# "JD" in Europe PMC's index form "Schoenfeld JD"; one capital is a family name ("Weinan E")
_INDEX_INITIALS = re.compile(r"^[A-Z]{2,3}$")
# letters NFKD does not take apart into an ASCII base letter and a mark
_FOLD = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ß": "ss",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "þ": "th",
        "ı": "i",
    }
)


# Greek and Cyrillic letters as ISO 9 / ELOT 743 spell them in Latin (lower case; an
# upper-case letter is lowered first): a key from "Παπαδόπουλος" or "Иванов" reads
# "papadopoulos" / "ivanov" rather than being dropped as non-ASCII
_TRANSLITERATE = str.maketrans(
    dict(
        zip(
            "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊϋΐΰς",
            [
                *"a b g d e z i th i k l m n x o p r s t y f ch ps o".split(),
                *"a e i i o y o i y i y s".split(),
            ],
            strict=True,
        )
    )
    | dict(
        zip(
            "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґў",
            [
                *"a b v g d e e zh z i i k l m n o p r s t u f kh ts ch sh shch".split(),
                "",
                "y",
                "",
                *"e yu ya i i ye g u".split(),
            ],
            strict=True,
        )
    )
)


def _greek_digraphs(text: str) -> str:
    """``ου`` is one sound, ``ou`` (ELOT 743), before the letters are taken one by one."""
    return text.replace("ου", "ou").replace("ού", "ou").replace("οϋ", "oy")


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


def ascii_word(text: str) -> str:
    """``text`` folded to lower-case ASCII letters and digits (``Søren-Müller`` ->
    ``sorenmuller``): what citation keys are made of."""
    latin = _greek_digraphs(text.translate(_FOLD).lower()).translate(_TRANSLITERATE)
    folded = unicodedata.normalize("NFKD", latin)
    folded = folded.encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def alias(work: Work, scheme: str) -> str | None:
    """The value of the work's first ``scheme:`` identifier (its id, then its aliases)."""
    prefix = f"{scheme}:"
    for value in [work.id, *work.aliases]:
        if value.lower().startswith(prefix) and len(value) > len(prefix):
            return value[len(prefix) :]
    return None


def arxiv_id(work: Work) -> str | None:
    """The arXiv identifier (``2401.01234v2``), if the work has one."""
    return alias(work, "arxiv")


def doi(work: Work) -> str | None:
    """The DOI without its ``doi:`` prefix, if the work has one."""
    return alias(work, "doi")


def pmcid(work: Work) -> str | None:
    """The PubMed Central id (``PMC123``), if the work has one."""
    value = alias(work, "europepmc")
    return value.upper() if value and value.upper().startswith("PMC") else None


def pmid(work: Work) -> str | None:
    """The PubMed id, from ``pmid:`` or Europe PMC's ``MED:`` id."""
    value = alias(work, "pmid")
    if value:
        return value
    value = alias(work, "europepmc")
    return value[4:] if value and value.upper().startswith("MED:") else None


def work_url(work: Work) -> str | None:
    """The user's own link (their reference manager's ``url``), else the most stable
    public one: arXiv abstract page, DOI, PMC, else the PDF link."""
    own = work.extra.get("url") if isinstance(work.extra, dict) else None
    if isinstance(own, str) and re.match(r"(?:https?|ftp)://\S+$", own.strip()):
        return own.strip()
    arxiv = arxiv_id(work)
    if arxiv:
        return f"https://arxiv.org/abs/{arxiv}"
    found = doi(work)
    if found:
        return f"https://doi.org/{found}"
    pmc = pmcid(work)
    if pmc:
        return f"https://europepmc.org/article/PMC/{pmc}"
    return work.pdf_url or None


def primary_class(work: Work) -> str | None:
    """arXiv's primary category (``cs.CL``) when the arXiv record gave it."""
    value = work.extra.get("primary_category") if isinstance(work.extra, dict) else None
    return value if isinstance(value, str) and value else None


def page_range(pages: str | None) -> tuple[str, str | None] | None:
    """``(first, last)`` from ``"101-110"``, ``"101–10"`` or ``"101--110"``; ``last`` is
    None for one page (``"e4375"``) and for a range whose ends are the same."""
    if not pages or not pages.strip():
        return None
    parts = [p.strip() for p in re.split(r"\s*(?:-{1,2}|–|—)\s*", pages.strip(), maxsplit=1)]
    first = parts[0]
    last = parts[1] if len(parts) > 1 and parts[1] else None
    if not first:
        return None
    if last == first:
        last = None
    return first, last
