"""Enrichment wired to the library: provider records merged into works and kept beside them.

:class:`EnrichmentService` is what :class:`~prioris.library.Library` delegates to. At
ingest, :meth:`~EnrichmentService.complete` merges the provider's record into a parsed
PDF's work before it is stored, so the index gets the provider's title and year. For works
already stored, :meth:`~EnrichmentService.enrich` does the same and carries the new title
and year into the FTS and vector indexes. Either way the ``printed`` record (what the PDF
said) and the provider's record are both kept in ``work_records``; the ``works`` row is
the merge by :mod:`prioris.provenance`: a provider wins over what was printed, the
user's corrections win over both. Provider calls go through
:class:`~prioris.sources.enrich.ProviderLookup` (the rate-limited clients); a provider
that cannot be reached changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from prioris.errors import NotFoundError
from prioris.models import Work
from prioris.provenance import WORK_FIELDS
from prioris.sources.enrich import ProviderLookup, merge_provider, provider_record, same_paper
from prioris.storage import chunks as chunk_store
from prioris.storage import records as record_store
from prioris.storage import works as work_store
from prioris.storage.merged import apply_records

REPORTED_FIELDS = ("title", "authors", "year", "venue", "abstract")


class EnrichmentService:
    """Provider lookups for stored and about-to-be-stored works (one library connection)."""

    def __init__(
        self,
        conn: Any,
        lock: AbstractContextManager[Any],
        lookup: ProviderLookup,
        now: Callable[[], str],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.lookup = lookup
        self.now = now

    def complete(self, prepared: Any) -> None:
        """Merge the provider's record into a prepared PDF's work (before its commit)."""
        found = self.lookup.lookup(prepared.work.aliases)
        if found.work is None or found.provider is None:
            return
        printed = prepared.records.get("printed", {}).get("title")
        if not same_paper(printed, found.work.title):
            return  # the identifier on the page was another paper's
        prepared.work = merge_provider(prepared.work, found.work)
        prepared.records[found.provider] = provider_record(found.work)
        prepared.result.enriched = found.provider

    def enrichable_ids(self) -> list[str]:
        """Works that carry a DOI or an arXiv id, oldest first."""
        with self.lock:
            rows = self.conn.execute(
                "SELECT w.id FROM works w WHERE w.id LIKE 'doi:%' OR w.id LIKE 'arxiv:%' "
                "OR EXISTS (SELECT 1 FROM aliases a WHERE a.work_id = w.id "
                "AND (a.alias LIKE 'doi:%' OR a.alias LIKE 'arxiv:%')) "
                "ORDER BY w.created_at, w.rowid"  # insertion order within a second
            ).fetchall()
        return [row[0] for row in rows]

    def enrich(
        self,
        work_ids: Sequence[str] | None = None,
        *,
        on_done: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Enrich stored works (all enrichable ones when ``work_ids`` is None).

        Each report: ``id``, ``status`` (``enriched``, ``not_found``, ``mismatch`` when
        the provider's title is another paper's, ``unavailable``, ``no_identifier``),
        ``provider``, ``provider_id``, ``message`` and ``changed`` (the bibliographic
        fields the provider's record changed).
        """
        work_ids = self.enrichable_ids() if work_ids is None else list(work_ids)
        with self.lock:
            aliases = [[i, *work_store.aliases_of(self.conn, i)] for i in work_ids]
        self.lookup.prefetch(aliases)  # arXiv in batches, not one request 3 s apart per work
        reports = []
        for work_id in work_ids:
            report = self._enrich_one(work_id)
            if report is None:
                continue  # deleted meanwhile
            reports.append(report)
            if on_done:
                on_done(work_id, report)
        return reports

    def _enrich_one(self, work_id: str) -> dict[str, Any] | None:
        with self.lock:
            work = work_store.get_work(self.conn, work_id)
        if work is None:
            return None
        found = self.lookup.lookup([work.id, *work.aliases])
        report: dict[str, Any] = {"id": work_id, **found.to_dict(), "changed": []}
        if found.work is None or found.provider is None:
            return report
        printed = self.records(work_id).get("printed", {}).get("title", work.title)
        if not same_paper(printed, found.work.title):
            report["status"] = "mismatch"
            report["message"] = (
                f"{found.provider} has {found.work.title!r} for this identifier, not the "
                f"printed title {printed!r}; left unchanged"
            )
            return report
        with self.lock:  # identifiers the reply names that are other works': never moved
            conflicts = work_store.alias_conflicts(self.conn, work_id, found.work.aliases)
        if conflicts:
            report["conflicts"] = conflicts
        merged = merge_provider(work, found.work)
        report["status"] = "enriched"
        stored = self._store(merged, found.provider, provider_record(found.work))
        report["changed"] = [
            name for name in REPORTED_FIELDS if getattr(stored, name) != getattr(work, name)
        ]
        return report

    def _store(self, work: Work, provider: str, record: dict[str, Any]) -> Work:
        """Keep the provider's record and merge the work's records again (the user's
        corrections still win: :mod:`prioris.provenance`); returns the stored work."""
        now = self.now()
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                stored = work_store.get_work(self.conn, work.id)
                if stored is None:
                    raise NotFoundError(f"no work {work.id}")  # deleted meanwhile
                # the bibliographic fields come from the merge below, the rest from here
                kept = {name: getattr(stored, name) for name in WORK_FIELDS}
                work_store.replace_fields(
                    self.conn, replace(work, **kept, origins=stored.origins), now
                )
                record_store.save_records(self.conn, work.id, {provider: record}, now)
                stored = apply_records(self.conn, work.id, now)
                chunk_store.update_work_fields(self.conn, work.id, stored.title, stored.year)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return stored

    def records(self, work_id: str) -> dict[str, dict[str, Any]]:
        """``{origin: record}``: what the PDF printed and what each provider said."""
        with self.lock:
            return record_store.records_of(self.conn, work_id)
