"""Turn a stored original back into Markdown pages, the way it was parsed when fetched.

A work indexes the Markdown of one document; its other stored formats (an arXiv HTML
paper beside the PDF, say) are kept as bytes. Reading one of those, or re-indexing after
the Markdown was deleted, parses the bytes again: PDFs through the PDF reader (with OCR
as configured), arXiv HTML and JATS XML through the converters their provider clients
use, plain text as is. Nothing here stores anything.
"""

from __future__ import annotations

from prioris.errors import FormatUnavailableError
from prioris.ingest.ocr import OcrEngine
from prioris.models import Page


def render_pages(
    fmt: str,
    content: bytes,
    *,
    ocr: OcrEngine | None = None,
    ocr_mode: str = "auto",
    time_limit_seconds: float = 300.0,
) -> list[Page]:
    """Markdown pages of a stored document of format ``fmt`` (one page unless a PDF)."""
    if fmt == "pdf":
        from prioris.ingest.pdf.reader import extract_pdf

        return extract_pdf(
            content, ocr_mode=ocr_mode, ocr=ocr, time_limit_seconds=time_limit_seconds
        ).pages
    if fmt == "html":
        from prioris.sources.html_markdown import html_to_markdown

        _, markdown = html_to_markdown(content.decode("utf-8", errors="replace"))
    elif fmt == "xml":
        from prioris.sources.jats import jats_to_markdown

        markdown = jats_to_markdown(content).markdown
    elif fmt == "text":
        markdown = content.decode("utf-8", errors="replace")
    else:
        raise FormatUnavailableError(f"no reader for stored documents of format {fmt!r}")
    return [Page(1, markdown)]
