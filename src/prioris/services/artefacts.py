"""The library as PriorisMCP clients see it: ``(provider, identifier, format)`` artefacts.

PriorisMCP keeps, per fetched item and format, a **document** (the original bytes) and a
**markdown** (the parsed text, indexed for search), and names items by provider and its
canonical identifier (``2401.01234v2``, ``PMC:123``, a local file's id). Prioris keeps
works; this facade (``Library.artefacts``) maps one onto the other for the MCP tools:

* listing and deleting artefacts (:mod:`prioris.storage.artefacts` says what deleting a
  document or a Markdown removes);
* reading a work's text in a given format, one page at a time
  (:mod:`prioris.services.reading`);
* PriorisMCP's identifier resolution (canonical id, full-text URL, format);
* a fetch result with the stored document's size and resource URI (the fetch itself,
  which re-indexes a work whose Markdown was deleted from the bytes it still stores, is
  :mod:`prioris.services.fetching`);
* search scoped by provider, identifier and format, each hit also given as a match
  ``{provider, identifier, format, snippet, offset, score}``.

It takes the services it needs (catalog, stored texts, searcher, the fetch and the remote
sources), not the library, so it sits below the facade that builds it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from prioris.errors import (
    InvalidRequestError,
    NotFoundError,
)
from prioris.identifiers import (
    provider_of_source,
    reference_identifier,
    source_of_provider,
)
from prioris.ingest.prepared import IngestResult
from prioris.search.protocols import SearchFilters
from prioris.search.service import SearchResponse, SearchService
from prioris.services.catalog import Catalog
from prioris.services.reading import StoredText
from prioris.services.resolving import resolve_identifier
from prioris.storage import artefacts as store
from prioris.storage import documents as document_store
from prioris.storage import works as work_store
from prioris.storage.labels import filter_names

if TYPE_CHECKING:
    from prioris.sources.remote import RemoteSources

ARTEFACT_CHOICES = ("document", "markdown", "all")


def resource_uri(provider: str, identifier: str, fmt: str, kind: str) -> str:
    """``research://{provider}/{identifier}/{format}/{kind}``; ``/`` in an id is encoded."""
    return f"research://{provider}/{quote(identifier, safe=':')}/{fmt}/{kind}"


