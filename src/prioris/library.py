"""Library: the one composition root and facade over storage, ingest, search and sources.

The CLI, the MCP server and Python callers all go through this class; it owns the SQLite
connection, builds the embedder, OCR engine and remote clients from Settings (or takes
fakes through the constructor), and serialises writes with a lock so worker threads can
share it.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prioris.config import Settings, load_settings
from prioris.embedding.base import Embedder
from prioris.engines import open_storage
from prioris.errors import InvalidRequestError, NotFoundError, ParseError, PriorisError
from prioris.ingest.batch import (
    FileDone,
    FileStage,
    IngestSummary,
    JsonlLine,
    check_path,
    collect_pdfs,
    os_reason,
    read_file_checked,
    read_jsonl,
)
from prioris.ingest.ocr import OcrEngine
from prioris.ingest.pipeline import IngestPipeline, IngestResult, StepProgress
from prioris.ingest.reindex import Reindexer, work_vectors_pending
from prioris.models import Work
from prioris.search.protocols import SearchFilters
from prioris.search.rerank import Reranker, build_reranker
from prioris.search.service import (
    SHORT_QUERY_FEEDBACK,
    FusionConfig,
    SearchResponse,
    SearchService,
)
from prioris.storage import chunks as chunk_store
from prioris.storage import documents as document_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage import works as work_store
from prioris.storage.markdown import load_markdown, markdown_view
from prioris.strings import without_surrogates

IMPORT_BATCH = 64
SQLITE_MAX_INT = 2**63 - 1
log = logging.getLogger(__name__)


def _feedback(max_words: int) -> dict[str, Any]:
    """The short-query feedback's FusionConfig fields when the setting turns it on."""
    if max_words <= 0:
        return {}
    return {**SHORT_QUERY_FEEDBACK, "prf_max_words": max_words}


def _pdf_limits(settings: Settings) -> Any:
    from prioris.ingest.pdf.reader import PdfLimits

    return PdfLimits.from_settings(settings)


