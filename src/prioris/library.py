"""Library: the one composition root and facade over storage, ingest, search and sources.

The CLI, the MCP server and Python callers all go through this class; it owns the
connection, builds the embedder, OCR engine and remote clients from Settings (or takes
fakes through the constructor), and serialises writes with a lock so worker threads can
share it. It only wires the services of :mod:`prioris.services` and :mod:`prioris.ingest`
and delegates to them: what each method does is documented where it is done.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from prioris.config import Settings, keyword_settings, load_settings
from prioris.embedding.base import Embedder
from prioris.engines import database_errors, display_location, open_storage
from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.ingest.batch import collect_pdfs
from prioris.ingest.ocr import OcrEngine
from prioris.ingest.pipeline import IngestPipeline
from prioris.ingest.reindex import Reindexer, work_vectors_pending
from prioris.ingest.service import IngestService
from prioris.search.protocols import SearchFilters
from prioris.search.rerank import Reranker, build_reranker
from prioris.search.service import SHORT_QUERY_FEEDBACK, FusionConfig, SearchResponse, SearchService
from prioris.services import watching
from prioris.services.accounts import Accounts
from prioris.services.artefacts import Artefacts
from prioris.services.catalog import Catalog
from prioris.services.citations import Citations
from prioris.services.editing import Editor
from prioris.services.fetching import Fetcher
from prioris.services.reading import StoredText
from prioris.services.refsync import RefSync
from prioris.services.snowball import Snowball
from prioris.storage import chunks as chunk_store
from prioris.storage.labels import filter_names
from prioris.strings import without_surrogates

__all__ = ["Library", "database_errors", "display_location", "migrate_library", "utc_now"]
log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


def _feedback(max_words: int) -> dict[str, Any]:
    """The short-query feedback's FusionConfig fields when the setting turns it on."""
    if max_words <= 0:
        return {}
    return {**SHORT_QUERY_FEEDBACK, "prf_max_words": max_words}


def _pdf_limits(settings: Settings) -> Any:
    from prioris.ingest.pdf.reader import PdfLimits

    return PdfLimits.from_settings(settings)


def _to(
    service: str, method: Callable[Concatenate[Any, P], R]
) -> Callable[Concatenate[Library, P], R]:
    """A Library method that calls the same method of the service in attribute ``service``
    (its name, signature and docstring too): the facade's delegation, one line each."""
    name = method.__name__

    @functools.wraps(method)
    def delegated(self: Library, /, *args: P.args, **kwargs: P.kwargs) -> R:
        bound: Callable[P, R] = getattr(getattr(self, service), name)
        return bound(*args, **kwargs)

    delegated.__qualname__ = f"Library.{name}"
    return delegated


