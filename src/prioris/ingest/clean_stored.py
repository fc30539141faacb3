"""``prioris reindex --clean-text``: the text cleaning, applied to works already stored.

A library made before :mod:`prioris.text_clean` keeps control characters, TeX spacing
accents and ligatures in its Markdown, its passages and its works' titles, abstracts and
names. Its documents need not be fetched or parsed again: the cleaning works on the
stored Markdown, page by page, so each work's text is cleaned where it lies, its page
spans recomputed, and, only where something changed, its passages re-chunked and
re-embedded and its fields updated, all in one transaction per work. A stopped run
resumes where it stopped by running it again: a clean work is left as it is (the
cleaning is idempotent), so the second run only does what the first did not.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from prioris.ingest.pipeline import IngestPipeline
from prioris.models import Page
from prioris.storage import documents as document_store
from prioris.storage import works as work_store
from prioris.text_clean import clean_text, clean_work

Progress = Callable[[int, int], None]
_FIELDS = ("title", "authors", "venue", "abstract")


@dataclass
class CleanSummary:
    """What a run did: works looked at, works whose text or fields changed, passages."""

    works: int = 0
    cleaned: list[str] = field(default_factory=list)
    chunks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"works": self.works, "cleaned": len(self.cleaned), "chunks": self.chunks}


def _stored_pages(conn: Any, work_id: str, markdown: str) -> list[Page]:
    """The work's pages as its Markdown holds them (one page when no spans are stored)."""
    rows = conn.execute(
        "SELECT number, char_start, char_end, ocr FROM pages WHERE work_id = ? ORDER BY number",
        (work_id,),
    ).fetchall()
    if not rows:
        return [Page(1, markdown)] if markdown else []
    return [Page(int(r[0]), markdown[int(r[1]) : int(r[2])], bool(r[3])) for r in rows]


class StoredTextCleaner:
    """Cleans stored works through the ingest pipeline's chunker, embedder and writer."""

    def __init__(
        self, conn: Any, lock: AbstractContextManager[Any], pipeline: IngestPipeline
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.pipeline = pipeline

    def work_ids(self) -> list[str]:
        with self.lock:
            return [str(r[0]) for r in self.conn.execute("SELECT id FROM works ORDER BY id")]

    def run(self, on_progress: Progress | None = None) -> CleanSummary:
        """Every work in id order; ``on_progress(done, total)`` after each."""
        ids = self.work_ids()
        summary = CleanSummary()
        for number, work_id in enumerate(ids, start=1):
            chunks = self.clean_one(work_id)
            summary.works += 1
            if chunks is not None:
                summary.cleaned.append(work_id)
                summary.chunks += chunks
            if on_progress:
                on_progress(number, len(ids))
        return summary

    def clean_one(self, work_id: str) -> int | None:
        """Clean one work; its new passage count, or None when it was clean already (or
        was deleted meanwhile)."""
        with self.lock:
            work = work_store.get_work(self.conn, work_id)
            row = self.conn.execute(
                "SELECT markdown, markdown_sha256 FROM works WHERE id = ?", (work_id,)
            ).fetchone()
            if work is None or row is None:
                return None
            markdown, sha = row[0] or "", row[1]
            pages = _stored_pages(self.conn, work_id, markdown)
            document = None
            if sha is not None:
                document = next(
                    (d for d in document_store.documents_of(self.conn, work_id) if d.sha256 == sha),
                    None,
                )
        cleaned_pages = [Page(p.number, clean_text(p.text), p.ocr) for p in pages]
        cleaned = clean_work(work)
        text_changed = any(a.text != b.text for a, b in zip(pages, cleaned_pages, strict=True))
        fields_changed = any(getattr(work, f) != getattr(cleaned, f) for f in _FIELDS)
        if not text_changed and not fields_changed:
            return None
        prepared = self.pipeline.prepare_pages(cleaned, cleaned_pages, document=document)
        if markdown:
            self.pipeline.embed([prepared])
        return self.pipeline.writer.replace_text(
            prepared, fields=fields_changed, text=bool(markdown)
        )
