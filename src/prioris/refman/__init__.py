"""Reference managers a researcher already keeps: Zotero data directories, BibTeX and RIS.

The readers here only read: they turn a Zotero database snapshot or a .bib/.ris file into
:class:`~prioris.refman.items.RefItem` values (a record in the work-record form of
:mod:`prioris.provenance`, plus attachments, notes, collections and tags). Writing those
into a library is ``services/refsync/``'s job, so a reader can be tested, fuzzed and
replaced without a database of ours.
"""
