"""The library's tables, engine-neutral: repositories whose SQL is one text for every
engine, and the protocols an engine implements (:mod:`prioris.storage.backend`).

Nothing here imports :mod:`prioris.engines`, :mod:`prioris.search`, ingest or sources:
a connection and its :class:`~prioris.storage.backend.ChunkIndex` come from the caller.
"""