def utc_now() -> str:
    """Timestamps are UTC ISO-8601 seconds (the clock is injectable for tests)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class Library:
    """A research library in one SQLite file or a PostgreSQL database."""

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        ocr: OcrEngine | None = None,
        http_transport: Any = None,
        clock: Any = None,
        now: Callable[[], str] = utc_now,
        reranker: Reranker | None = None,
    ) -> None:
        self.settings = settings
        self.http_transport = http_transport
        self.clock = clock
        self.now = now
        self.lock = threading.RLock()
        # the location picks the backend: an SQLite file or a postgresql:// URL
        self.storage = open_storage(settings.library_location, settings)
        try:
            self.conn = self.storage.connect()
            try:
                self._assemble(embedder, ocr, reranker)
            except BaseException:
                self.conn.close()
                raise
        except BaseException:  # a library that fails to open leaves nothing open behind
            self.storage.close()
            raise
        self._remote: Any = None
        self._artefacts: Any = None
        self._enrichment: Any = None

    def _assemble(
        self, embedder: Embedder | None, ocr: OcrEngine | None, reranker: Reranker | None
    ) -> None:
        """The model, OCR, vector index, pipeline and searcher over the open connection."""
        settings, now = self.settings, self.now
        if embedder is None:
            from prioris.embedding import build_embedder

            embedder = build_embedder(settings)
        self.embedder = embedder
        if ocr is None:
            from prioris.ingest.ocr import TesseractOcr

            ocr = TesseractOcr.from_settings(settings)
        self.ocr = ocr
        self.stale_on_open = chunk_store.ensure_vector_index(
            self.conn, embedder.model_id, embedder.dim
        )
        self.work_vectors_pending = work_vectors_pending(self.conn)
        """The library predates works' own vectors: ``reindex`` gives them."""
        self.pipeline = IngestPipeline(
            self.conn,
            embedder,
            ocr=ocr,
            ocr_mode=settings.ocr_mode,
            max_file_bytes=settings.max_file_bytes,
            now=now,
            pdf_limits=_pdf_limits(settings),
            write_lock=self.lock,
        )
        fts_w, vec_w = settings.fusion_weights
        self.searcher = SearchService(
            self.storage.search_backend(),
            embedder,
            FusionConfig(
                method=settings.fusion_method,
                rrf_k=settings.rrf_k,
                fts_weight=fts_w,
                vector_weight=vec_w,
                rerank_depth=settings.rerank_depth,
                work_vector_weight=settings.work_vector_weight,
                **_feedback(settings.feedback_max_words),
            ),
            max_query_chars=settings.max_query_chars,
            reranker=reranker if reranker is not None else build_reranker(settings),
        )

    @classmethod
    def open(cls, settings: Settings | None = None, **components: Any) -> Library:
        """Open the library named by the settings (the environment when omitted)."""
        return cls(settings or load_settings(), **components)

    def close(self) -> None:
        with self.lock:
            if self._remote is not None and hasattr(self._remote, "close"):
                self._remote.close()
            self.searcher.close()
            self.conn.close()
            self.storage.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest --------------------------------------------------------------------------
    collect_pdfs = staticmethod(collect_pdfs)

    def read_jsonl(self, path: str | Path) -> Iterable[JsonlLine]:
        """The lines of a JSONL file as records or per-line errors (``file:line`` each),
        each line bounded by ``PRIORIS_MCP_MAX_RECORD_BYTES``."""
        return read_jsonl(Path(path), max_line_bytes=self.settings.max_record_bytes)

    def ingest_file(
        self,
        path: str | Path,
        *,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        on_stage: StepProgress | None = None,
        force: bool = False,
    ) -> IngestResult:
        """Ingest one PDF from disk (identical bytes already stored: skipped, unless
        ``force``, which parses them again and replaces the stored parse).

        ``progress(stage, done, total)`` follows pages read (OCR included), chunks embedded
        and the commit, so a caller can show a bar that never sits still."""
        check_path(path)
        path = Path(path)
        if not path.exists():
            raise NotFoundError(f"no such file: {path}")
        if path.is_dir():
            try:
                os.listdir(path)
            except OSError as exc:
                raise InvalidRequestError(f"cannot read folder {path}: {os_reason(exc)}") from None
            raise InvalidRequestError(f"not a file: {path} is a folder")
        if not path.is_file():
            raise InvalidRequestError(f"not a file: {path}")
        data = read_file_checked(path, self.settings.max_file_bytes)
        return self.ingest_pdf_bytes(
            data,
            path=str(path),
            ocr_mode=ocr_mode,
            progress=progress,
            on_stage=on_stage,
            force=force,
        )

    def ingest_pdf_bytes(
        self,
        data: bytes,
        *,
        path: str | None = None,
        filename: str | None = None,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        work: Work | None = None,
        on_stage: StepProgress | None = None,
        force: bool = False,
    ) -> IngestResult:
        """Ingest PDF bytes (a file, an upload or a download); ``force`` re-extracts bytes
        already stored (say with ``ocr_mode="always"``) and replaces their parse.

        ``on_stage(stage, done, total)`` follows the stages a person waits through:
        ``parse`` (pages), ``ocr`` (pages sent to OCR), ``enrich`` (metadata from the
        providers), ``embed`` (chunks), for a live view.
        """
        from prioris.ingest.pdf.reader import check_pdf_bytes
        from prioris.ingest.prepared import sha256_bytes

        check_pdf_bytes(data, self.settings.max_file_bytes)
        owner = self.pipeline.already_stored(sha256_bytes(data))
        if owner is not None and not force:
            return IngestResult(
                id=owner,
                path=path or filename,
                status="skipped",
                reason="identical bytes already stored",
            )
        on_pages = progress
        if on_stage is not None:

            def on_pages(done: int, total: int) -> None:
                on_stage("parse", done, total)
                if progress is not None:
                    progress(done, total)

        prepared = self.pipeline.prepare_pdf(
            data,
            path=path or filename,
            work=work,
            ocr_mode=ocr_mode,
            progress=on_pages,
            on_ocr=(lambda done, total: on_stage("ocr", done, total)) if on_stage else None,
        )
        if work is None and self.settings.enrich != "off":
            if on_stage is not None:
                on_stage("enrich", 0, 0)
            self.enrichment.complete(prepared)  # offline: nothing changes
        prepared.replace = owner is not None
        return self.pipeline.store(prepared, on_stage)  # embed (step by step), index

    def ingest_upload(self, data: bytes, *, filename: str | None = None) -> IngestResult:
        """Ingest bytes a client sent as a PDF (MCP uploads): bytes that are not a PDF at
        all are the caller's mistake, invalid_request, before anything is parsed."""
        from prioris.ingest.pdf.reader import check_pdf_bytes

        try:
            check_pdf_bytes(data, self.settings.max_file_bytes)
        except ParseError as exc:
            raise InvalidRequestError(exc.message) from exc
        return self.ingest_pdf_bytes(data, filename=filename)

    def ingest_paths(
        self,
        paths: Sequence[str | Path],
        *,
        ocr_mode: str | None = None,
        on_stage: FileStage | None = None,
        on_file_done: FileDone | None = None,
        force: bool = False,
    ) -> IngestSummary:
        """Ingest PDFs and directories; each file fails alone, the rest are committed.
        ``on_stage(path, stage, done, total)`` follows each file's stages (see
        :meth:`ingest_pdf_bytes`); ``force`` re-extracts files whose bytes are stored."""
        if ocr_mode is not None and ocr_mode not in ("auto", "always", "never"):
            raise InvalidRequestError(f"ocr mode {ocr_mode!r} is not one of auto, always, never")
        summary = IngestSummary()
        for path in self.collect_pdfs(paths):
            stages = (
                (lambda stage, done, total, p=path: on_stage(str(p), stage, done, total))
                if on_stage
                else None
            )
            try:
                result = self.ingest_file(path, ocr_mode=ocr_mode, on_stage=stages, force=force)
            except PriorisError as exc:
                summary.fail(str(path), exc)
                if on_file_done:
                    on_file_done(path, None, exc)
                continue
            summary.add(result)
            if on_file_done:
                on_file_done(path, result, None)
        return summary

    def import_records(
        self,
        records: Iterable[dict[str, Any] | PriorisError | JsonlLine],
        *,
        on_progress: Callable[[int], None] | None = None,
        keep_results: bool = True,
    ) -> IngestSummary:
        """Import ``{"_id"|"id", "title", "text", ...}`` records, embedding them in groups.

        Each record is validated on its own; a bad one fails alone (its ``file:line`` from
        :meth:`read_jsonl`, else ``record N``) and every good record around it is stored.
        ``keep_results=False`` keeps only counts and failures in the summary, so memory
        stays flat however many records the file holds.
        """
        summary = IngestSummary(keep_results=keep_results)
        batch: list[tuple[str, Any]] = []

        def flush() -> None:
            if not batch:
                return
            results = self.pipeline.store_each([prepared for _, prepared in batch])
            for (where, _), result in zip(batch, results, strict=True):
                if isinstance(result, PriorisError):
                    summary.fail(where, result)
                else:
                    summary.add(result)
            if on_progress:
                on_progress(len(batch))
            batch.clear()

        items = iter(records)
        for number in itertools.count(1):
            try:
                item = next(items)
            except StopIteration:
                break
            except PriorisError:  # the file itself failed: keep what was read before
                flush()
                raise
            if isinstance(item, JsonlLine):
                where, record = item.where, item.value
            else:
                where, record = f"record {number}", item
            if isinstance(record, PriorisError):
                summary.fail(where, record)
                continue
            try:
                batch.append((where, self.pipeline.prepare_record(record)))
            except PriorisError as exc:
                summary.fail(where, exc)
                continue
            if len(batch) >= IMPORT_BATCH:
                flush()
        flush()
        return summary

    # -- remote fetch --------------------------------------------------------------------
    @property
    def artefacts(self) -> Any:
        """The library as PriorisMCP names it: (provider, identifier, format) artefacts."""
        with self.lock:
            if self._artefacts is None:
                from prioris.artefacts import Artefacts

                self._artefacts = Artefacts(self)
            return self._artefacts

    @property
    def remote(self) -> Any:
        """Remote providers (arXiv, Europe PMC, DOI, OpenAlex routing), built on first use."""
        with self.lock:
            if self._remote is None:
                from prioris.sources.remote import RemoteSources

                self._remote = RemoteSources(self.settings, self.http_transport, self.clock)
            return self._remote

    def stored_full_text(self, identifier: str, format: str | None = None) -> str | None:
        """The work id when the library already holds its full text (no request needed)."""
        try:
            work_id = self.resolve_work_id(identifier)
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
        restored = self.artefacts.restore(identifier, format)
        if restored is not None:
            return restored
        stored = self.stored_full_text(identifier, format)
        if stored is not None:
            return IngestResult(
                id=stored, path=identifier, status="skipped", reason="already in the library"
            )
        work, full_text = self.remote.fetch(identifier, format)
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
        on_done: Callable[[str, IngestResult | None, PriorisError | None], None] | None = None,
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

    # -- enrichment ----------------------------------------------------------------------
    @property
    def enrichment(self) -> Any:
        """Provider lookups (arXiv, OpenAlex, Europe PMC) and their storage, built on first use."""
        with self.lock:
            if self._enrichment is None:
                from prioris.enrichment import EnrichmentService
                from prioris.sources.enrich import ProviderLookup

                lookup = ProviderLookup(self.remote)
                self._enrichment = EnrichmentService(self.conn, self.lock, lookup, self.now)
            return self._enrichment

    def enrich(
        self,
        ids: Sequence[str] | None = None,
        *,
        on_done: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Complete stored works from their providers (every work with a DOI or arXiv id
        when ``ids`` is empty): the provider's record wins, what the PDF printed is kept.
        One report per work (see :meth:`EnrichmentService.enrich`); unknown ids raise
        not_found before any request."""
        work_ids = list(dict.fromkeys(self.resolve_work_id(i) for i in ids)) if ids else None
        reports = self.enrichment.enrich(work_ids, on_done=on_done)
        changed = [r["id"] for r in reports if {"title", "abstract"} & set(r.get("changed", []))]
        if changed:  # their vectors were dropped with the old text (a trigger)
            self.embed_work_vectors(changed)
        return reports

    def metadata_records(self, text: str) -> dict[str, dict[str, Any]]:
        """What each source said about a work: ``printed`` (its PDF) and each provider."""
        return self.enrichment.records(self.resolve_work_id(text))

    # -- search --------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        k: int = 10,
        chunks: bool = False,
        source: str | None = None,
        from_year: int | None = None,
        to_year: int | None = None,
        ids: Sequence[str] | None = None,
        syntax: str = "plain",
    ) -> SearchResponse:
        """Search what the library holds; ``ids`` restrict to works (any id form)."""
        work_ids = tuple(self.resolve_work_id(i) for i in ids) if ids else None
        if isinstance(source, str):
            source = without_surrogates(source)
        filters = SearchFilters(
            source=source, from_year=from_year, to_year=to_year, work_ids=work_ids
        )
        # no lock: the searcher reads through its own WAL read connections
        response = self.searcher.search(
            query, mode=mode, k=k, chunks=chunks, filters=filters, syntax=syntax
        )
        log.debug(
            "search %r: mode %s, k %d, %d hits in %.1f ms",
            query,
            mode,
            k,
            len(response.hits),
            response.took_ms,
        )
        return response

    # -- the library -----------------------------------------------------------------------
    def resolve_work_id(self, text: str) -> str:
        """The stored work an id, alias or pasted identifier refers to (else not_found)."""
        text = without_surrogates(text or "").strip()
        if not text:
            raise InvalidRequestError("an id is required")
        with self.lock:
            found = work_store.find_work_id(self.conn, [text])
            if found:
                return found
            try:
                from prioris.identifiers import parse_identifier

                ident = parse_identifier(text)
            except PriorisError:
                ident = None
            if ident is not None:
                found = work_store.find_work_id(self.conn, [ident.canonical])
                if found is None and ident.scheme == "arxiv" and ident.version is None:
                    found = work_store.find_by_alias_prefix(self.conn, ident.canonical)
                if found:
                    return found
        raise NotFoundError(f"no work {text!r} in the library")

    def get_work(self, text: str) -> Work:
        with self.lock:
            work = work_store.get_work(self.conn, self.resolve_work_id(text))
        assert work is not None
        return work

    def list_works(self, *, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
        """Works newest first; ``limit`` and ``offset`` must not be negative."""
        if limit is not None and limit < 0:
            raise InvalidRequestError(f"limit must be 0 or more, got {limit}")
        if offset < 0:
            raise InvalidRequestError(f"offset must be 0 or more, got {offset}")
        if limit is not None:
            limit = min(limit, SQLITE_MAX_INT)  # past every row anyway
        offset = min(offset, SQLITE_MAX_INT)
        with self.lock:
            return work_store.list_works(self.conn, limit=limit, offset=offset)

    def show(
        self,
        text: str,
        *,
        page: int | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """A slice of the work's Markdown by page (offset then counts within the page) or by
        character offset and limit; never fetches anything."""
        with self.lock:
            work_id = self.resolve_work_id(text)
            title, markdown, pages = load_markdown(self.conn, work_id)
        return markdown_view(work_id, title, markdown, pages, page=page, offset=offset, limit=limit)

    def original(self, text: str) -> tuple[Work, list[dict[str, Any]]]:
        """A work's stored documents (metadata only; bytes via :meth:`document_bytes`)."""
        work = self.get_work(text)
        with self.lock:
            docs = document_store.documents_of(self.conn, work.id)
        return work, [asdict(d) for d in docs]

    def document_bytes(self, sha256: str) -> bytes:
        with self.lock:
            data = document_store.get_blob(self.conn, sha256)
        if data is None:
            raise NotFoundError(f"no stored document {sha256}")
        return data

    def delete(self, ids: Sequence[str]) -> list[str]:
        """Remove works from every table and index; unknown ids raise not_found first and
        nothing is deleted (all or nothing, for callers that want that)."""
        with self.lock:
            work_ids = list(dict.fromkeys(self.resolve_work_id(i) for i in ids))
            self._delete_works(work_ids)
        return work_ids

    def delete_each(self, ids: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
        """Remove the works that exist; each id that does not is reported, not fatal.

        Returns ``(deleted work ids, [{"id", "error": {"code", "message"}}])``."""
        found: list[str] = []
        failed: list[dict[str, Any]] = []
        with self.lock:
            for text in ids:
                try:
                    found.append(self.resolve_work_id(text))
                except PriorisError as exc:
                    failed.append({"id": text, "error": exc.to_dict()})
            work_ids = list(dict.fromkeys(found))
            if work_ids:
                self._delete_works(work_ids)
        return work_ids, failed

    def _delete_works(self, work_ids: Sequence[str]) -> None:
        """One transaction over resolved ids (the caller holds the lock)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for work_id in work_ids:
                work_store.delete_work(self.conn, work_id)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def paginated_works(self, work_ids: Sequence[str]) -> set[str]:
        """Works whose page numbers are real (indexed from a PDF), for showing "p. N"."""
        with self.lock:
            return document_store.paginated_works(self.conn, work_ids)

    def known_aliases(self, aliases: Sequence[str]) -> set[str]:
        """Which ids/aliases already belong to a stored work (used by discovery)."""
        with self.lock:
            return work_store.known_aliases(self.conn, aliases)

    def status(self) -> dict[str, Any]:
        """Counts, index state, model and file size (``prioris status --json``)."""
        with self.lock:
            counts = work_store.library_counts(self.conn)
            counts["stale_works"] = work_vector_store.count_missing(
                self.conn, self.embedder.model_id
            )
        return {
            **counts,
            "model": self.embedder.model_id,
            "dim": self.embedder.dim,
            "db": self.storage.display(),
            "size_bytes": self.storage.size_bytes(),
        }

    def reindex(self, *, on_progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed stale chunks, then the works without a vector of their own, in
        batches, each batch committed: resumable after a stop. Returns the chunks done
        (``on_progress`` counts chunks and works together)."""
        return self._reindexer().run(on_progress)

    def embed_work_vectors(self, work_ids: Sequence[str]) -> int:
        """Embed these works' own vectors (title + abstract) where they are missing."""
        return self._reindexer().works(work_ids)

    def _reindexer(self) -> Reindexer:
        return Reindexer(self.conn, self.lock, self.embedder)

    # --- discovery / OpenAlex / export (discovery helper) ---
    def openalex_client(self) -> Any:
        """The OpenAlex client of :attr:`remote` (semantic search spaced as ``discovery``)."""
        return self.remote.openalex

    def discover(
        self,
        text: str,
        *,
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
        open_access_only: bool = False,
    ) -> Any:
        """OpenAlex semantic search marked against this library (a ``DiscoveryPage``)."""
        from prioris.discovery import DiscoveryService

        service = DiscoveryService(self.openalex_client(), self.known_aliases)
        return service.discover(
            text,
            page=page,
            per_page=per_page,
            from_year=from_year,
            to_year=to_year,
            open_access_only=open_access_only,
        )

    def openalex_search(
        self,
        query: str,
        *,
        sort: str = "relevance",
        page: int = 1,
        per_page: int = 25,
        from_year: int | None = None,
        to_year: int | None = None,
    ) -> Any:
        """OpenAlex keyword search (``sort``: relevance, or citations), nothing stored."""
        sort = {"citations": "cited_by_count"}.get(sort, sort)
        return self.openalex_client().search(
            query, sort=sort, page=page, per_page=per_page, from_year=from_year, to_year=to_year
        )

    def openalex_work_types(self) -> list[dict[str, Any]]:
        """OpenAlex's work-type vocabulary (reference data for interpreting hits)."""
        return self.openalex_client().list_work_types()

    def export(self, ids: Sequence[str] | None, fmt: str) -> str:
        """Citations of the given works (all works when ``ids`` is empty) as text."""
        from prioris.export import FORMATS, render

        if fmt not in FORMATS:
            raise InvalidRequestError(
                f"unknown export format {fmt!r}; accepted: {', '.join(FORMATS)}"
            )
        if ids:
            works = [self.get_work(i) for i in dict.fromkeys(ids)]
        else:
            with self.lock:
                listed = [row["id"] for row in work_store.list_works(self.conn)]
                works = [w for w in (work_store.get_work(self.conn, i) for i in listed) if w]
        return render(works, fmt)

    # -- browsing and reading (the web app; usable from the CLI, MCP and Python too) ------
    def browse(
        self,
        *,
        sort: str = "added",
        descending: bool = True,
        text: str | None = None,
        source: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> dict[str, Any]:
        """One page of works sorted (added, year, title) and filtered, with their counts."""
        from prioris.storage.browse import browse_works

        with self.lock:
            return browse_works(
                self.conn,
                sort=sort,
                descending=descending,
                text=text,
                source=source,
                limit=limit,
                offset=offset,
            )

    def pages(self, text: str) -> list[dict[str, Any]]:
        """A work's pages: number, span in its Markdown and whether OCR produced the text."""
        from prioris.storage.browse import page_spans

        with self.lock:
            return page_spans(self.conn, self.resolve_work_id(text))

    def chunk(self, chunk_id: int) -> dict[str, Any]:
        """The passage a search hit points at (``chunk_id``), with its offsets and pages."""
        from prioris.storage.browse import get_chunk

        with self.lock:
            found = get_chunk(self.conn, int(chunk_id))
        if found is None:
            raise NotFoundError(f"no passage {chunk_id} in the library (re-run the search)")
        return found

    def year_source_counts(self) -> list[dict[str, Any]]:
        """Works per (year, source): what the status plot draws."""
        from prioris.storage.browse import year_source_counts

        with self.lock:
            return year_source_counts(self.conn)

    def page_image(
        self, text: str, page: int, *, chunk_id: int | None = None, zoom: float = 1.6
    ) -> tuple[bytes, bool]:
        """``(png, marked)``: page ``page`` of the work's stored PDF, the passage of
        ``chunk_id`` (when it lies on that page) marked on it.

        Raises not_found for a work without a stored PDF, invalid_request for a page it
        does not have.
        """
        from prioris.ingest.pdf.render import render_page_png

        work_id = self.resolve_work_id(text)
        with self.lock:
            docs = document_store.documents_of(self.conn, work_id)
        pdf = next((d for d in docs if d.format == "pdf"), None)
        if pdf is None:
            raise NotFoundError(f"{work_id} has no stored PDF")
        passage = None
        if chunk_id is not None:
            found = self.chunk(chunk_id)
            spans = {p["number"]: p for p in self.pages(work_id)}
            span = spans.get(page)
            if found["work_id"] == work_id and span is not None:
                start = max(found["char_start"], span["char_start"])
                end = min(found["char_end"], span["char_end"])
                if start < end:
                    passage = self.show(work_id, offset=start, limit=end - start)["markdown"]
        return render_page_png(self.document_bytes(pdf.sha256), page, passage=passage, zoom=zoom)


def migrate_library(
    settings: Settings,
    target: str | Path,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Copy the library of ``settings`` to ``target`` (a ``postgresql://`` URL or an SQLite
    file) with its vectors, no model needed; run again to resume a stopped copy."""
    from prioris.storage.copy import copy_library

    source = open_storage(settings.library_location, settings)
    destination = open_storage(str(target), settings)
    try:
        report = copy_library(source, destination, on_progress=on_progress)
    finally:
        source.close()
        destination.close()
    return {"source": source.display(), "target": destination.display(), **report.to_dict()}