def utc_now() -> str:
    """Timestamps are UTC ISO-8601 seconds (the clock is injectable for tests)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


_COMPONENTS = ("embedder", "ocr", "http_transport", "clock", "now", "reranker")


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
        self._remote: Any = None
        self._enrichment: Any = None
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

    def _assemble(
        self, embedder: Embedder | None, ocr: OcrEngine | None, reranker: Reranker | None
    ) -> None:
        """The model, OCR, vector index, pipeline, searcher and services over the connection."""
        settings, conn, lock = self.settings, self.conn, self.lock
        if embedder is None:
            from prioris.embedding import build_embedder

            embedder = build_embedder(settings)
        self.embedder = embedder
        if ocr is None:
            from prioris.ingest.ocr import TesseractOcr

            ocr = TesseractOcr.from_settings(settings)
        self.ocr = ocr
        self.stale_on_open = chunk_store.ensure_vector_index(conn, embedder.model_id, embedder.dim)
        self.work_vectors_pending = work_vectors_pending(conn)
        """The library predates works' own vectors: ``reindex`` gives them."""
        self.pipeline = IngestPipeline(
            conn,
            embedder,
            ocr=ocr,
            ocr_mode=settings.ocr_mode,
            max_file_bytes=settings.max_file_bytes,
            now=self.now,
            pdf_limits=_pdf_limits(settings),
            write_lock=lock,
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
        self.ingester = IngestService(
            self.pipeline,
            max_file_bytes=settings.max_file_bytes,
            max_record_bytes=settings.max_record_bytes,
            # providers complete a parsed PDF's work unless enrichment is off
            complete=(lambda p: self.enrichment.complete(p)) if settings.enrich != "off" else None,
        )
        self.catalog = Catalog(conn, lock, embedder=embedder, storage=self.storage)
        self.stored_text = StoredText(conn, lock, self.catalog, ocr=ocr, ocr_mode=settings.ocr_mode)
        self.fetcher = Fetcher(
            conn,
            lock,
            catalog=self.catalog,
            text=self.stored_text,
            pipeline=self.pipeline,
            remote=lambda: self.remote,
        )
        self.editor = Editor(conn, lock, self.catalog.resolve_work_id, embedder, self.now)
        self.citations_service = Citations(conn, lock, self.catalog.resolve_work_id)
        self.refsync = RefSync(conn, lock, self.pipeline, self.ingester.ingest_pdf_bytes, self.now)
        self.snowballer = Snowball(
            conn, lock, embedder, self.catalog.resolve_work_id, lambda: int(self.now()[:4])
        )
        self.accounts_service = Accounts(conn, lock, self.now)
        self._artefacts = Artefacts(
            conn,
            lock,
            catalog=self.catalog,
            text=self.stored_text,
            searcher=self.searcher,
            fetch_one=self.fetcher.fetch_one,
            remote=lambda: self.remote,
        )

    @classmethod
    def open(cls, settings: Settings | None = None, **given: Any) -> Library:
        """Open a library: the one ``settings`` name, or the environment's and config file's
        with keyword settings on top (``Library.open(data_dir="~/papers")``,
        ``Library.open(db="postgresql://...", ocr_mode="never")``: each keyword is the
        :class:`~prioris.config.Settings` field of that name, checked as its variable).
        The constructor's components (``embedder``, ``ocr``, ``http_transport``, ``clock``,
        ``now``, ``reranker``) replace the real model, OCR, HTTP or clock."""
        components = {k: given.pop(k) for k in _COMPONENTS if k in given}
        if settings is not None and given:
            raise TypeError(f"give settings or keyword settings ({', '.join(given)}), not both")
        if settings is None:
            settings = keyword_settings(given) if given else load_settings()
        return cls(settings, **components)

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

    # -- built on first use ------------------------------------------------------------
    @property
    def remote(self) -> Any:
        """Remote providers (arXiv, Europe PMC, DOI, OpenAlex routing), built on first use."""
        with self.lock:
            if self._remote is None:
                from prioris.sources.remote import RemoteSources

                self._remote = RemoteSources(self.settings, self.http_transport, self.clock)
            return self._remote

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

    @property
    def artefacts(self) -> Artefacts:
        """The library as PriorisMCP names it: (provider, identifier, format) artefacts."""
        return self._artefacts

    # -- ingest (:class:`~prioris.ingest.service.IngestService`) -------------------------
    collect_pdfs = staticmethod(collect_pdfs)
    read_jsonl = _to("ingester", IngestService.read_jsonl)
    ingest_file = _to("ingester", IngestService.ingest_file)
    ingest_pdf_bytes = _to("ingester", IngestService.ingest_pdf_bytes)
    ingest_upload = _to("ingester", IngestService.ingest_upload)
    ingest_paths = _to("ingester", IngestService.ingest_paths)
    import_records = _to("ingester", IngestService.import_records)

    # -- remote fetch (:class:`~prioris.services.fetching.Fetcher`) ----------------------
    stored_full_text = _to("fetcher", Fetcher.stored_full_text)
    fetch_one = _to("fetcher", Fetcher.fetch_one)
    fetch = _to("fetcher", Fetcher.fetch)

    # -- the stored works (:class:`~prioris.services.catalog.Catalog`) -------------------
    resolve_work_id = _to("catalog", Catalog.resolve_work_id)
    get_work = _to("catalog", Catalog.get_work)
    list_works = _to("catalog", Catalog.list_works)
    show = _to("catalog", Catalog.show)
    original = _to("catalog", Catalog.original)
    notes = _to("catalog", Catalog.notes)
    document_bytes = _to("catalog", Catalog.document_bytes)
    delete = _to("catalog", Catalog.delete)
    delete_each = _to("catalog", Catalog.delete_each)
    paginated_works = _to("catalog", Catalog.paginated_works)
    known_aliases = _to("catalog", Catalog.known_aliases)
    export = _to("catalog", Catalog.export)
    cite = _to("catalog", Catalog.cite)
    browse = _to("catalog", Catalog.browse)
    pages = _to("catalog", Catalog.pages)
    chunk = _to("catalog", Catalog.chunk)
    year_source_counts = _to("catalog", Catalog.year_source_counts)
    labels = _to("catalog", Catalog.labels)
    collection_counts = _to("catalog", Catalog.collection_counts)
    tag_counts = _to("catalog", Catalog.tag_counts)
    unmatched_labels = _to("catalog", Catalog.unmatched_labels)
    page_image = _to("catalog", Catalog.page_image)

    # -- accounts, roles and the audit log (:class:`~prioris.services.accounts.Accounts`)
    add_account = _to("accounts_service", Accounts.add)
    accounts = _to("accounts_service", Accounts.list)
    active_accounts = _to("accounts_service", Accounts.active_count)
    revoke_account = _to("accounts_service", Accounts.revoke)
    authenticate = _to("accounts_service", Accounts.authenticate)
    record_audit = _to("accounts_service", Accounts.record)
    audit = _to("accounts_service", Accounts.audit)

    # -- editing with provenance (:class:`~prioris.services.editing.Editor`) -------------
    edit_work = _to("editor", Editor.edit_work)
    undo_edit = _to("editor", Editor.undo_edit)
    edit_history = _to("editor", Editor.edit_history)
    work_fields = _to("editor", Editor.work_fields)

    # -- references and the local citation graph (:class:`~prioris.services.citations.Citations`)
    references = _to("citations_service", Citations.references)
    cites = _to("citations_service", Citations.cites)
    cited_by = _to("citations_service", Citations.cited_by)
    citations = _to("citations_service", Citations.citations)

    # -- reference managers (:class:`~prioris.services.refsync.RefSync`) ---------------
    def zotero_dir(self, given: str | Path | None = None) -> Path:
        """The Zotero data directory to read: ``given``, else ``PRIORIS_MCP_ZOTERO_DIR``,
        else Zotero's own default (``~/Zotero`` on Linux, macOS and Windows alike)."""
        chosen = given or self.settings.zotero_dir or Path.home() / "Zotero"
        return Path(chosen).expanduser()

    def zotero_sync(
        self,
        zotero_dir: str | Path | None = None,
        *,
        base_dir: str | Path | None = None,
        ocr_mode: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Bring a Zotero library in, or up to date (see :mod:`prioris.services.refsync`):
        every regular item a work with Zotero's metadata, its PDFs ingested, notes,
        highlights, collections and tags kept; items deleted or trashed since are removed.
        Zotero's files are read from a private copy and never written."""
        from prioris.refman.zotero import ZoteroSnapshot, read_library
        from prioris.services.refsync import zotero_items, zotero_summary

        directory = self.zotero_dir(zotero_dir)
        base = base_dir or self.settings.zotero_base_dir
        # the private copy of zotero.sqlite goes beside the library, not to a small /tmp
        beside = self.settings.data_dir if self.settings.data_dir.is_dir() else None
        read = read_library(
            directory,
            base_dir=Path(base).expanduser() if base else None,
            snapshot=lambda d: ZoteroSnapshot(d, temp_root=beside),
        )
        report = self.refsync.sync(
            "zotero",
            zotero_items(read),
            errors=read.errors,
            complete=True,
            ocr_mode=ocr_mode,
            on_progress=on_progress,
        )
        return {"zotero_dir": str(directory), **report.to_dict(), "zotero": zotero_summary(read)}

    def import_references(
        self,
        path: str | Path,
        *,
        ocr_mode: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Import a BibTeX or RIS file with the files its entries link to. Import again
        after the file changed: unchanged entries are skipped, changed ones update their
        work (entries removed from the file leave their works in the library)."""
        from prioris.services.refsync import read_reference_file

        file = Path(path).expanduser()
        kind, items, errors = read_reference_file(file)
        report = self.refsync.sync(
            f"{kind}:{file.resolve()}",
            items,
            errors=errors,
            ocr_mode=ocr_mode,
            on_progress=on_progress,
        )
        return {"file": str(file), "format": kind, **report.to_dict()}

    def import_reference_text(self, text: str, format: str | None = None) -> dict[str, Any]:
        """Import BibTeX or RIS entries given as text (MCP, the web app): their metadata
        only; file links are not followed, since the text did not come from this disk."""
        import dataclasses
        import tempfile

        from prioris.refman.bibtex import parse_bibtex
        from prioris.refman.references import reference_format
        from prioris.refman.ris import parse_ris

        if format is not None and format not in ("bibtex", "ris"):
            raise InvalidRequestError(f"unknown references format {format!r}; use bibtex or ris")
        kind = format or reference_format(Path("references"), text)
        nowhere = Path(tempfile.gettempdir()) / "prioris-no-files"  # links resolve to nothing
        if kind == "bibtex":
            items, errors = parse_bibtex(text, base=nowhere, roots=(), encoding="utf-8")
        else:
            items, errors = parse_ris(text, base=nowhere, roots=(), encoding="utf-8", name="text")
        items = [dataclasses.replace(item, attachments=()) for item in items]  # not followed
        report = self.refsync.sync(f"{kind}:text", items, errors=errors)
        return {"format": kind, **report.to_dict()}

    # -- enrichment (:class:`~prioris.enrichment.EnrichmentService`) ---------------------
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

        def done(work_id: str, report: dict[str, Any]) -> None:
            # a new title or abstract dropped the work's vector (a trigger): embed it now,
            # so a run stopped later leaves no work without one
            if {"title", "abstract"} & set(report.get("changed", [])):
                self.embed_work_vectors([work_id])
            if on_done:
                on_done(work_id, report)

        reports = self.enrichment.enrich(work_ids, on_done=done)
        # and mend what an earlier, interrupted run left: every work seen, where missing
        self.embed_work_vectors([r["id"] for r in reports if r["status"] == "enriched"])
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
        include_undated: bool = False,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> SearchResponse:
        """Search what the library holds; ``ids`` restrict to works (any id form),
        ``collections`` (any of them, subcollections included) and ``tags`` (all of them)
        too (:mod:`prioris.storage.labels`). A year filter leaves out works without a year
        (the response's ``left_out_no_year`` says how many) unless ``include_undated``."""
        work_ids = tuple(self.resolve_work_id(i) for i in ids) if ids else None
        if isinstance(source, str):
            source = without_surrogates(source)
            self.catalog.check_source(source)
        filters = SearchFilters(
            source=source,
            from_year=from_year,
            to_year=to_year,
            work_ids=work_ids,
            include_undated=include_undated,
            collections=filter_names(collections, "collection"),
            tags=filter_names(tags, "tag"),
        )
        # no lock: the searcher reads through its own WAL read connections
        response = self.searcher.search(
            query, mode=mode, k=k, chunks=chunks, filters=filters, syntax=syntax
        )
        hits, took = len(response.hits), response.took_ms
        log.debug("search %r: mode %s, k %d, %d hits in %.1f ms", query, mode, k, hits, took)
        return response

    # -- vectors (:class:`~prioris.ingest.reindex.Reindexer`) ----------------------------
    def reindex(self, *, on_progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed stale chunks, then the works without a vector of their own, in
        batches, each batch committed: resumable after a stop. Returns the chunks done
        (``on_progress`` counts chunks and works together)."""
        return self._reindexer().run(on_progress)

    def build_postings(self) -> dict[str, Any] | None:
        """PostgreSQL: rebuild the BM25 postings table now (``reindex --postings``); a
        searching process otherwise builds it in the background. None on SQLite, whose
        sidecar a searching process keeps built by itself."""
        build = getattr(self.searcher.backend, "build_postings", None)
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

        return StoredTextCleaner(self.conn, self.lock, self.pipeline).run(on_progress)

    def embed_work_vectors(self, work_ids: Sequence[str]) -> int:
        """Embed these works' own vectors (title + abstract) where they are missing."""
        return self._reindexer().works(work_ids)

    def _reindexer(self) -> Reindexer:
        return Reindexer(self.conn, self.lock, self.embedder)

    # -- watched folders (:class:`~prioris.services.watching.FolderWatcher`) -------------
    check_watch_folders = staticmethod(watching.check_folders)

    def watch(
        self,
        folders: Sequence[str | Path],
        *,
        stop: threading.Event,
        on_action: Callable[[watching.WatchAction], None] | None = None,
        on_ready: Callable[[], None] | None = None,
        settle_seconds: float | None = None,
        initial_scan: bool = True,
        zotero: bool = False,
        zotero_dir: Path | None = None,
        changes: watching.ChangeSource | None = None,
        clock: Callable[[], float] | None = None,
    ) -> watching.WatchStats:
        """Ingest the PDFs under ``folders`` as they appear or change until ``stop`` is
        set (see :mod:`prioris.services.watching`); with ``zotero``, also re-sync Zotero's
        library (:meth:`zotero_sync`) whenever its database changes. ``on_action`` gets
        each :class:`~prioris.services.watching.WatchAction`, ``on_ready()`` is called
        once the folders are watched (nothing dropped from then on is missed); returns
        the run's :class:`~prioris.services.watching.WatchStats`. ``changes`` and
        ``clock`` replace the real file-system watch and clock (tests)."""
        roots = watching.check_folders(folders)
        resync = None
        zotero_files: list[Path] = []
        if zotero:
            directory = self.zotero_dir(zotero_dir)
            zotero_files = watching.check_zotero_dir(directory)

            def resync() -> Any:
                return self.zotero_sync(directory)

        options: dict[str, Any] = {}
        if settle_seconds is not None:
            options["settle_seconds"] = settle_seconds
        if clock is not None:
            options["clock"] = clock
        watcher = watching.FolderWatcher(
            roots,
            ingest=lambda paths, done: self.ingest_paths(paths, on_file_done=done),
            changes=changes or watching.watchfiles_source(roots),
            on_action=on_action,
            on_ready=on_ready,
            initial_scan=initial_scan,
            resync=resync,
            zotero_files=zotero_files,
            **options,
        )
        return watcher.run(stop)

    # -- discovery (:class:`~prioris.discovery.DiscoveryService`, OpenAlex) --------------
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

    # -- the OpenAlex citation graph (:mod:`prioris.services.openalex_graph`) -----------
    def _openalex_budget(self) -> Any:
        from prioris.services.openalex_graph import StoredBudget

        return StoredBudget(self.conn, self.lock, self.now, self.settings.openalex_daily_budget)

    def openalex_graph(self) -> Any:
        """A new :class:`~prioris.sources.openalex_graph.OpenAlexGraph` (its ``requests``
        count one command's requests) over the library's cache of OpenAlex answers
        (``PRIORIS_MCP_OPENALEX_CACHE_DAYS``) and its daily request budget, shared by every
        process (``PRIORIS_MCP_OPENALEX_DAILY_BUDGET``); configuration_error without an
        OpenAlex API key, before anything is built."""
        from prioris.services.openalex_graph import StoredCache
        from prioris.sources.openalex import API_KEY_HELP

        if not self.settings.openalex_api_key:
            raise ConfigurationError(
                f"The citation graph from OpenAlex needs an OpenAlex API key. {API_KEY_HELP}"
            )
        days = self.settings.openalex_cache_days
        cache = StoredCache(self.conn, self.lock, self.now, days)
        return self.remote.openalex_graph(cache, self._openalex_budget())

    def status(self) -> dict[str, Any]:
        """Counts, index state, model and file size (:meth:`Catalog.status`), and today's
        OpenAlex requests against the daily budget (``openalex_requests_today``,
        ``openalex_daily_budget``)."""
        from prioris.services.openalex_graph import usage

        return {**self.catalog.status(), **usage(self._openalex_budget())}

    # -- snowballing (:class:`~prioris.services.snowball.Snowball`) ----------------------
    def _snowball_graph(self, offline: bool, graph: Any) -> tuple[Any, str | None]:
        """The OpenAlex graph a snowball reads, or None and why it reads the local one."""
        if graph is not None:
            return graph, None
        if offline:
            return None, "offline was asked for"
        if not self.settings.openalex_api_key:
            return None, "no OpenAlex API key: set PRIORIS_MCP_OPENALEX_API_KEY to go online"
        return self.openalex_graph(), None

    def snowball(
        self,
        ids: Sequence[str] = (),
        *,
        all: bool = False,
        collection: str | None = None,
        direction: str = "both",
        limit: int = 25,
        offline: bool = False,
        graph: Any = None,
    ) -> dict[str, Any]:
        """Works not in the library that the seeds cite (backward) or that cite them
        (forward), ranked and explained (:mod:`prioris.discovery.snowball`); never
        fetches. Seeds: ``ids``, ``all`` works, or a ``collection``. Online (an OpenAlex
        key and not ``offline``) OpenAlex's graph joins the local one; ``graph`` replaces
        the OpenAlex client (tests)."""
        seeds = self.snowballer.seeds(ids, all=all, collection=collection)
        chosen, reason = self._snowball_graph(offline, graph)
        return self.snowballer.run(
            seeds, direction=direction, limit=limit, graph=chosen, offline_reason=reason
        )

    def dismiss_candidate(self, key: str, title: str = "") -> dict[str, Any]:
        """Remember a snowball candidate (its ``key``) as not wanted: not shown again."""
        return self.snowballer.dismiss(key, title, self.now())

    def undismiss_candidate(self, key: str) -> dict[str, Any]:
        """Show a dismissed snowball candidate again."""
        return self.snowballer.undismiss(key)

    def citation_graph(
        self,
        candidates: bool = False,
        *,
        limit: int = 50,
        offline: bool = False,
        graph: Any = None,
    ) -> dict[str, Any]:
        """The library's works and citation edges (``{"nodes", "edges"}``); with
        ``candidates``, a whole-library snowball's top ``limit`` candidates too."""
        answer = None
        if candidates and self.snowballer.has_works():
            answer = self.snowball(all=True, limit=limit, offline=offline, graph=graph)
        return self.snowballer.graph(answer)


def migrate_library(
    settings: Settings,
    target: str | Path,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Copy the library of ``settings`` to ``target`` (a ``postgresql://`` URL or an SQLite
    file) with its vectors, no model needed; run again to resume a stopped copy."""
    from prioris.storage.copy import copy_library

    location = settings.library_location
    if isinstance(location, Path) and not location.exists():  # never create it to copy it
        raise ConfigurationError(
            f"there is no library at {location} to copy (--db, --data-dir, PRIORIS_MCP_DB)"
        )
    source = open_storage(location, settings)
    destination = open_storage(str(target), settings)
    try:
        report = copy_library(source, destination, on_progress=on_progress)
    finally:
        source.close()
        destination.close()
    return {"source": source.display(), "target": destination.display(), **report.to_dict()}
