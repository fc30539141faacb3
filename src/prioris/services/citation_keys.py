"""The work a citation key names, so every command takes back the keys Prioris hands out.

Evidence and citation checks name each work by the key ``export`` writes
(:func:`prioris.export.keys.citation_key`): an agent then passes that key to ``show``,
``cite-check`` or ``export``. A key is a .bib key of an imported entry (the work's
``bibtex:KEY`` alias) or a generated one (family name, year or ``nd``, first significant
title word); the generated ones are found among the works of the key's year.
"""

from __future__ import annotations

import re
from typing import Any

from prioris.export.keys import citation_key
from prioris.models import Work
from prioris.storage import works as work_store

# a key ``export`` writes: family name, year (or nd), first significant title word
_GENERATED_KEY = re.compile(r"([a-z]*)(\d{4}|nd)([a-z0-9]*)")


def work_by_citation_key(conn: Any, text: str) -> str | None:
    """The id of the work ``text`` is the citation key of, or None (the caller holds the
    connection's lock)."""
    found = work_store.find_work_id(conn, [f"bibtex:{text}"])
    if found:
        return str(found)
    match = _GENERATED_KEY.fullmatch(text)
    if match is None:
        return None
    year = None if match.group(2) == "nd" else int(match.group(2))
    for work_id, title, authors in work_store.key_fields_of_year(conn, year):
        if citation_key(Work(id=work_id, title=title, authors=authors, year=year)) != text:
            continue
        # a work imported from a .bib file goes by its own key: check with its aliases
        work = work_store.get_work(conn, work_id)
        if work is not None and citation_key(work) == text:
            return work_id
    return None
