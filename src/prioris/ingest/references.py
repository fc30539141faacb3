"""A work's reference list, read from its Markdown and parsed entry by entry.

The PDF reader gives a paper's text as Markdown, and the reference list arrives in every
state a PDF leaves it in: under a ``## References`` heading or a run-in ``REFERENCES``,
without any heading at all; numbered ``[1]`` or ``1.``, keyed ``[Cop87]`` or in author-year
order; one entry per paragraph or several run together on one line; entries broken
across columns and pages (``Page-`` / ``Rank``), with the page's running header or a
footnote in between. OCR text is Markdown too and goes the same way.

:func:`parse_references` finds the list (:func:`reference_section`), cuts it into entries
(:func:`split_entries`: the numbering is followed in sequence, so a ``[3]`` inside an
entry or ``vol. 2.`` does not start a new one; author-year entries are split where an
author list followed by a year begins, in alphabetical order) and parses each
(:func:`parse_entry`: authors, title, year, venue, DOI, arXiv id, URL). Everything is
bounded (:data:`MAX_ENTRIES`, :data:`MAX_RAW_CHARS`, :data:`MAX_SECTION_CHARS`): a
10,000-character line is cut, never a reason to fail. Pure functions over ``re``; a paper
without a list gives ``[]``.

This module is the entry point and holds only :func:`parse_references`; the work is done
by one module per job: :mod:`prioris.ingest.reference_list` (finding the list, cutting it
into entries), :mod:`prioris.ingest.reference_entry` (parsing one entry),
:mod:`prioris.ingest.reference_ids` (an entry's DOI, arXiv id and URL) and
:mod:`prioris.ingest.reference_text` (the limits, the year and author-list readings both
share). It re-exports ``MAX_ENTRIES``, ``MAX_RAW_CHARS``, ``MAX_SECTION_CHARS``,
``MAX_FIELD_CHARS``, ``reference_section``, ``split_entries``, ``parse_entry`` and
``split_authors`` so ``prioris.ingest.references`` keeps answering for them.
"""

from __future__ import annotations

from prioris.ingest.reference_entry import parse_entry, split_authors
from prioris.ingest.reference_list import reference_section, split_entries
from prioris.ingest.reference_text import MAX_ENTRIES, MAX_RAW_CHARS
from prioris.ingest.reference_text import MAX_FIELD_CHARS as MAX_FIELD_CHARS
from prioris.ingest.reference_text import MAX_SECTION_CHARS as MAX_SECTION_CHARS
from prioris.models import Reference


def parse_references(markdown: str) -> list[Reference]:
    """The work's reference list parsed, in printed order ([] when it has none)."""
    if not markdown:
        return []
    section = reference_section(markdown)
    if not section:
        return []
    return [parse_entry(raw, i) for i, raw in enumerate(split_entries(section), start=1)]


__all__ = [
    "MAX_ENTRIES",
    "MAX_RAW_CHARS",
    "parse_entry",
    "parse_references",
    "reference_section",
    "split_authors",
    "split_entries",
]
