"""One entry point for a reference file: BibTeX or RIS, told by its name or its content.

``prioris import refs.bib`` and ``refs.ris`` go through :func:`read_references`, so the
caller need not know the format: ``.bib``/``.bibtex``/``.biblatex`` is BibTeX, ``.ris`` is
RIS, and any other name (``.txt``, EndNote's exports, no extension) is sniffed from the
first lines: an ``@type{`` entry or a ``TY  - `` tag.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from prioris.errors import InvalidRequestError
from prioris.refman import fields as F
from prioris.refman.bibtex import parse_bibtex
from prioris.refman.items import RefError, RefItem
from prioris.refman.ris import parse_ris

BIBTEX_SUFFIXES = (".bib", ".bibtex", ".biblatex")
RIS_SUFFIXES = (".ris",)
_BIBTEX_ENTRY = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_RIS_TAG = re.compile(r"^\s*TY {1,2}-", re.MULTILINE)


def reference_format(path: Path, text: str = "") -> str:
    """``bibtex`` or ``ris`` for ``path`` (its suffix, else ``text`` sniffed)."""
    suffix = path.suffix.lower()
    if suffix in BIBTEX_SUFFIXES:
        return "bibtex"
    if suffix in RIS_SUFFIXES:
        return "ris"
    text = text.lstrip("\ufeff")
    ris = _RIS_TAG.search(text)
    bib = _BIBTEX_ENTRY.search(text)
    if ris and (not bib or ris.start() < bib.start()):
        return "ris"
    if bib:
        return "bibtex"
    raise InvalidRequestError(
        f"{path} is neither BibTeX nor RIS: name it .bib or .ris, or give it entries "
        "('@article{key, ...}' or 'TY  - JOUR' ... 'ER  - ')"
    )


def read_references(
    path: Path, *, roots: Sequence[Path] = ()
) -> tuple[list[RefItem], list[RefError]]:
    """The items of a BibTeX or RIS file and the entries that could not be read.

    ``roots``: other folders a moved file's links are looked for under
    (:mod:`prioris.refman.filelinks`). Never raises anything but a PriorisError.
    """
    suffix = path.suffix.lower()
    kind = (
        "BibTeX" if suffix in BIBTEX_SUFFIXES else "RIS" if suffix in RIS_SUFFIXES else "reference"
    )
    text, encoding = F.read_text(path, kind=kind)
    base = path.absolute().parent
    if reference_format(path, text) == "bibtex":
        return parse_bibtex(text, base=base, roots=roots, encoding=encoding)
    return parse_ris(text, base=base, roots=roots, encoding=encoding, name=str(path))
