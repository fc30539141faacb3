"""Fetching works by identifier: from storage when the library has them, else remotely.

A fetch asks the providers only for what the library does not hold: a work whose Markdown
was deleted is indexed again from the document it still stores, a work with full text is
served as it is, and only then is the owning provider asked for metadata and full text.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from prioris.errors import ParseError, PriorisError
from prioris.ingest.batch import IngestSummary
from prioris.ingest.prepared import IngestResult
from prioris.models import Page
from prioris.services.catalog import Catalog
from prioris.services.reading import StoredText
from prioris.storage import artefacts as store
from prioris.storage import documents as document_store
from prioris.storage import works as work_store

if TYPE_CHECKING:
    from prioris.ingest.pipeline import IngestPipeline
    from prioris.sources.remote import RemoteSources

log = logging.getLogger("prioris.library")  # the facade's name, as ``-v`` has always shown it
FetchDone = Callable[[str, IngestResult | None, PriorisError | None], None]


class Fetcher:
    """Fetches into one library: its catalog, stored texts, pipeline and remote sources."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        *,
        catalog: Catalog,
        text: StoredText,
        pipeline: IngestPipeline,
        remote: Callable[[], RemoteSources],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.catalog = catalog
        self.text = text
        self.pipeline = pipeline
        self.remote = remote  # built on first use: opening a library makes no client

    def stored_full_text(self, identifier: str, format: str | None = None) -> str | None:
        """The work id when the library already holds its full text (no request needed)."""
        try:
            work_id = self.catalog.resolve_work_id(identifier)
        except PriorisError:
            return None
        with self.lock:
            if format:
                row = self.conn.execute(
                    "SELECT 1 FROM documents WHERE work_id = ? AND format = ?", (work_id, format)
                ).fetchone()
            else:
                row = self.conn.execute(
                    "SELECT 1 FROM works WHERE id = ? AND markdown_sha256 IS NOT NULL", (work_id,)
                ).fetchone()
        return work_id if row else None

    def fetch_one(self, identifier: str, *, format: str | None = None) -> IngestResult:
        """Metadata and full text from the owning provider, stored and indexed.

        Already stored full text is served from storage without any request (and indexed
        again when only its Markdown had been deleted); a work with no reachable full text
        is stored with its metadata and abstract. Any failure is a PriorisError: an
        exception no layer expected becomes parse_error (its traceback in the log), so a
        batch (CLI, MCP, the web app's jobs) goes on past it.
        """
        try:
            return self._fetch_one(identifier, format)
        except PriorisError:
            raise
        except Exception as exc:
            log.error("fetching %s failed", identifier, exc_info=exc)
            raise ParseError(f"unexpected {type(exc).__name__} while fetching: {exc}") from exc

    def _fetch_one(self, identifier: str, format: str | None) -> IngestResult:
        restored = self.restore(identifier, format)
        if restored is not None:
            return restored
        stored = self.stored_full_text(identifier, format)
        if stored is not None:
            return IngestResult(
                id=stored, path=identifier, status="skipped", reason="already in the library"
            )
        work, full_text = self.remote().fetch(identifier, format)
        if full_text is None:
            prepared = self.pipeline.prepare_metadata_only(work)
        else:
            prepared = self.pipeline.prepare_fulltext(work, full_text)
        prepared.result.path = identifier
        return self.pipeline.store(prepared)  # same bytes stored: only the record merges

    def fetch(
        self,
        identifiers: Sequence[str],
        *,
        format: str | None = None,
        on_done: FetchDone | None = None,
    ) -> IngestSummary:
        """Fetch several works; each fails alone (its error code in the summary)."""
        summary = IngestSummary()
        for identifier in identifiers:
            try:
                result = self.fetch_one(identifier, format=format)
            except PriorisError as exc:
                summary.fail(identifier, exc)
                if on_done:
                    on_done(identifier, None, exc)
                continue
            summary.add(result)
            if on_done:
                on_done(identifier, result, None)
        return summary

    def restore(self, identifier: str, fmt: str | None) -> IngestResult | None:
        """Index a work again from its stored document when its Markdown was deleted (no
        request); None when there is nothing to restore."""
        try:
            work_id = self.catalog.resolve_work_id(identifier)
        except PriorisError:
            return None
        with self.lock:
            if store.markdown_format(self.conn, work_id) is not None:
                return None
            documents = document_store.documents_of(self.conn, work_id)
            work = work_store.get_work(self.conn, work_id)
        documents = [d for d in documents if fmt is None or d.format == fmt]
        if not documents or work is None:
            return None
        document = next((d for d in documents if d.format == "pdf"), documents[-1])
        markdown, spans = self.text.render(document.sha256, document.format)
        pages = [Page(number, markdown[start:end]) for number, start, end in spans]
        prepared = self.pipeline.prepare_pages(work, pages, document=document, path=identifier)
        chunks = self.pipeline.index_stored(prepared)
        result = prepared.result
        result.chunks = chunks
        result.reason = "indexed again from the stored document"
        return result
