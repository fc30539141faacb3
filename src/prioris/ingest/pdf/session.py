"""One PDF open in a parser process, seen from the parent: limits, deadline, requests.

:class:`Session` turns the replies of :mod:`prioris.ingest.pdf.worker` into values and
Prioris errors, every request bounded by what is left of the file's :class:`Deadline`;
:class:`PdfLimits` are the bounds a parse runs under (the ``PRIORIS_MCP_PDF_*`` settings).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from prioris.errors import FileTooLargeError, ParseError
from prioris.ingest.header.layout import HeaderLine, HeaderPage, Span
from prioris.ingest.pdf.layout import Block, Line, PageLayout
from prioris.ingest.pdf.process import DeadlineExceeded, PdfProcess

OCR_DPI = 300
MAX_RENDER_SIDE_PX = 6000  # caps the OCR image of posters and oversized pages


@dataclass(frozen=True)
class PdfLimits:
    """Bounds on the work one PDF may cause (settings ``PRIORIS_MCP_PDF_*``, docs/security.md).

    The time limit covers the whole parse, OCR included, and is enforced inside a page too:
    MuPDF runs in a child process that is killed when it passes. The memory limit is what
    that process may allocate for one file. The per-page limits refuse a page from its
    counted cost before MuPDF runs it (:mod:`prioris.ingest.pdf.budget`).
    """

    time_limit_seconds: float = 300.0
    memory_limit_bytes: int = 768 << 20
    max_pages: int = 2000
    max_page_operations: int = 1_000_000
    max_page_text_runs: int = 100_000
    max_page_chars: int = 200_000
    max_text_chars: int = 5_000_000

    @classmethod
    def from_settings(cls, settings: Any) -> PdfLimits:
        return cls(
            time_limit_seconds=settings.pdf_time_limit_seconds,
            memory_limit_bytes=settings.pdf_memory_limit_bytes,
            max_pages=settings.pdf_max_pages,
            max_page_operations=settings.pdf_max_page_operations,
            max_page_text_runs=settings.pdf_max_page_text_runs,
            max_page_chars=settings.pdf_max_page_chars,
            max_text_chars=settings.pdf_max_text_chars,
        )


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.total = 0
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def error(self, done: int) -> ParseError:
        return ParseError(
            f"parsing the PDF exceeded the {self.seconds:g} s parse time limit "
            f"(stopped after {done} of {self.total} pages; PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS)"
        )

    def check(self, done: int) -> None:
        if time.monotonic() > self.end:
            raise self.error(done)


class PageUnreadable(Exception):
    """MuPDF failed on one page; the rest of the document may still be fine."""


class Session:
    """One document open in a parser process, every call bounded by the deadline."""

    def __init__(self, worker: PdfProcess, deadline: Deadline) -> None:
        self.worker = worker
        self.deadline = deadline
        self.done = 0  # pages finished, for the time-limit message

    def call(
        self, header: dict[str, Any], payload: bytes | None = None
    ) -> tuple[Any, bytes | None]:
        try:
            reply, data = self.worker.request(header, payload, timeout=self.deadline.remaining())
        except DeadlineExceeded:
            raise self.deadline.error(self.done) from None
        error = reply.get("error")
        if error is None:
            return reply.get("ok"), data
        if reply.get("fatal"):
            self.worker.kill()
        if reply.get("page_error"):
            raise PageUnreadable(error["message"])
        if error.get("code") == "file_too_large":
            raise FileTooLargeError(error["message"])
        raise ParseError(error["message"])

    def open(self, data: bytes, limits: PdfLimits) -> dict[str, Any]:
        header = {
            "op": "open",
            "memory_limit": limits.memory_limit_bytes,
            "max_pages": limits.max_pages,
            "max_page_operations": limits.max_page_operations,
            "max_page_text_runs": limits.max_page_text_runs,
            "max_page_chars": limits.max_page_chars,
        }
        info, _ = self.call(header, data)
        return info

    def page(self, index: int) -> dict[str, Any]:
        info, _ = self.call({"op": "page", "index": index})
        return info

    def header(self, index: int) -> HeaderPage:
        """The page's lines with their fonts, for the header parser."""
        info, _ = self.call({"op": "header", "index": index})
        return header_from_reply(info)

    def render(self, index: int) -> bytes | None:
        """The page as a ~300 dpi grayscale PNG, or None when the page is blank."""
        _, png = self.call(
            {"op": "render", "index": index, "dpi": OCR_DPI, "max_side": MAX_RENDER_SIDE_PX}
        )
        return png


def header_from_reply(info: dict[str, Any]) -> HeaderPage:
    lines = [
        HeaderLine(tuple(Span(*span) for span in spans), *rest) for spans, *rest in info["lines"]
    ]
    return HeaderPage(lines, float(info["width"]), float(info["height"]))


def layout_from_reply(info: dict[str, Any]) -> PageLayout:
    blocks = [Block([Line(*line) for line in block]) for block in info["blocks"]]
    return PageLayout(blocks, float(info["height"]))
