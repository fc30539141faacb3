"""Library: the public facade over storage, ingest, search and sources.

The CLI, the MCP server and Python callers all go through this class. It holds the
settings, the write lock (so worker threads can share one library) and a
:class:`~prioris.compose.Composition`, which opens the storage and builds every service
from the settings (or takes fakes through the constructor) on first use; each public method
delegates to one service, where what it does is documented. The facade has no logic of its
own: composition lives in :mod:`prioris.compose`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from prioris.compose import PARTS, Composition
from prioris.compose_copy import migrate_library
from prioris.config import Settings, keyword_settings, load_settings
from prioris.engines import database_errors, display_location
from prioris.ingest.batch import collect_pdfs
from prioris.ingest.service import IngestService
from prioris.services import watching
from prioris.services.accounts import Accounts
from prioris.services.alerts import Alerts
from prioris.services.alerts_digest import AlertsDigest
from prioris.services.alerts_ranking import AlertsRanking
from prioris.services.catalog import Catalog
from prioris.services.citations import Citations
from prioris.services.editing import Editor
from prioris.services.enriching import Enriching
from prioris.services.evidence import EvidenceService
from prioris.services.fetching import Fetcher
from prioris.services.labelling import Labelling
from prioris.services.maintenance import Maintenance
from prioris.services.openalex_access import OpenAlexAccess
from prioris.services.refimport import RefImports
from prioris.services.searching import Searching
from prioris.services.snowball_runs import SnowballRuns
from prioris.services.status import LibraryStatus
from prioris.services.watch_library import LibraryWatch

if TYPE_CHECKING:
    from prioris.embedding.base import Embedder
    from prioris.ingest.ocr import OcrEngine
    from prioris.search.rerank import Reranker
    from prioris.services.artefacts import Artefacts

__all__ = ["Library", "database_errors", "display_location", "migrate_library", "utc_now"]
P = ParamSpec("P")
R = TypeVar("R")


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
        parts = Composition(
            settings,
            self.lock,
            embedder=embedder,
            ocr=ocr,
            http_transport=http_transport,
            clock=clock,
            now=now,
            reranker=reranker,
        )
        self._parts = parts
        self.storage = parts.storage
        self.conn = parts.conn
        self.embedder = parts.embedder
        self.stale_on_open: bool = parts.stale_on_open
        self.work_vectors_pending: bool = parts.work_vectors_pending
        """The library predates works' own vectors: ``reindex`` gives them."""

    def __getattr__(self, name: str) -> Any:
        """The services (``catalog``, ``pipeline``, ``searcher``, ...), built on first use."""
        if name in PARTS and "_parts" in self.__dict__:
            return getattr(self._parts, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

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
            self._parts.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- built on first use ------------------------------------------------------------
    @property
    def remote(self) -> Any:
        """Remote providers (arXiv, Europe PMC, DOI, OpenAlex routing), built on first use."""
        return self._parts.remote

    @property
    def enrichment(self) -> Any:
        """Provider lookups (arXiv, OpenAlex, Europe PMC) and their storage, built on first use."""
        return self._parts.enrichment

    @property
    def artefacts(self) -> Artefacts:
        """The library as PriorisMCP names it: (provider, identifier, format) artefacts."""
        return self._parts.artefacts  # type: ignore[no-any-return]

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

    # -- collections and tags made in Prioris (:class:`~prioris.services.labelling.Labelling`)
    list_collections = _to("labelling", Labelling.list_collections)
    create_collection = _to("labelling", Labelling.create_collection)
    rename_collection = _to("labelling", Labelling.rename_collection)
    delete_collection = _to("labelling", Labelling.delete_collection)
    add_to_collection = _to("labelling", Labelling.add_to_collection)
    remove_from_collection = _to("labelling", Labelling.remove_from_collection)
    add_tag = _to("labelling", Labelling.add_tag)
    remove_tag = _to("labelling", Labelling.remove_tag)

    # -- accounts, roles and the audit log (:class:`~prioris.services.accounts.Accounts`)
    add_account = _to("accounts_service", Accounts.add)
    accounts = _to("accounts_service", Accounts.list)
    active_accounts = _to("accounts_service", Accounts.active_count)
    revoke_account = _to("accounts_service", Accounts.revoke)
    authenticate = _to("accounts_service", Accounts.authenticate)
    record_audit = _to("accounts_service", Accounts.record)
    audit = _to("accounts_service", Accounts.audit)
    add_feed_token = _to("accounts_service", Accounts.add_feed_token)
    feed_tokens = _to("accounts_service", Accounts.feed_tokens)
    revoke_feed_token = _to("accounts_service", Accounts.revoke_feed_token)
    feed_account = _to("accounts_service", Accounts.feed_account)

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

    # -- reference managers (:class:`~prioris.services.refimport.RefImports`) ----------
    zotero_dir = _to("refimports", RefImports.zotero_dir)
    zotero_sync = _to("refimports", RefImports.zotero_sync)
    import_references = _to("refimports", RefImports.import_references)
    import_reference_text = _to("refimports", RefImports.import_reference_text)

    # -- enrichment (:class:`~prioris.services.enriching.Enriching`) ---------------------
    enrich = _to("enriching", Enriching.enrich)
    metadata_records = _to("enriching", Enriching.metadata_records)

    # -- search (:class:`~prioris.services.searching.Searching`) -------------------------
    search = _to("searching", Searching.search)

    # -- evidence (:class:`~prioris.services.evidence.EvidenceService`) -----------------
    evidence = _to("evidence_service", EvidenceService.evidence)
    cite_check = _to("evidence_service", EvidenceService.cite_check)

    # -- alerts (:class:`~prioris.services.alerts_ranking.AlertsRanking`) ---------------
    rank_alerts = _to("alerts_ranking", AlertsRanking.rank_alerts)

    # -- alerts that run and remember (:class:`~prioris.services.alerts.Alerts`) --------
    alerts_add = _to("alerts", Alerts.alerts_add)
    alerts_remove = _to("alerts", Alerts.alerts_remove)
    alerts_list = _to("alerts", Alerts.alerts_list)
    alerts_show = _to("alerts", Alerts.alerts_show)
    alerts_run = _to("alerts", Alerts.alerts_run)
    alerts_accept = _to("alerts", Alerts.alerts_accept)
    alerts_dismiss = _to("alerts", Alerts.alerts_dismiss)
    alerts_feed = _to("alerts", Alerts.alerts_feed)
    alerts_digest = _to("digests", AlertsDigest.alerts_digest)

    # -- upkeep (:class:`~prioris.services.maintenance.Maintenance`) ---------------------
    reindex = _to("maintenance", Maintenance.reindex)
    build_postings = _to("maintenance", Maintenance.build_postings)
    compact = _to("maintenance", Maintenance.compact)
    reread_references = _to("maintenance", Maintenance.reread_references)
    clean_stored_text = _to("maintenance", Maintenance.clean_stored_text)
    embed_work_vectors = _to("maintenance", Maintenance.embed_work_vectors)

    # -- watched folders (:class:`~prioris.services.watch_library.LibraryWatch`) ---------
    check_watch_folders = staticmethod(watching.check_folders)
    watch = _to("watching", LibraryWatch.watch)

    # -- discovery and OpenAlex (:class:`~prioris.services.openalex_access.OpenAlexAccess`)
    openalex_client = _to("openalex_access", OpenAlexAccess.openalex_client)
    discover = _to("openalex_access", OpenAlexAccess.discover)
    openalex_search = _to("openalex_access", OpenAlexAccess.openalex_search)
    openalex_work_types = _to("openalex_access", OpenAlexAccess.openalex_work_types)
    openalex_graph = _to("openalex_access", OpenAlexAccess.openalex_graph)
    clean_openalex_cache = _to("openalex_access", OpenAlexAccess.clean_openalex_cache)
    status = _to("library_status", LibraryStatus.status)

    # -- snowballing (:class:`~prioris.services.snowball_runs.SnowballRuns`) -------------
    snowball = _to("snowball_runs", SnowballRuns.snowball)
    dismiss_candidate = _to("snowball_runs", SnowballRuns.dismiss_candidate)
    undismiss_candidate = _to("snowball_runs", SnowballRuns.undismiss_candidate)
    citation_graph = _to("snowball_runs", SnowballRuns.citation_graph)
