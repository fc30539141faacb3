"""Reading a stored work's text one page at a time, in any format it stores.

A work indexes the Markdown of one document; its other stored formats are parsed again
from their bytes when read (:mod:`prioris.rendering`; the last few kept in memory). The
page follows PriorisMCP's rules: ``page`` is a PDF page (another format has none:
invalid_request), a page or format that is not there is not_found, an offset past the end
reads as an empty slice, and ``total_pages`` / ``page_range`` are null for non-PDF text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.ingest.ocr import OcrEngine
from prioris.ingest.prepared import assemble_markdown
from prioris.services.catalog import Catalog
from prioris.storage import artefacts as store
from prioris.storage import documents as document_store
from prioris.storage.markdown import load_markdown, markdown_view

DEFAULT_PAGE_CHARS = 20_000  # PriorisMCP's default parse limit (PRIORIS_MCP_MAX_INLINE_CHARS)
RENDER_CACHE = 4
Spans = list[tuple[int, int, int]]


class StoredText:
    """Pages of the texts one library stores, through its connection and lock."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        catalog: Catalog,
        *,
        ocr: OcrEngine | None,
        ocr_mode: str,
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.catalog = catalog  # titles and stored bytes
        self.ocr = ocr  # for a scanned PDF read in another format than the indexed one
        self.ocr_mode = ocr_mode
        self._rendered: OrderedDict[str, tuple[str, Spans]] = OrderedDict()
        self._rendered_lock = threading.Lock()  # worker threads share the cache

    def read(
        self,
        work_id: str,
        *,
        fmt: str | None = None,
        page: int | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """A slice of a stored work's text in format ``fmt`` (default: the indexed one).

        Pages are PDF pages, so ``page`` with another format is invalid_request; a page the
        document does not have, or a format not stored, is not_found. ``offset`` past the
        end gives an empty slice, as in PriorisMCP.
        """
        with self.lock:
            indexed = store.markdown_format(self.conn, work_id)
            documents = document_store.documents_of(self.conn, work_id)
        fmt = fmt or indexed or (documents[0].format if documents else None)
        if fmt is None:
            raise NotFoundError(f"{work_id} has no stored text")
        if page is not None and fmt != "pdf":
            raise InvalidRequestError(
                f"page is for PDF documents only; the {fmt} text of {work_id} has no pages "
                "(use offset and limit)"
            )
        if fmt == indexed:
            with self.lock:
                title, markdown, spans = load_markdown(self.conn, work_id)
        else:
            stored = [d for d in documents if d.format == fmt]
            if not stored:
                have = sorted({d.format for d in documents} | ({indexed} if indexed else set()))
                raise NotFoundError(
                    f"{work_id} has no stored {fmt!r} text (stored: {', '.join(have) or 'none'}); "
                    "fetch that format first"
                )
            title = self.catalog.get_work(work_id).title
            markdown, spans = self.render(stored[-1].sha256, fmt)
        if page is not None and not any(number == page for number, _, _ in spans):
            raise NotFoundError(f"page {page} does not exist; {work_id} has {len(spans)} page(s)")
        limit = DEFAULT_PAGE_CHARS if limit is None else limit
        view = markdown_view(
            work_id,
            title,
            markdown,
            spans,
            page=page,
            offset=self._clamp(offset, markdown, spans, page),
            limit=limit,
        )
        paged = fmt == "pdf"
        stop = view["offset"] + len(view["markdown"])
        view.update(
            format=fmt,
            total_pages=len(spans) if paged else None,
            page_range=_page_range(spans, view["offset"], stop) if paged else None,
        )
        return view

    @staticmethod
    def _clamp(offset: int | None, markdown: str, spans: Spans, page: int | None) -> int | None:
        """An offset past the end of the page (or text) reads as the end: an empty slice."""
        if offset is None or offset < 0:
            return offset
        if page is None:
            return min(offset, len(markdown))
        start, end = next((s, e) for number, s, e in spans if number == page)
        return min(offset, end - start)

    def render(self, sha256: str, fmt: str) -> tuple[str, Spans]:
        """Markdown and page spans of a stored document parsed again (a few kept cached)."""
        with self._rendered_lock:
            cached = self._rendered.get(sha256)
            if cached is not None:
                self._rendered.move_to_end(sha256)
                return cached
        from prioris.rendering import render_pages

        pages = render_pages(
            fmt, self.catalog.document_bytes(sha256), ocr=self.ocr, ocr_mode=self.ocr_mode
        )
        markdown, page_spans = assemble_markdown(pages)
        rendered = (markdown, [(p.number, start, end) for p, start, end in page_spans])
        with self._rendered_lock:
            self._rendered[sha256] = rendered
            while len(self._rendered) > RENDER_CACHE:
                self._rendered.popitem(last=False)
        return rendered


def _page_range(spans: Spans, start: int, stop: int) -> list[int] | None:
    """[first, last] PDF page the slice ``start:stop`` touches."""
    if not spans:
        return None
    last_char = max(start, stop - 1)
    first = next((n for n, s, e in reversed(spans) if s <= start), spans[0][0])
    last = next((n for n, s, e in reversed(spans) if s <= last_char), first)
    return [first, max(first, last)]
