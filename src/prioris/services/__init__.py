"""The application services :class:`prioris.library.Library` builds and delegates to.

Each takes the connection, lock and lower services it needs, never the library, so they
sit below the facade that wires them (and the interfaces above it) and above ingest,
search, sources and storage:

- :mod:`~prioris.services.catalog`: finding, reading, browsing, exporting and deleting
  stored works (its collection and tag filter in ``catalog_labels``, exports and
  citations as text in ``catalog_export``, download names in ``downloads``);
- :mod:`~prioris.services.reading`: a stored work's text one page at a time, in any
  format it stores;
- :mod:`~prioris.services.fetching`: fetching works by identifier, from storage first;
- :mod:`~prioris.services.artefacts`: the library as PriorisMCP names it.
- :mod:`~prioris.services.watching`: watched folders ingested as files land in them,
  and Zotero re-synced as its database changes (``prioris watch``).
"""
