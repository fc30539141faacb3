"""The composition of a library: its storage, connection and services, built from Settings.

:class:`~prioris.library.Library` is the facade; this module is the one place that says
which service is built from which pieces (the settings, the connection and its write lock,
the model, OCR, the HTTP transport, the clock). It picks the database engine
(:func:`prioris.engines.open_storage`, called here and nowhere else).

The storage, the connection and the model's description are opened with the library (a
library whose vectors do not fit the model fails at once, as before); every service is
built the first time something asks for it, each under one lock. A command that lists
works therefore never imports the PDF reader, the ONNX runtime, the HTTP clients or the
snowball's ranking: ``prioris list`` pays for SQLite and the catalogue only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from prioris.compose_parts import part as _part
from prioris.config import Settings
from prioris.engines import open_storage
from prioris.storage import chunks as chunk_store


class Composition:
    """A library's storage, connection, model and services (built on first use)."""

    def __init__(
        self,
        settings: Settings,
        lock: threading.RLock,
        *,
        embedder: Any = None,
        ocr: Any = None,
        http_transport: Any = None,
        clock: Any = None,
        now: Callable[[], str],
        reranker: Any = None,
    ) -> None:
        self.settings = settings
        self.lock = lock
        self.http_transport = http_transport
        self.clock = clock
        self.now = now
        self.given = {"ocr": ocr, "reranker": reranker}
        self.built: dict[str, Any] = {}
        self.build_lock = threading.RLock()
        # the location picks the backend: an SQLite file or a postgresql:// URL
        self.storage = open_storage(settings.library_location, settings)
        try:
            self.conn = self.storage.connect()
            try:
                self._open(embedder)
            except BaseException:
                self.conn.close()
                raise
        except BaseException:  # a library that fails to open leaves nothing open behind
            self.storage.close()
            raise

    def _open(self, embedder: Any) -> None:
        """What opening checks at once: the model fits the library's vector index."""
        self.model_recipe: Any = None  # for a task worker (prioris.ingest.worker_model)
        if embedder is None:
            from prioris.embedding import build_embedder, embedder_recipe

            embedder = build_embedder(self.settings)
            self.model_recipe = embedder_recipe(self.settings)
        self.embedder = embedder
        self.stale_on_open = chunk_store.ensure_vector_index(
            self.conn, embedder.model_id, embedder.dim
        )
        from prioris.ingest.reindex import work_vectors_pending

        self.work_vectors_pending = work_vectors_pending(self.conn)

    def close(self) -> None:
        """Close what was built (the remote clients, the searcher), then the connection."""
        remote = self.built.get("remote")
        if remote is not None and hasattr(remote, "close"):
            remote.close()
        searcher = self.built.get("searcher")
        if searcher is not None:
            searcher.close()
        if hasattr(self.built.get("runner"), "close"):
            self.built["runner"].close()  # a cluster this library started stops with it
        self.conn.close()
        self.storage.close()

    # -- ingest ------------------------------------------------------------------------
    @_part
    def ocr(self) -> Any:
        """The OCR engine (Tesseract unless one was given)."""
        if self.given["ocr"] is not None:
            return self.given["ocr"]
        from prioris.ingest.ocr import TesseractOcr

        return TesseractOcr.from_settings(self.settings)

    @_part
    def runner(self) -> Any:
        """Where ingest's preparing and embedding run (the ``cluster`` setting)."""
        from prioris.ingest.tasks import runner_for

        return runner_for(self.settings.cluster)

    @_part
    def pipeline(self) -> Any:
        """Parse, chunk, embed and write documents (:mod:`prioris.ingest.pipeline`)."""
        from prioris.ingest.pdf.reader import PdfLimits
        from prioris.ingest.pipeline import IngestPipeline

        settings = self.settings
        return IngestPipeline(
            self.conn,
            self.embedder,
            ocr=self.ocr,
            ocr_mode=settings.ocr_mode,
            max_file_bytes=settings.max_file_bytes,
            now=self.now,
            pdf_limits=PdfLimits.from_settings(settings),
            write_lock=self.lock,
            runner=self.runner,
            model_recipe=self.model_recipe,
        )

    @_part
    def ingester(self) -> Any:
        """Files, bytes, uploads, paths and records into the pipeline."""
        from prioris.ingest.service import IngestService

        settings = self.settings
        return IngestService(
            self.pipeline,
            max_file_bytes=settings.max_file_bytes,
            max_record_bytes=settings.max_record_bytes,
            # providers complete a parsed PDF's work unless enrichment is off
            complete=(lambda p: self.enrichment.complete(p)) if settings.enrich != "off" else None,
        )

    @_part
    def maintenance(self) -> Any:
        """Re-embedding, postings, compaction, references and text cleaning."""
        from prioris.services.maintenance import Maintenance

        return Maintenance(
            self.conn,
            self.lock,
            self.embedder,
            storage=self.storage,
            searcher=lambda: self.searcher,
            pipeline=lambda: self.pipeline,
        )

    # -- search ------------------------------------------------------------------------
    @_part
    def searcher(self) -> Any:
        """The search service over the engine's search backend."""
        from prioris.search.rerank import build_reranker
        from prioris.search.service import SHORT_QUERY_FEEDBACK, FusionConfig, SearchService

        settings = self.settings
        fts_w, vec_w = settings.fusion_weights
        feedback: dict[str, Any] = {}
        if settings.feedback_max_words > 0:  # short-query feedback, when the setting says so
            feedback = {**SHORT_QUERY_FEEDBACK, "prf_max_words": settings.feedback_max_words}
        reranker = self.given["reranker"]
        return SearchService(
            self.storage.search_backend(),
            self.embedder,
            FusionConfig(
                method=settings.fusion_method,
                rrf_k=settings.rrf_k,
                fts_weight=fts_w,
                vector_weight=vec_w,
                rerank_depth=settings.rerank_depth,
                work_vector_weight=settings.work_vector_weight,
                **feedback,
            ),
            max_query_chars=settings.max_query_chars,
            reranker=reranker if reranker is not None else build_reranker(settings),
        )

    @_part
    def searching(self) -> Any:
        """Searches with their filters resolved against the library."""
        from prioris.services.searching import Searching

        return Searching(lambda: self.searcher, self.catalog)

    @_part
    def evidence_service(self) -> Any:
        """Sentences to quote for a claim, and citation checks."""
        from prioris.services.evidence import EvidenceService

        return EvidenceService(lambda: self.searcher, self.searching, self.catalog)

    @_part
    def alerts_ranking(self) -> Any:
        """Candidate papers ranked for each collection (issue 37)."""
        from prioris.services.alerts_ranking import AlertsRanking

        return AlertsRanking(self.conn, self.lock, self.embedder, self.catalog.known_aliases)

    @_part
    def alerts(self) -> Any:
        """Alerts that run and remember: sources, ranking, results and triage (issue 37)."""
        from prioris.compose_alerts import build_alerts

        return build_alerts(self)

    @_part
    def digests(self) -> Any:
        """The day's alerts by e-mail through the user's SMTP server (issue 37)."""
        from prioris.compose_alerts import build_digests

        return build_digests(self)

    # -- the stored works --------------------------------------------------------------
    @_part
    def catalog(self) -> Any:
        """Resolving, reading, listing and deleting stored works."""
        from prioris.services.catalog import Catalog

        return Catalog(self.conn, self.lock, embedder=self.embedder, storage=self.storage)

    @_part
    def labelling(self) -> Any:
        """Collections and tags made in Prioris."""
        from prioris.services.labelling import Labelling

        search = lambda query, **options: self.searching.search(query, **options)  # noqa: E731
        return Labelling(self.conn, self.lock, self.catalog.resolve_work_id, search, self.now)

    @_part
    def stored_text(self) -> Any:
        """A stored work's text page by page."""
        from prioris.services.reading import StoredText

        ocr_mode = self.settings.ocr_mode
        return StoredText(self.conn, self.lock, self.catalog, ocr=self.ocr, ocr_mode=ocr_mode)

    @_part
    def editor(self) -> Any:
        """The user's corrections, with provenance."""
        from prioris.services.editing import Editor

        return Editor(self.conn, self.lock, self.catalog.resolve_work_id, self.embedder, self.now)

    @_part
    def citations_service(self) -> Any:
        """References linked to library works."""
        from prioris.services.citations import Citations

        return Citations(self.conn, self.lock, self.catalog.resolve_work_id)

    @_part
    def accounts_service(self) -> Any:
        """Accounts, roles and the audit log."""
        from prioris.services.accounts import Accounts

        return Accounts(self.conn, self.lock, self.now)

    @_part
    def library_status(self) -> Any:
        """Counts and index state, with today's OpenAlex requests."""
        from prioris.services.status import LibraryStatus

        return LibraryStatus(self.catalog, self.openalex_access)

    # -- providers ---------------------------------------------------------------------
    @_part
    def remote(self) -> Any:
        """Remote providers (arXiv, Europe PMC, DOI, OpenAlex routing)."""
        from prioris.sources.remote import RemoteSources

        return RemoteSources(self.settings, self.http_transport, self.clock)

    @_part
    def enrichment(self) -> Any:
        """Provider lookups (arXiv, OpenAlex, Europe PMC) and their storage."""
        from prioris.enrichment import EnrichmentService
        from prioris.sources.enrich import ProviderLookup

        return EnrichmentService(self.conn, self.lock, ProviderLookup(self.remote), self.now)

    @_part
    def enriching(self) -> Any:
        """Enrichment runs that keep works' vectors current."""
        from prioris.services.enriching import Enriching

        return Enriching(
            lambda: self.enrichment,
            self.catalog.resolve_work_id,
            lambda ids: self.maintenance.embed_work_vectors(ids),
        )

    @_part
    def fetcher(self) -> Any:
        """A provider's record and full text, stored through the pipeline."""
        from prioris.services.fetching import Fetcher

        return Fetcher(
            self.conn,
            self.lock,
            catalog=self.catalog,
            text=self.stored_text,
            pipeline=self.pipeline,
            remote=lambda: self.remote,
        )

    @_part
    def artefacts(self) -> Any:
        """PriorisMCP's view: (provider, identifier, format) artefacts."""
        from prioris.services.artefacts import Artefacts

        return Artefacts(
            self.conn,
            self.lock,
            catalog=self.catalog,
            text=self.stored_text,
            searcher=self.searcher,
            fetch_one=self.fetcher.fetch_one,
            remote=lambda: self.remote,
        )

    # -- reference managers and watched folders ----------------------------------------
    @_part
    def refsync(self) -> Any:
        """A reference manager's items stored as works."""
        from prioris.services.refsync import RefSync

        ingest, limit = self.ingester.ingest_pdf_bytes, self.settings.max_file_bytes
        return RefSync(self.conn, self.lock, self.pipeline, ingest, self.now, max_file_bytes=limit)

    @_part
    def refimports(self) -> Any:
        """Zotero, BibTeX and RIS brought in through the sync."""
        from prioris.services.refimport import RefImports

        return RefImports(self.settings, lambda: self.refsync)

    @_part
    def watching(self) -> Any:
        """Watched folders ingested as files settle."""
        from prioris.services.watch_library import LibraryWatch

        return LibraryWatch(
            ingest_paths=lambda paths, done: self.ingester.ingest_paths(paths, on_file_done=done),
            zotero_dir=self.refimports.zotero_dir,
            zotero_sync=lambda directory: self.refimports.zotero_sync(directory),
        )

    # -- discovery ---------------------------------------------------------------------
    @_part
    def openalex_access(self) -> Any:
        """OpenAlex's search, semantic discovery and citation graph, cached and budgeted."""
        from prioris.services.openalex_access import OpenAlexAccess

        return OpenAlexAccess(
            self.conn,
            self.lock,
            self.settings,
            self.now,
            remote=lambda: self.remote,
            known_aliases=self.catalog.known_aliases,
        )

    @_part
    def snowballer(self) -> Any:
        """Candidates from the local graph and OpenAlex, ranked; never fetched."""
        from prioris.services.snowball import Snowball

        def year() -> int:
            return int(self.now()[:4])

        resolve = self.catalog.resolve_work_id
        return Snowball(self.conn, self.lock, self.embedder, resolve, year)

    @_part
    def snowball_runs(self) -> Any:
        """Snowballs with the OpenAlex graph when there is a key."""
        from prioris.services.snowball_runs import SnowballRuns

        return SnowballRuns(lambda: self.snowballer, self.openalex_access, self.settings, self.now)


PARTS = frozenset(name for name, value in vars(Composition).items() if isinstance(value, property))
"""The services a :class:`Composition` builds on first use (the facade's attributes)."""
