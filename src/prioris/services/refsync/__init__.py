"""Storing what a reference manager holds: Zotero items, BibTeX and RIS entries.

A reader (:mod:`prioris.refman`) turns a Zotero database or a .bib/.ris file into
:class:`~prioris.refman.items.RefItem` values; this service makes each one a work, the
same way whatever it came from:

- the item's record is kept as its manager's record (origin ``zotero``, ``bibtex`` or
  ``ris``) and merged by :mod:`prioris.provenance`: above what the PDF printed and what
  providers said, below the user's own edits in Prioris;
- ``zotero:KEY`` (``bibtex:KEY``, ``ris:KEY``) becomes an alias of the work, and the DOI,
  arXiv id and PMID in the record join the item with a work already in the library;
- two entries are never one work: a work that holds another entry of the same manager
  is not joined (by an identifier, a shared file or a DOI its PDF prints); a new item's
  work is created under its own id first; a file or a DOI two entries share stays with
  the first and the report warns naming both keys;
- its PDFs go through the normal ingest (OCR included); a web snapshot is read as HTML
  when there is no PDF; an item without any readable file keeps its metadata, and its
  title and abstract are what search sees;
- its notes and highlights are kept with the work and searchable (:mod:`prioris.storage.notes`);
  its collections and tags are kept (:mod:`prioris.storage.labels`).

A sync is incremental: each item's fingerprint (everything stored of it) and its files'
sizes and times are kept in ``refsync_items``; an unchanged item is skipped without a
write. With ``complete=True`` (a Zotero library, read whole), items that are gone (deleted,
or moved to the trash) are removed: their work is deleted when it came only from this
sync, else only what the sync had given it is taken back. Every step is its own
transaction and an item's state row is written last, so a sync killed at any point redoes
only the items it had not finished, and two syncs at once each see the other's writes.

The package, one job a module:

- :mod:`.plan`: what changed since the last sync (fingerprints, files by size and time,
  which work holds an item, which items are gone);
- :mod:`.files`: an item's PDFs or web snapshot through the library's ingest, each file
  looked at before it is read (a regular file within the size limit);
- :mod:`.apply`: the writes, each its own transaction (record, aliases, labels, notes,
  the state row; a gone item's removal);
- :mod:`.items`: an item as the library stores it (work, aliases, origin record, text
  files), pure;
- :mod:`.bounds`: an item's text held to the bounds the user's edits are (cuts reported);
- :mod:`.report`: :class:`SyncReport`, what a sync did;
- :mod:`.readers`: a Zotero library's items and summary, a reference file's items;
- :mod:`.sync`: :class:`RefSync`, the steps in order, each item failing alone.

This package re-exports the names its users import from ``prioris.services.refsync``:
:class:`RefSync`, :class:`SyncReport`, :func:`fingerprint`, :func:`work_of`,
:func:`zotero_items`, :func:`zotero_summary`, :func:`read_reference_file`, ``IngestPdf``,
``MAX_HTML_BYTES``, ``ID_FIELDS`` and ``WORK_FIELDS``.
"""

from __future__ import annotations

from prioris.services.refsync.files import MAX_HTML_BYTES, IngestPdf
from prioris.services.refsync.items import ID_FIELDS, WORK_FIELDS, work_of
from prioris.services.refsync.plan import fingerprint
from prioris.services.refsync.readers import read_reference_file, zotero_items, zotero_summary
from prioris.services.refsync.report import SyncReport
from prioris.services.refsync.sync import RefSync

__all__ = [
    "ID_FIELDS",
    "MAX_HTML_BYTES",
    "WORK_FIELDS",
    "IngestPdf",
    "RefSync",
    "SyncReport",
    "fingerprint",
    "read_reference_file",
    "work_of",
    "zotero_items",
    "zotero_summary",
]
