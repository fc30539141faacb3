"""PDF bytes -> Markdown pages and bibliographic hints, with per-page OCR and safety limits.

:func:`check_pdf_bytes` validates size and magic bytes before anything else touches the
data. :func:`extract_pdf` opens the bytes with MuPDF (pymupdf), reads every page's text
layer, decides per page whether that layer is usable (:func:`page_text_is_usable`), and
OCRs only the pages that need it (mode ``auto``: no usable text layer, or a few lines
of text such as a download stamp over a page-sized image), every page (``always``) or
none (``never``). A document is never all-or-nothing: good pages keep their text layer while a
scanned page next to them is OCR'd. Encrypted, damaged (MuPDF had to repair the
cross-reference table, which is also how a truncated download shows) or empty PDFs raise
:class:`ParseError`; every MuPDF exception is wrapped so a bad file fails alone.

OCR runs on several pages at once (tesseract is single-threaded per page) while pages
are rendered on the calling thread. The time limit is checked between pages and while
waiting for a page's OCR; a single page's text extraction inside MuPDF is not
interruptible, and a tesseract run is bounded by the engine's own per-page timeout.
Metadata extraction lives in :mod:`prioris.ingest.pdf_metadata` (the header layout in
:mod:`prioris.ingest.pdf_header`), text layer to Markdown
in :mod:`prioris.ingest.pdf_layout`.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from dataclasses import dataclass
from typing import TypeVar

import pymupdf

from prioris.errors import (
    FileTooLargeError,
    InvalidRequestError,
    OcrUnavailableError,
    ParseError,
    PriorisError,
)
from prioris.ingest.header_layout import read_header_page
from prioris.ingest.ocr import INSTALL_HINT, OcrEngine
from prioris.ingest.pdf_layout import (
    PageLayout,
    document_style,
    ocr_markdown,
    page_markdown,
    read_layout,
)
from prioris.ingest.pdf_metadata import PdfMetadata, pdf_metadata
from prioris.models import Page

PARSER_VERSION = "pdf-1"
OCR_MODES = ("auto", "always", "never")
OCR_DPI = 300
MAX_RENDER_SIDE_PX = 6000  # caps the OCR image of posters and oversized pages
SPARSE_TEXT_CHARS = 300  # less text than this over a page-sized image: OCR it anyway
SCAN_IMAGE_SHARE = 0.5
MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # readers accept junk before the header within the first KiB

log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass
class PdfContent:
    """A parsed PDF: one Markdown :class:`Page` per page, metadata, and how many were OCR'd."""

    pages: list[Page]
    metadata: PdfMetadata
    ocr_pages: int = 0


def _header_offset(data: bytes) -> int:
    offset = data.find(MAGIC, 0, MAGIC_WINDOW + len(MAGIC))
    if offset < 0:
        head = data[:16].decode("ascii", "replace")
        raise ParseError(
            f"not a PDF: no %PDF- header in the first {MAGIC_WINDOW} bytes "
            f"(the file starts with {head!r})"
        )
    return offset


def check_pdf_bytes(data: bytes, max_bytes: int) -> None:
    """Refuse files over ``max_bytes`` (FileTooLargeError) and non-PDFs (ParseError)."""
    if len(data) > max_bytes:
        raise FileTooLargeError(
            f"the PDF is {len(data)} bytes, over the {max_bytes}-byte limit "
            "(PRIORIS_MCP_MAX_FILE_BYTES)"
        )
    _header_offset(data)


_CID = re.compile(r"\(cid:\d+\)")
# U+FFFD, C0/C1 controls (not whitespace), surrogates, private use: unmapped glyphs.
_BAD_CHARS = re.compile(
    "[\ufffd\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff]"
)
_LETTERS = re.compile(r"[^\W\d_]")


def page_text_is_usable(text: str) -> bool:
    """Whether a text layer is real text, worth keeping instead of OCR.

    False for empty pages, glyph garbage from fonts without a Unicode mapping (``(cid:12)``
    tokens, U+FFFD, private-use or control characters), and layers with too few letters
    (such a font often maps to digits and punctuation: ``"7+%-``).
    """
    cids = len(_CID.findall(text))
    rest = _CID.sub(" ", text) if cids else text
    visible = len("".join(rest.split()))
    total = visible + cids
    if total == 0:
        return False
    bad = len(_BAD_CHARS.findall(rest))
    if (cids + bad) / total > 0.15:
        return False
    letters = len(_LETTERS.findall(rest))
    return letters >= 3 and letters / total >= 0.2


def _open(data: bytes) -> pymupdf.Document:
    start = _header_offset(data)
    try:
        doc = pymupdf.open(stream=data[start:], filetype="pdf")
    except Exception as exc:  # MuPDF raises FileDataError, RuntimeError, mupdf.FzError...
        raise ParseError(f"could not open the PDF: {exc}") from exc
    try:
        if doc.needs_pass:
            raise ParseError(
                "the PDF is encrypted and needs a password; save an unprotected copy to ingest it"
            )
        if doc.is_repaired:
            raise ParseError(
                "the PDF is damaged (broken cross-reference table or a truncated "
                "file); MuPDF could only partly repair it"
            )
        if doc.page_count < 1:
            raise ParseError("the PDF has no readable pages (broken page tree)")
    except PriorisError:
        doc.close()
        raise
    return doc


