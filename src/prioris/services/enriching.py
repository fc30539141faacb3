"""Enrichment runs over stored works (:class:`~prioris.enrichment.EnrichmentService`),
keeping each changed work's own vector current as it goes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class Enriching:
    """``Library.enrich`` and ``Library.metadata_records``."""

    def __init__(
        self,
        enrichment: Callable[[], Any],
        resolve_work_id: Callable[[str], str],
        embed_work_vectors: Callable[[Sequence[str]], int],
    ) -> None:
        self.enrichment = enrichment  # the providers, built on first use
        self.resolve_work_id = resolve_work_id
        self.embed_work_vectors = embed_work_vectors

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

        reports = self.enrichment().enrich(work_ids, on_done=done)
        # and mend what an earlier, interrupted run left: every work seen, where missing
        self.embed_work_vectors([r["id"] for r in reports if r["status"] == "enriched"])
        return reports

    def metadata_records(self, text: str) -> dict[str, dict[str, Any]]:
        """What each source said about a work: ``printed`` (its PDF) and each provider."""
        return self.enrichment().records(self.resolve_work_id(text))
