"""Citations of library works: BibTeX, CSL-JSON, RIS, formatted text and JSON lines.

Pure functions: nothing here reads the database; the library passes
:class:`~prioris.models.Work` objects. Every format asks :mod:`~prioris.export.kinds`
what kind of publication a work is, so a journal article is ``@article``,
``article-journal`` and ``JOUR`` alike; keys come from :mod:`~prioris.export.keys`
(``vaswani2017attention``, unique within one export, stable across exports);
:mod:`~prioris.export.bibtex` documents the escaping, :mod:`~prioris.export.styles`
the bundled CSL styles.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.export.bibtex import bib_entry, escape_latex, to_bibtex
from prioris.export.csl import csl_item, to_csl_json
from prioris.export.keys import citation_key, unique_keys
from prioris.export.kinds import KINDS, entry_kind
from prioris.export.names import is_collective, split_name, work_url
from prioris.export.ris import dumps as ris_dumps
from prioris.export.ris import ris_record, to_ris
from prioris.export.styles import STYLES, format_citations, resolve_style, to_text
from prioris.models import Work

FORMATS = ("bibtex", "csl-json", "ris", "text", "jsonl")
"""Export formats; ``text`` is a formatted reference list in a CSL style."""

__all__ = [
    "FORMATS",
    "KINDS",
    "STYLES",
    "citation_key",
    "cite_each",
    "entry_kind",
    "escape_latex",
    "format_citations",
    "is_collective",
    "render",
    "resolve_style",
    "split_name",
    "to_bibtex",
    "to_csl_json",
    "to_jsonl",
    "to_ris",
    "to_text",
    "unique_keys",
    "work_url",
]


Labels = Mapping[str, Mapping[str, list[Any]]]
"""``{work id: {"collections", "tags", "notes": [...]}}`` (storage.labels, storage.notes)."""


def to_jsonl(works: Iterable[Work], labels: Labels | None = None) -> str:
    """One JSON object per line: every stored field of each work (UTF-8, not escaped),
    and its ``collections``, ``tags`` and ``notes`` (empty lists when it has none)."""
    lines = []
    for work in works:
        record = work.to_dict()
        extra = record.get("extra")
        if isinstance(extra, dict):  # the manager's record rides along for the exporters
            record["extra"] = {k: v for k, v in extra.items() if k != "own_record"}
        own = (labels or {}).get(work.id, {})
        record["collections"] = list(own.get("collections", []))
        record["tags"] = list(own.get("tags", []))
        record["notes"] = list(own.get("notes", []))  # the researcher's notes, highlights
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True, default=str) + "\n")
    return "".join(lines)


def render(
    works: Iterable[Work],
    fmt: str,
    style: str | None = None,
    *,
    allow_path: bool = False,
    labels: Labels | None = None,
) -> str:
    """The export as text in ``fmt`` (:data:`FORMATS`); ``style`` is for ``text`` only
    (a bundled style name, default ``apa``; a ``.csl`` path when ``allow_path``);
    ``labels`` are the works' collections and tags, which ``jsonl`` records carry."""
    if style is not None and fmt != "text":
        raise InvalidRequestError("a citation style goes with the text format only")
    if fmt == "bibtex":
        return to_bibtex(works)
    if fmt == "csl-json":
        return json.dumps(to_csl_json(works), ensure_ascii=False, indent=2) + "\n"
    if fmt == "ris":
        return to_ris(works)
    if fmt == "text":
        return to_text(works, style, allow_path=allow_path)
    if fmt == "jsonl":
        return to_jsonl(works, labels)
    raise InvalidRequestError(f"unknown export format {fmt!r}; accepted: {', '.join(FORMATS)}")


CITE_FORMATS = ("text", "bibtex", "ris", "csl-json")
"""What :func:`cite_each` writes: a formatted citation, or one entry of a citation file."""


def cite_each(
    works: list[Work], fmt: str = "text", style: str | None = None
) -> list[dict[str, str]]:
    """Each work's citation on its own, ready to paste: ``[{"id", "key", "citation"}]``.

    Keys are those of the whole set (the same as in a combined export). Formatted
    citations carry no list number (``[1]``), which belongs to a reference list."""
    if fmt not in CITE_FORMATS:
        raise InvalidRequestError(
            f"unknown citation format {fmt!r}; accepted: {', '.join(CITE_FORMATS)}"
        )
    if style is not None and fmt != "text":
        raise InvalidRequestError("a citation style goes with the text format only")
    keys = unique_keys(works)
    if fmt == "text":
        resolve_style(style)  # an unknown style fails before any rendering
        texts = [format_citations([w], style, numbered=False)[0] for w in works]
    elif fmt == "bibtex":
        texts = [bib_entry(w, k) for w, k in zip(works, keys, strict=True)]
    elif fmt == "ris":
        texts = [ris_dumps([ris_record(w, k)]) for w, k in zip(works, keys, strict=True)]
    else:
        texts = [json.dumps(csl_item(w), ensure_ascii=False, indent=2) for w in works]
    return [
        {"id": w.id, "key": k, "citation": t.strip()}
        for w, k, t in zip(works, keys, texts, strict=True)
    ]