def _render_png(page: pymupdf.Page) -> bytes | None:
    """The page as a ~300 dpi grayscale PNG, or None when the page is blank."""
    rect = page.rect
    longest = max(rect.width, rect.height, 1.0)
    zoom = min(OCR_DPI / 72.0, MAX_RENDER_SIDE_PX / longest)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
    samples = pix.samples
    if not samples.strip(samples[:1]):  # one colour only (Pixmap.is_unicolor is slow)
        return None
    return pix.tobytes("png")


def _looks_scanned(page: pymupdf.Page, layout: PageLayout) -> bool:
    """A page with little text over an image covering most of it (a watermarked scan)."""
    if len(layout.plain_text()) >= SPARSE_TEXT_CHARS:
        return False
    area = abs(page.rect) or 1.0
    covered = max(
        (abs(pymupdf.Rect(info["bbox"]) & page.rect) for info in page.get_image_info()),
        default=0.0,
    )
    return covered / area >= SCAN_IMAGE_SHARE


class _Deadline:
    def __init__(self, seconds: float, total: int) -> None:
        self.seconds = seconds
        self.total = total
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def error(self, done: int) -> ParseError:
        return ParseError(
            f"parsing the PDF exceeded the {self.seconds:g} s parse time limit "
            f"(stopped after {done} of {self.total} pages)"
        )

    def check(self, done: int) -> None:
        if time.monotonic() > self.end:
            raise self.error(done)


def extract_pdf(
    data: bytes,
    *,
    ocr_mode: str = "auto",
    ocr: OcrEngine | None = None,
    time_limit_seconds: float = 300.0,
    progress: Callable[[int, int], None] | None = None,
    ocr_workers: int | None = None,
    on_ocr: Callable[[int, int], None] | None = None,
) -> PdfContent:
    """Parse PDF bytes into Markdown pages, OCR'ing pages as ``ocr_mode`` says.

    ``ocr_workers`` pages are OCR'd at once (default: the CPU count, at most 4); tesseract
    runs single-threaded per page, so pages in parallel is where the speed-up is.

    Raises ParseError for non-PDF, encrypted, damaged or empty files and when the time
    limit is exceeded. ``on_ocr(done, total)`` follows the pages sent to OCR alone, called
    before and after each (the web app shows OCR as its own stage). OcrUnavailableError
    when OCR is required (mode ``always``, or ``auto`` with no usable page at all) but no
    engine is given or it cannot run.
    """
    if ocr_mode not in OCR_MODES:
        raise InvalidRequestError(
            f"unknown OCR mode {ocr_mode!r}; accepted: {', '.join(OCR_MODES)}"
        )
    if ocr_mode == "always" and ocr is None:
        raise OcrUnavailableError(f"OCR mode 'always' needs an OCR engine; {INSTALL_HINT}")
    pymupdf.TOOLS.mupdf_display_errors(False)  # failures surface as ParseError instead
    doc = _open(data)
    try:
        workers = ocr_workers or min(4, os.cpu_count() or 1)
        return _extract(doc, ocr_mode, ocr, time_limit_seconds, progress, workers, on_ocr)
    finally:
        doc.close()


