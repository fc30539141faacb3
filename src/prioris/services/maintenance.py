"""The library's upkeep: vectors re-embedded, the PostgreSQL postings rebuilt, passages
packed, reference lists read again and stored text cleaned again; each resumable."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from prioris.embedding.base import Embedder
from prioris.ingest.reindex import Reindexer


class Maintenance:
    """Runs over the stored library under its write lock, one transaction per step."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        embedder: Embedder,
        *,
        storage: Any,
        searcher: Callable[[], Any],
        pipeline: Callable[[], Any],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.embedder = embedder
        self.storage = storage
        self.searcher = searcher  # both built only when a step needs them
        self.pipeline = pipeline

    def reindex(self, *, on_progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed stale chunks, then the works without a vector of their own, in
        batches, each batch committed: resumable after a stop. Returns the chunks done
        (``on_progress`` counts chunks and works together)."""
        return self._reindexer().run(on_progress)

    def build_postings(self) -> dict[str, Any] | None:
        """PostgreSQL: rebuild the BM25 postings table now (``reindex --postings``); a
        searching process otherwise builds it in the background. None on SQLite, whose
        sidecar a searching process keeps built by itself."""
        build = getattr(self.searcher().backend, "build_postings", None)
        return None if build is None else build()

    def compact(self, *, on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Store passages an earlier release wrote as plain text packed and its float32 work
        vectors as float16, then give the freed space back to the file system (``reindex
        --compact``; SQLite only, resumable). Returns ``{packed, work_vectors,
        bytes_before, bytes_after, vacuumed}``."""
        return self.storage.compact(self.conn, self.lock, on_progress)

    def reread_references(
        self, *, on_progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        """Read every stored work's reference list again from its stored Markdown and link
        it (``prioris reindex --references``): one transaction per work, resumable after
        a stop. Returns ``{works, references, linked, resumed}``."""
        from prioris.ingest.reference_reindex import reread_references

        return reread_references(self.conn, self.lock, on_progress=on_progress).to_dict()

    def clean_stored_text(self, *, on_progress: Callable[[int, int], None] | None = None) -> Any:
        """Apply the text cleaning (:mod:`prioris.text_clean`) to every stored work: its
        Markdown, pages and passages (re-chunked and re-embedded where the text changed)
        and its title, names, venue and abstract, one transaction per work; a stopped
        run resumes by running again. Returns a
        :class:`~prioris.ingest.clean_stored.CleanSummary`; ``on_progress(done, total)``
        counts works."""
        from prioris.ingest.clean_stored import StoredTextCleaner

        return StoredTextCleaner(self.conn, self.lock, self.pipeline()).run(on_progress)

    def embed_work_vectors(self, work_ids: Sequence[str]) -> int:
        """Embed these works' own vectors (title + abstract) where they are missing."""
        return self._reindexer().works(work_ids)

    def _reindexer(self) -> Reindexer:
        """Embedding through the pipeline's task runner (a Dask cluster with ``cluster``)."""
        pipeline = self.pipeline()
        return Reindexer(
            self.conn, self.lock, self.embedder, runner=pipeline.runner, model=pipeline.model
        )