class Artefacts:
    """PriorisMCP's view over one library's stored works."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        *,
        catalog: Catalog,
        text: StoredText,
        searcher: SearchService,
        fetch_one: Callable[..., IngestResult],
        remote: Callable[[], RemoteSources],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.catalog = catalog
        self.text = text
        self.searcher = searcher
        self.fetch_one = fetch_one  # ``fetch_one(identifier, format=...)``
        self.remote = remote  # built on first use: opening a library makes no client

    # -- naming ------------------------------------------------------------------------
    def resolve(self, provider: str | None, identifier: str) -> str:
        """The stored work that ``identifier`` names under ``provider`` (else not_found)."""
        identifier = (identifier or "").strip()
        if not identifier:
            raise InvalidRequestError("an identifier is required")
        candidates = [identifier]
        if provider == "localfile":
            candidates.append(f"file:{identifier}")
        elif provider:
            candidates.insert(0, f"{source_of_provider(provider)}:{identifier}")
        for candidate in candidates:
            try:
                return self.catalog.resolve_work_id(candidate)
            except (NotFoundError, InvalidRequestError):
                continue
        where = f"{provider}:{identifier}" if provider else repr(identifier)
        raise NotFoundError(f"nothing stored for {where}")

    def resolve_identifier(self, text: str, format: str | None = None) -> dict[str, Any]:
        """Which provider serves ``text`` and whether the library holds it (offline too):
        :func:`prioris.services.resolving.resolve_identifier`."""
        return resolve_identifier(self.catalog, self.remote, text, format)

    def name_of(self, work_id: str) -> tuple[str, str]:
        """(provider, identifier) of a stored work, in PriorisMCP's terms."""
        with self.lock:
            work = work_store.get_work(self.conn, work_id)
        if work is None:
            raise NotFoundError(f"no work {work_id!r} in the library")
        return provider_of_source(work.source), reference_identifier(work.id)

    # -- listing and deleting ----------------------------------------------------------
    def entries(
        self,
        *,
        provider: str | None = None,
        fmt: str | None = None,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Every stored artefact, newest work first, optionally of one provider / format
        and of the works in ``collections`` with ``tags`` (:mod:`prioris.storage.labels`)."""
        source = source_of_provider(provider) if provider else None
        kept = self.catalog.works_in(collections, tags)
        with self.lock:
            rows = store.list_artefacts(self.conn, source=source, fmt=fmt)
        if kept is not None:
            rows = [row for row in rows if row.work_id in kept]
        return [
            {
                "provider": provider_of_source(r.source),
                "identifier": reference_identifier(r.work_id),
                "format": r.format,
                "artefact": r.artefact,
                "fetched_at_or_parsed_at": r.stored_at,
                "size_bytes": r.size_bytes,
                "work_id": r.work_id,
                "title": r.title,
            }
            for r in rows
        ]

    def works(
        self,
        *,
        provider: str | None,
        fmt: str | None,
        offset: int,
        limit: int,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> tuple[int, list[dict[str, Any]]]:
        """(how many works hold an artefact matching the filters, a page of those works);
        ``collections`` and ``tags`` keep the works in them."""
        catalog = self.catalog
        labelled = {"collections": collections, "tags": tags}
        if provider is None and fmt is None:
            if catalog.works_in(collections, tags) is None:
                return catalog.status()["works"], catalog.list_works(limit=limit, offset=offset)
            rows = catalog.list_works(**labelled)
            return len(rows), rows[offset : offset + limit]
        matching = {row["work_id"] for row in self.entries(provider=provider, fmt=fmt)}
        rows = [row for row in catalog.list_works(**labelled) if row["id"] in matching]
        return len(rows), rows[offset : offset + limit]

    def entries_of(self, work_ids: Sequence[str]) -> list[dict[str, str]]:
        """One ``artefact: all`` entry per stored format of each work (what deleting it
        whole removes)."""
        wanted = set(work_ids)
        seen: dict[tuple[str, str], dict[str, str]] = {}
        for row in self.entries():
            if row["work_id"] in wanted:
                key = (row["work_id"], row["format"])
                seen.setdefault(
                    key,
                    {
                        "provider": row["provider"],
                        "identifier": row["identifier"],
                        "format": row["format"],
                        "artefact": "all",
                    },
                )
        return list(seen.values())

    def delete(
        self, entries: Sequence[dict[str, str]]
    ) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
        """Delete each ``{provider, identifier, format, artefact}`` that exists; the rest
        come back as not found. One missing entry never stops the others."""
        deleted: list[dict[str, str]] = []
        missing: list[dict[str, str]] = []
        for entry in entries:
            (deleted if self._delete_one(entry) else missing).append(dict(entry))
        return deleted, missing

    def _delete_one(self, entry: dict[str, str]) -> bool:
        artefact = entry.get("artefact", "all")
        if artefact not in ARTEFACT_CHOICES:
            raise InvalidRequestError(
                f"artefact {artefact!r} is not one of {', '.join(ARTEFACT_CHOICES)}"
            )
        try:
            work_id = self.resolve(entry["provider"], entry["identifier"])
        except NotFoundError:
            return False
        if self.name_of(work_id)[0] != entry["provider"]:
            return False
        fmt = entry["format"]
        with self.lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                removed = False
                if artefact in ("document", "all"):
                    removed |= store.delete_document(conn, work_id, fmt)
                if artefact in ("markdown", "all"):
                    removed |= store.delete_markdown(conn, work_id, fmt)
                if removed:
                    store.remove_if_empty(conn, work_id)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return removed

    def delete_works(self, ids: Sequence[str]) -> tuple[list[dict[str, str]], list[str]]:
        """Delete whole works (every id checked first): (their entries, their work ids)."""
        work_ids = list(dict.fromkeys(self.catalog.resolve_work_id(i) for i in ids))
        entries = self.entries_of(work_ids)
        return entries, self.catalog.delete(work_ids)

    # -- reading -----------------------------------------------------------------------
    def read(
        self,
        identifier: str,
        *,
        provider: str | None = None,
        fmt: str | None = None,
        page: int | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """A slice of a stored work's text in format ``fmt`` (default: the indexed one), with
        PriorisMCP's names for it (see :meth:`StoredText.read`)."""
        work_id = self.resolve(provider, identifier)
        view = self.text.read(work_id, fmt=fmt, page=page, offset=offset, limit=limit)
        provider_name, ref = self.name_of(work_id)
        view.update(
            provider=provider_name,
            identifier=ref,
            resource_uri=resource_uri(provider_name, ref, view["format"], "markdown"),
        )
        return view

    def document(self, work_id: str, fmt: str) -> dict[str, Any] | None:
        """The stored document of format ``fmt`` (metadata, no bytes), if any."""
        with self.lock:
            documents = document_store.documents_of(self.conn, work_id)
        matching = [asdict(d) for d in documents if d.format == fmt]
        return matching[-1] if matching else None

    # -- fetching ----------------------------------------------------------------------
    def fetch(self, identifier: str, fmt: str | None) -> dict[str, Any]:
        """Fetch one work (a PriorisError when that fails) and describe what is stored:
        PriorisMCP's ``{location, format, size_bytes, served_from_storage, resource_uri}``
        beside Prioris's ingest result."""
        result = self.fetch_one(identifier, format=fmt)
        served = result.status == "skipped" and result.reason == "already in the library"
        return {**self.describe(result.id, fmt, served=served), "result": result}

    def describe(self, work_id: str, fmt: str | None, *, served: bool) -> dict[str, Any]:
        """PriorisMCP's fetch fields for the work's stored document of format ``fmt``
        (default: the one its text was parsed from)."""
        provider_name, ref = self.name_of(work_id)
        fmt = fmt or self._stored_format(work_id)
        document = self.document(work_id, fmt) if fmt else None
        if document is None:  # stored without full text (metadata and abstract only)
            fmt = store.METADATA_FORMAT
            size, kind = 0, "markdown"
        else:
            size, kind = int(document["size_bytes"]), "fulltext"
        return {
            "location": f"{provider_name}:{ref}:{fmt}",
            "format": fmt,
            "size_bytes": size,
            "served_from_storage": served,
            "resource_uri": resource_uri(provider_name, ref, fmt, kind),
        }

    def _stored_format(self, work_id: str) -> str | None:
        with self.lock:
            return store.markdown_format(self.conn, work_id)

    # -- searching ---------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        provider: str | None = None,
        identifier: str | None = None,
        fmt: str | None = None,
        mode: str = "fts",
        syntax: str = "fts5",
        k: int | None = None,
        chunks: bool = True,
        source: str | None = None,
        from_year: int | None = None,
        to_year: int | None = None,
        ids: Sequence[str] | None = None,
        include_undated: bool = False,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> tuple[SearchResponse, list[dict[str, Any]]]:
        """Search scoped by PriorisMCP's provider / identifier / format (and Prioris's own
        filters, collections and tags among them); returns the response and its hits as
        PriorisMCP matches."""
        if identifier is not None and provider is None:
            raise InvalidRequestError("identifier requires provider")
        if provider is not None:
            provider_source = source_of_provider(provider)
            if source is not None and source != provider_source:
                raise InvalidRequestError(f"source {source!r} contradicts provider {provider!r}")
            source = provider_source
        if source is not None:
            self.catalog.check_source(source)
        scope: set[str] | None = None
        if ids:
            scope = {self.catalog.resolve_work_id(i) for i in ids}
        if identifier is not None:
            try:
                found = {self.resolve(provider, identifier)}
            except NotFoundError:
                found = set()  # nothing stored under that name: no matches, not an error
            scope = found if scope is None else scope & found
        if fmt is not None:
            with self.lock:
                of_format = set(store.works_with_markdown_format(self.conn, fmt))
            scope = of_format if scope is None else scope & of_format
        filters = SearchFilters(
            source=source,
            from_year=from_year,
            to_year=to_year,
            work_ids=None if scope is None else tuple(sorted(scope)),
            include_undated=include_undated,
            collections=filter_names(collections, "collection"),
            tags=filter_names(tags, "tag"),
        )
        response = self.searcher.search(
            query, mode=mode, k=k, chunks=chunks, filters=filters, syntax=syntax
        )
        with self.lock:
            formats = store.markdown_formats(self.conn, [h.id for h in response.hits])
        matches = [
            {
                "provider": provider_of_source(hit.source or ""),
                "identifier": reference_identifier(hit.id),
                "format": formats.get(hit.id, store.METADATA_FORMAT),
                "snippet": hit.snippet,
                "offset": hit.offset or 0,
                "score": -hit.score,  # PriorisMCP's bm25 reading: lower is better
            }
            for hit in response.hits
        ]
        return response, matches