def _extract(
    doc: pymupdf.Document,
    ocr_mode: str,
    ocr: OcrEngine | None,
    time_limit_seconds: float,
    progress: Callable[[int, int], None] | None,
    ocr_workers: int,
    on_ocr: Callable[[int, int], None] | None = None,
) -> PdfContent:
    total = doc.page_count
    deadline = _Deadline(time_limit_seconds, total)
    layouts: list[PageLayout] = []
    for index in range(total):
        deadline.check(0)
        layouts.append(_guard(lambda i=index: read_layout(doc[i]), index))
    if doc.is_repaired:  # some damage only shows when the pages are loaded
        raise ParseError(
            "the PDF is damaged (broken cross-reference table or a truncated "
            "file); MuPDF could only partly repair it"
        )
    usable = [page_text_is_usable(layout.plain_text()) for layout in layouts]
    style = document_style(
        [layout for layout, ok in zip(layouts, usable, strict=True) if ok],
        layouts[0] if usable[0] else None,
    )

    unavailable: OcrUnavailableError | None = None
    if ocr is None and ocr_mode == "auto":
        unavailable = OcrUnavailableError(f"no OCR engine is configured; {INSTALL_HINT}")
    wanted = [ocr_mode == "always" or (ocr_mode == "auto" and not ok) for ok in usable]
    if ocr_mode == "auto" and ocr is not None:
        for index in range(total):
            if not wanted[index]:  # a stamp of text on a scanned page is not its content
                wanted[index] = _guard(lambda i=index: _looks_scanned(doc[i], layouts[i]), index)
    queue = _OcrQueue(doc, ocr, wanted, ocr_workers) if ocr is not None and any(wanted) else None
    ocr_failure: ParseError | None = None
    ocr_total, ocr_seen = (sum(wanted) if queue is not None else 0), 0
    pages: list[Page] = []
    try:
        for index in range(total):
            deadline.check(index)
            text, did_ocr = "", False
            if queue is not None and wanted[index] and unavailable is None:
                if on_ocr is not None:  # about to wait for this page's OCR
                    on_ocr(ocr_seen, ocr_total)
                try:
                    raw = queue.take(index, timeout=deadline.remaining())
                    if raw is not None:
                        text, did_ocr = ocr_markdown(raw), True
                except OcrUnavailableError as exc:
                    if ocr_mode == "always":
                        raise
                    unavailable = exc
                    queue.stop()
                except FutureTimeoutError:
                    raise deadline.error(index) from None
                except ParseError as exc:  # one page failing OCR must not sink the rest
                    log.warning("OCR failed on page %d: %s", index + 1, exc.message)
                    ocr_failure = exc
            if on_ocr is not None and queue is not None and wanted[index]:
                ocr_seen += 1
                on_ocr(ocr_seen, ocr_total)
            if not did_ocr and usable[index]:
                text = _guard(
                    lambda i=index: page_markdown(layouts[i], style, first_page=i == 0), index
                )
            pages.append(Page(number=index + 1, text=text, ocr=did_ocr))
            if progress is not None:
                progress(index + 1, total)
    finally:
        if queue is not None:
            queue.close()

    if not any(page.text.strip() for page in pages):
        if any(wanted) and unavailable is not None:
            raise OcrUnavailableError(
                f"the PDF has no usable text layer and OCR could not run: {unavailable.message}"
            )
        if ocr_failure is not None:
            raise ParseError(
                f"the PDF has no usable text layer and OCR failed: {ocr_failure.message}"
            )
        if ocr_mode == "never":
            raise ParseError(
                "the PDF has no usable text layer and OCR is disabled (OCR mode 'never')"
            )
    info = {key: (value or "") for key, value in (doc.metadata or {}).items()}
    metadata = pdf_metadata(
        info=info,
        xmp=_guard(doc.get_xml_metadata, 0) or "",
        header_pages=[  # the text layer of pages 1-2 with fonts, where it was used
            _guard(lambda i=i: read_header_page(doc[i]), i)
            if usable[i] and not pages[i].ocr
            else None
            for i in range(min(2, total))
        ],
        body_size=style.body_size,
        page_texts=[page.text for page in pages],
    )
    return PdfContent(pages=pages, metadata=metadata, ocr_pages=sum(p.ocr for p in pages))


class _OcrQueue:
    """OCR of the wanted pages, up to ``workers`` at once, results taken in page order.

    Pages are rendered on the calling thread (a MuPDF document is not thread-safe); only
    the engine runs in worker threads. Until one page has been OCR'd successfully a single
    page is in flight, so an engine that cannot run is asked once, not once per worker.
    """

    def __init__(
        self, doc: pymupdf.Document, engine: OcrEngine, wanted: list[bool], workers: int
    ) -> None:
        self.doc = doc
        self.engine = engine
        self.wanted = wanted
        self.workers = max(1, workers)
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ocr")
        self.pending: dict[int, Future[str] | None] = {}  # None: a blank page
        self.next = 0
        self.proven = False
        self.stopped = False

    def _fill(self) -> None:
        limit = self.workers if self.proven else 1
        while self.next < len(self.wanted) and not self.stopped:
            in_flight = sum(1 for f in self.pending.values() if f is not None and not f.done())
            if in_flight >= limit:
                return
            index = self.next
            self.next += 1
            if self.wanted[index]:
                png = _guard(lambda i=index: _render_png(self.doc[i]), index)
                self.pending[index] = (
                    None if png is None else self.pool.submit(self.engine.ocr_page, png)
                )

    def take(self, index: int, timeout: float) -> str | None:
        """The OCR text of page ``index`` (None for a blank page); engine errors propagate.

        Raises concurrent.futures.TimeoutError when the page is not done within ``timeout``.
        """
        self._fill()
        future = self.pending.pop(index, None)
        if future is None:
            return None
        try:
            text = future.result(timeout=timeout)
        except (PriorisError, FutureTimeoutError):
            raise
        except Exception as exc:  # an engine's own bug must not crash the whole ingest
            raise ParseError(f"OCR failed on page {index + 1}: {exc!r}") from exc
        self.proven = True
        self._fill()
        return text

    def stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _guard(work: Callable[[], _T], index: int) -> _T:
    """Run one page's MuPDF work, wrapping its exceptions as ParseError."""
    try:
        return work()
    except PriorisError:
        raise
    except Exception as exc:  # MuPDF's exception types vary by version and failure
        raise ParseError(f"could not read page {index + 1} of the PDF: {exc}") from exc
