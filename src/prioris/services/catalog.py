"""The works a library stores: finding, reading, browsing, exporting and deleting them.

Every read and every delete goes through the library's one connection under its lock
(worker threads share the library), so this service takes the two instead of opening its
own. Nothing here fetches or parses: a work not stored is not_found.

The collection and tag filter's plumbing is :mod:`prioris.services.catalog_labels`, the
text of exports and citations :mod:`prioris.services.catalog_export`, and the name a
stored original is downloaded under :mod:`prioris.services.downloads` (``download_name``
is still importable from here).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from prioris.embedding.base import Embedder
from prioris.errors import InvalidRequestError, NotFoundError, PriorisError, ShardUnavailableError
from prioris.models import Work
from prioris.services.catalog_export import check_format, cite_works, render_export
from prioris.services.catalog_labels import filter_names, label_condition, with_labels
from prioris.services.citation_keys import work_by_citation_key
from prioris.services.downloads import download_name
from prioris.storage import documents as document_store
from prioris.storage import labels as label_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage import works as work_store
from prioris.storage.backend import StorageBackend
from prioris.storage.markdown import load_markdown, markdown_view
from prioris.strings import without_surrogates


def suggestions(counts: dict[str, int]) -> list[str]:
    """What ``status`` advises, from its counts: works a citation would call ``anon`` or
    ``n.d.`` are completed by ``enrich`` (from their DOI or arXiv id), so say how many."""
    lacking = counts.get("works_incomplete", 0)
    if not lacking:
        return []
    return [
        f"{lacking} work(s) without authors or year ({counts.get('works_without_authors', 0)} "
        f"without authors, {counts.get('works_without_year', 0)} without year): "
        "`prioris enrich` completes those with a DOI or arXiv id from their providers; "
        "`prioris edit` sets the others"
    ]


class Catalog:
    """Stored works through one connection, under the library's lock."""

    def __init__(
        self, conn: Any, lock: threading.RLock, *, embedder: Embedder, storage: StorageBackend
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.embedder = embedder  # its model and size, for status
        self.storage = storage  # its location and size on disk, for status

    # -- finding ---------------------------------------------------------------------
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
            found = work_by_citation_key(self.conn, text)
            if found:
                return found
        raise NotFoundError(f"no work {text!r} in the library")

    def check_source(self, source: str) -> None:
        """A ``source`` filter must be one a work can have (else invalid_request, listing
        the known ones)."""
        with self.lock:
            work_store.check_source(self.conn, source)

    def get_work(self, text: str) -> Work:
        with self.lock:
            work = work_store.get_work(self.conn, self.resolve_work_id(text))
        assert work is not None
        return work

    def known_aliases(self, aliases: Sequence[str]) -> set[str]:
        """Which ids/aliases already belong to a stored work (used by discovery)."""
        with self.lock:
            return work_store.known_aliases(self.conn, aliases)

    # -- listing and counting --------------------------------------------------------
    def list_works(
        self,
        *,
        limit: int | None = None,
        offset: int = 0,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Works newest first, each with its ``collections`` and ``tags``; ``limit`` and
        ``offset`` must not be negative. ``collections`` (any of them, subcollections
        included) and ``tags`` (all of them) filter (:mod:`prioris.storage.labels`)."""
        if limit is not None and limit < 0:
            raise InvalidRequestError(f"limit must be 0 or more, got {limit}")
        if offset < 0:
            raise InvalidRequestError(f"offset must be 0 or more, got {offset}")
        if limit is not None:
            limit = min(limit, work_store.SQLITE_MAX_INT)  # past every row anyway
        offset = min(offset, work_store.SQLITE_MAX_INT)
        with self.lock:
            where = label_condition(self.conn, collections, tags)
            rows = work_store.list_works(self.conn, limit=limit, offset=offset, where=where)
            return with_labels(self.conn, rows)

    # -- collections and tags ----------------------------------------------------------
    def works_in(
        self,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> set[str] | None:
        """The ids of the works a collection and tag filter keeps; None without one."""
        with self.lock:
            return label_store.works_in(self.conn, **filter_names(collections, tags))

    def labels(self, text: str) -> dict[str, list[str]]:
        """A work's ``{"collections": [...], "tags": [...]}`` (every source's)."""
        with self.lock:
            return label_store.labels_of(self.conn, self.resolve_work_id(text))

    def collection_counts(self) -> list[tuple[str, int]]:
        """``[(path, works)]`` in path order, parents included: the collection facet."""
        with self.lock:
            return label_store.collection_counts(self.conn)

    def tag_counts(self) -> list[tuple[str, int]]:
        """``[(tag, works)]``, most used first: the tag facet."""
        with self.lock:
            return label_store.tag_counts(self.conn)

    def unmatched_labels(
        self,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> list[str]:
        """Why a collection or tag filter may find nothing: one message per name that no
        stored label matches, with the closest known ones (a filter that matches nothing
        is not an error, so interfaces show these as notes)."""
        with self.lock:
            found = label_store.unmatched(self.conn, **filter_names(collections, tags))
        return [*found["collections"], *found["tags"]]

    def browse(
        self,
        *,
        sort: str = "added",
        descending: bool = True,
        text: str | None = None,
        source: str | None = None,
        limit: int = 100,
        offset: int = 0,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """One page of works sorted (added, year, title) and filtered (text, source,
        collections, tags), with their counts, collections and tags."""
        from prioris.storage.browse import browse_works

        with self.lock:
            page = browse_works(
                self.conn,
                sort=sort,
                descending=descending,
                text=text,
                source=source,
                limit=limit,
                offset=offset,
                where=label_condition(self.conn, collections, tags),
            )
            return {**page, "works": with_labels(self.conn, page["works"])}

    def year_source_counts(self) -> list[dict[str, Any]]:
        """Works per (year, source): what the status plot draws."""
        from prioris.storage.browse import year_source_counts

        with self.lock:
            return year_source_counts(self.conn)

    def paginated_works(self, work_ids: Sequence[str]) -> set[str]:
        """Works whose page numbers are real (indexed from a PDF), for showing "p. N"."""
        with self.lock:
            return document_store.paginated_works(self.conn, work_ids)

    def status(self) -> dict[str, Any]:
        """Counts, index state, model and file size (``prioris status --json``)."""
        try:
            with self.lock:
                counts = work_store.library_counts(self.conn)
                counts["stale_works"] = work_vector_store.count_missing(
                    self.conn, self.embedder.model_id
                )
        except ShardUnavailableError as exc:  # the shards' lines below say which is down
            counts = {"counts_unavailable": exc.message}
        return {
            **counts,
            "model": self.embedder.model_id,
            "dim": self.embedder.dim,
            "db": self.storage.display(),
            "size_bytes": self.storage.size_bytes(),
            "suggestions": suggestions(counts) if "works" in counts else [],
            **self.storage.servers(),
        }

    # -- reading ---------------------------------------------------------------------
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

    def notes(self, text: str) -> list[dict[str, Any]]:
        """The researcher's notes and highlights on a work (from a reference manager), in
        page order: kind, text, comment, colour, page label and page."""
        from prioris.storage.notes import notes_of

        with self.lock:
            return notes_of(self.conn, self.resolve_work_id(text))

    def original(self, text: str) -> tuple[Work, list[dict[str, Any]]]:
        """A work's stored documents (metadata only; bytes via :meth:`document_bytes`)."""
        work = self.get_work(text)
        with self.lock:
            docs = document_store.documents_of(self.conn, work.id)
        return work, [{**asdict(d), "name": download_name(work, d)} for d in docs]

    def document_bytes(self, sha256: str) -> bytes:
        with self.lock:
            data = document_store.get_blob(self.conn, sha256)
        if data is None:
            raise NotFoundError(f"no stored document {sha256}")
        return data

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

    def export(
        self,
        ids: Sequence[str] | None,
        fmt: str,
        style: str | None = None,
        *,
        allow_style_file: bool = False,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> str:
        """Citations of the given works (all works when ``ids`` is empty) as text.

        ``style`` names the CSL style of the ``text`` format (default ``apa``);
        ``allow_style_file`` lets it be a path to a ``.csl`` file (the CLI, whose user owns
        the files; never the web or MCP). ``collections`` and ``tags`` keep the works in
        them (of ``ids``, or of the library); ``jsonl`` records carry each work's
        ``collections`` and ``tags``."""
        check_format(fmt)
        works = self._export_works(ids, collections, tags)
        return render_export(
            self.conn, self.lock, works, fmt, style, allow_style_file=allow_style_file
        )

    def cite(
        self, ids: Sequence[str], style: str | None = None, fmt: str | None = None
    ) -> dict[str, Any]:
        """Each work's citation, ready to paste: formatted in a CSL ``style`` (default
        ``apa``), or as one ``bibtex`` / ``ris`` / ``csl-json`` entry when ``fmt`` is given.

        Returns ``{"format", "style", "items": [{"id", "key", "citation"}], "text"}``;
        ``text`` is every citation together (a reference list or a .bib file)."""
        if not ids:
            raise InvalidRequestError("give at least one work id to cite")
        return cite_works(self.conn, self.lock, self._export_works(ids), style, fmt or "text")

    def _export_works(
        self,
        ids: Sequence[str] | None,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
    ) -> list[Work]:
        with self.lock:
            if ids:
                works = [self.get_work(i) for i in dict.fromkeys(ids)]
                kept = self.works_in(collections, tags)
                return works if kept is None else [w for w in works if w.id in kept]
            where = label_condition(self.conn, collections, tags)
            listed = [row["id"] for row in work_store.list_works(self.conn, where=where)]
            return [w for w in (work_store.get_work(self.conn, i) for i in listed) if w]

    # -- deleting --------------------------------------------------------------------
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
