"""A .bib file read into :class:`~prioris.refman.items.RefItem` values, through bibtexparser 2.

What each entry becomes (``source="bibtex"``, ``key`` the citation key):

- **fields**: LaTeX to Unicode in every text field (:mod:`prioris.refman.latex`); ``url``,
  ``doi``, ``eprint`` and file links only lose their TeX escapes. ``journal`` /
  ``journaltitle`` / ``booktitle`` are the venue; ``school``, ``institution`` or
  ``organization`` the publisher where the entry has none; ``number`` the issue (a
  report's number stays in ``extra``); pages are normalised to ``12-34``.
- **names**: ``author``, ``editor``, ``translator`` split on ``and`` (BibTeX's rules:
  ``Last, First``, ``First von Last``, ``Last, Jr, First``) and shown "First von Last Jr";
  a braced name (``{World Health Organization}``) is one name. ``others`` ("and others",
  BibTeX's et al.) is no person: it is dropped and ``extra["authors_truncated"]`` says so.
- **dates**: biblatex ``date`` first, else ``year`` + ``month`` (``jan``, ``January``,
  ``1``) + ``day``. ``year`` is always set when known; ``published`` only when a month
  is known, so a bare year never replaces a provider's full date in the merge.
- **identifiers**: ``doi`` without its ``https://doi.org/`` prefix (from a doi.org ``url``
  when there is no ``doi``); arXiv from ``eprint`` (``archivePrefix``/``eprinttype`` arXiv,
  or an id alone), Mendeley's ``arxivId``, an arXiv DOI or link, or Google Scholar's
  ``journal = {arXiv preprint arXiv:…}``; ``pmid``, ``pmcid``.
- **type**: the BibTeX type mapped to a CSL-like one (:data:`ENTRY_TYPES`); an arXiv
  eprint in ``@misc``/``@unpublished``/``@online`` or an ``@article`` without a journal is
  a ``preprint``. The type as written is ``extra["entry_type"]`` (``mastersthesis`` and
  ``phdthesis`` are both CSL ``thesis``).
- **tags and collections**: ``keywords`` (how Zotero, Better BibTeX and JabRef export tags)
  split on ``,`` or ``;`` are both the ``keywords`` field and the item's tags, with
  Mendeley's ``mendeley-tags``; JabRef's ``groups`` and Mendeley's ``mendeley-groups`` are
  collections, a JabRef group with its path in the group tree JabRef keeps in an
  ``@Comment{jabref-meta: grouping: ...}`` block (``Thesis / Chapter 2``).
- **notes**: ``annote`` (Zotero's child notes and extra) and JabRef's ``comment`` fields
  are the item's notes; ``note`` is the record's ``extra``.
- **files**: ``file`` in the Zotero, JabRef, Mendeley and Better BibTeX forms, JabRef's
  older ``pdf``, BibDesk's ``bdsk-file-N`` and ``local-url``, resolved by
  :mod:`prioris.refman.filelinks`; the folders JabRef's ``fileDirectory`` metadata names
  are searched too.

A malformed entry is a :class:`RefError` with the line it starts on; the entries around it
are read. A second entry with a citation key already seen is a RefError too (the first
is kept: the key is the item's identity). A field given twice in one entry keeps its first
value, except notes, keywords, groups and files, whose values are joined (Zotero writes
``annote`` twice). The ``version`` is a hash of the entry's type, key and field values
(after ``@string`` substitution), so an unchanged entry keeps its version however the
file around it changes. A file that is not UTF-8 is read as Windows-1252 and each item
says so in ``extra["encoding"]``.

The package: :mod:`.reader` (a file's entries read one by one, errors and duplicate keys),
:mod:`.blocks` (bibtexparser's split of the file into blocks, and an entry's field values
as written), :mod:`.jabref` (JabRef's file directories and group tree) and :mod:`.entry`
(one entry's fields as a RefItem). ``read_bibtex``, ``parse_bibtex``, ``ENTRY_TYPES``,
``NAME_ROLES`` and ``SOURCE`` are re-exported here, where callers import them.
"""

from __future__ import annotations

from prioris.refman.bibtex.entry import ENTRY_TYPES, NAME_ROLES, SOURCE
from prioris.refman.bibtex.reader import parse_bibtex, read_bibtex

__all__ = ["ENTRY_TYPES", "NAME_ROLES", "SOURCE", "parse_bibtex", "read_bibtex"]
