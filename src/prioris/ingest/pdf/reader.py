"""PDF bytes -> Markdown pages and bibliographic hints, with per-page OCR and safety limits.

:func:`check_pdf_bytes` (:mod:`prioris.ingest.pdf.magic`, re-exported here) validates size
and magic bytes before anything else touches the data. :func:`extract_pdf` hands the bytes
to a MuPDF parser process (:mod:`prioris.ingest.pdf.process`), reads every page's text
layer, decides per page whether that layer is usable (:func:`page_text_is_usable`), and OCRs
only the pages that need it (mode ``auto``: no usable text layer, or a few lines of text
such as a download stamp over a page-sized image), every page (``always``) or none
(``never``). A document is never all-or-nothing: good pages keep their text layer while a
scanned page next to them is OCR'd, and a page MuPDF cannot read is skipped with a warning.
Encrypted or unreadable PDFs, and PDFs that yield no text at all, raise :class:`ParseError`;
a PDF that MuPDF had to repair (a broken cross-reference table) is read with a warning in
:attr:`PdfContent.warnings`.

Hostile input is bounded by :class:`PdfLimits`: the page count, each page's counted work
(:mod:`prioris.ingest.pdf.budget`) and text, the whole document's text, the memory of the
parser process, and one time limit for the whole file that holds inside a page too (the
parser process is killed when it passes) and reaches the tesseract runs (they are given
what is left of it). OCR runs on several pages at once (tesseract is single-threaded per
page) while pages are rendered by the parser process
(:mod:`prioris.ingest.pdf.ocr_queue`). Metadata extraction lives in
:mod:`prioris.ingest.header.metadata` (the header layout in
:mod:`prioris.ingest.header.header`, read by the parser process), text layer to Markdown in
:mod:`prioris.ingest.pdf.layout`.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeoutError
from dataclasses import dataclass, field

from prioris.errors import (
    InvalidRequestError,
    OcrUnavailableError,
    ParseError,
)
from prioris.ingest.header.layout import HeaderPage
from prioris.ingest.header.metadata import PdfMetadata, pdf_metadata
from prioris.ingest.ocr import INSTALL_HINT, OcrEngine
from prioris.ingest.pdf.layout import (
    PageLayout,
    document_style,
    ocr_markdown,
    page_markdown,
)
from prioris.ingest.pdf.magic import MAGIC, MAGIC_WINDOW, check_pdf_bytes, header_offset
from prioris.ingest.pdf.ocr_queue import OcrQueue
from prioris.ingest.pdf.process import pdf_process
from prioris.ingest.pdf.session import (
    Deadline,
    PageUnreadable,
    PdfLimits,
    Session,
    layout_from_reply,
)
from prioris.models import Page

__all__ = [
    "MAGIC",
    "MAGIC_WINDOW",
    "OCR_MODES",
    "PARSER_VERSION",
    "REPAIRED_WARNING",
    "SCAN_IMAGE_SHARE",
    "PdfContent",
    "PdfLimits",
    "check_pdf_bytes",
    "extract_pdf",
    "page_text_is_usable",
]

PARSER_VERSION = "pdf-1"
OCR_MODES = ("auto", "always", "never")
SCAN_IMAGE_SHARE = 0.5  # a sparse page whose largest image covers this much is a scan

REPAIRED_WARNING = (
    "the PDF is damaged (broken cross-reference table or a truncated file); MuPDF repaired "
    "it and the text read may be incomplete"
)

log = logging.getLogger(__name__)


@dataclass
class PdfContent:
    """A parsed PDF: one Markdown :class:`Page` per page, metadata, and how many were OCR'd."""

    pages: list[Page]
    metadata: PdfMetadata
    ocr_pages: int = 0
    warnings: list[str] = field(default_factory=list)


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


def extract_pdf(
    data: bytes,
    *,
    ocr_mode: str = "auto",
    ocr: OcrEngine | None = None,
    time_limit_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    ocr_workers: int | None = None,
    limits: PdfLimits | None = None,
    on_ocr: Callable[[int, int], None] | None = None,
) -> PdfContent:
    """Parse PDF bytes into Markdown pages, OCR'ing pages as ``ocr_mode`` says.

    ``limits`` bound the work (``time_limit_seconds``, when given, replaces its time
    limit). ``ocr_workers`` pages are OCR'd at once (default: the CPU count, at most 4);
    tesseract runs single-threaded per page, so pages in parallel is where the speed-up is.

    Raises ParseError for non-PDF, encrypted, unreadable or textless files, a page over a
    per-page limit, and when the time or memory limit is exceeded; FileTooLargeError over
    the page limit; OcrUnavailableError when OCR is required (mode ``always``, or ``auto``
    with no usable page at all) but no engine is given or it cannot run.
    ``on_ocr(done, total)`` follows the pages sent to OCR alone, called before and after
    each (the web app shows OCR as its own stage).
    """
    if ocr_mode not in OCR_MODES:
        raise InvalidRequestError(
            f"unknown OCR mode {ocr_mode!r}; accepted: {', '.join(OCR_MODES)}"
        )
    if ocr_mode == "always" and ocr is None:
        raise OcrUnavailableError(f"OCR mode 'always' needs an OCR engine; {INSTALL_HINT}")
    limits = limits or PdfLimits()
    seconds = limits.time_limit_seconds if time_limit_seconds is None else time_limit_seconds
    body = data[header_offset(data) :]
    workers = ocr_workers or min(4, os.cpu_count() or 1)
    with pdf_process() as worker:  # the clock starts once the parser process is ready
        session = Session(worker, Deadline(seconds))
        return _extract(session, body, limits, ocr_mode, ocr, progress, workers, on_ocr)


def _extract(
    session: Session,
    data: bytes,
    limits: PdfLimits,
    ocr_mode: str,
    ocr: OcrEngine | None,
    progress: Callable[[int, int], None] | None,
    ocr_workers: int,
    on_ocr: Callable[[int, int], None] | None = None,
) -> PdfContent:
    deadline = session.deadline
    opened = session.open(data, limits)
    total = deadline.total = int(opened["pages"])
    warnings: list[str] = []
    repaired = bool(opened["repaired"])
    layouts: list[PageLayout] = []
    readable: list[bool] = []
    covers: list[float | None] = []
    blank: list[bool] = []
    chars = 0
    for index in range(total):
        deadline.check(0)
        try:
            info = session.page(index)
        except PageUnreadable as exc:
            warnings.append(exc.args[0])
            layouts.append(PageLayout([], 792.0))
            readable.append(False)
            covers.append(None)
            blank.append(True)
            continue
        chars += int(info["chars"])
        if chars > limits.max_text_chars:
            raise ParseError(
                f"the PDF has more than {limits.max_text_chars} characters of text "
                f"(PRIORIS_MCP_PDF_MAX_TEXT_CHARS); refused after page {index + 1}"
            )
        repaired = repaired or bool(info["repaired"])
        layouts.append(layout_from_reply(info))
        readable.append(True)
        covers.append(info["cover"])
        blank.append(bool(info["blank"]))
    if repaired:  # some damage only shows when the pages are loaded
        warnings.insert(0, REPAIRED_WARNING)
    if not any(readable):
        raise ParseError(f"no page of the PDF could be read ({warnings[-1]})")
    usable = [page_text_is_usable(layout.plain_text()) for layout in layouts]
    style = document_style(
        [layout for layout, ok in zip(layouts, usable, strict=True) if ok],
        layouts[0] if usable[0] else None,
    )

    unavailable: OcrUnavailableError | None = None
    if ocr is None and ocr_mode == "auto":
        unavailable = OcrUnavailableError(f"no OCR engine is configured; {INSTALL_HINT}")
    wanted = [
        readable[i] and not blank[i] and (ocr_mode == "always" or (ocr_mode == "auto" and not ok))
        for i, ok in enumerate(usable)
    ]
    if ocr_mode == "auto" and ocr is not None:
        for index in range(total):
            if not wanted[index] and covers[index] is not None:
                # a stamp of text on a scanned page is not its content
                wanted[index] = covers[index] >= SCAN_IMAGE_SHARE
    queue = (
        OcrQueue(session, ocr, wanted, ocr_workers, deadline)
        if ocr is not None and any(wanted)
        else None
    )
    ocr_failure: ParseError | None = None
    ocr_total, ocr_seen = (sum(wanted) if queue is not None else 0), 0
    pages: list[Page] = []
    try:
        for index in range(total):
            deadline.check(index)
            session.done = index
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
                except PageUnreadable as exc:
                    warnings.append(exc.args[0])
                except ParseError as exc:  # one page failing OCR must not sink the rest
                    if exc.message.startswith("parsing the PDF exceeded"):
                        raise
                    log.warning("OCR failed on page %d: %s", index + 1, exc.message)
                    ocr_failure = exc
            if on_ocr is not None and queue is not None and wanted[index]:
                ocr_seen += 1
                on_ocr(ocr_seen, ocr_total)
            if not did_ocr and usable[index]:
                text = page_markdown(layouts[index], style, first_page=index == 0)
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
        if repaired:
            raise ParseError(
                "no text: the PDF is damaged (broken cross-reference table or a truncated "
                "file) and what MuPDF could repair of it holds no text"
            )
        raise ParseError(
            "no text: the PDF has no usable text layer and OCR found no words on its pages"
        )
    metadata = pdf_metadata(
        info=dict(opened["info"]),
        xmp=opened["xmp"],
        header_pages=[  # the text layer of pages 1-2 with fonts, where it was used
            _header_page(session, i) if usable[i] and not pages[i].ocr else None
            for i in range(min(2, total))
        ],
        body_size=style.body_size,
        page_texts=[page.text for page in pages],
    )
    return PdfContent(
        pages=pages,
        metadata=metadata,
        ocr_pages=sum(p.ocr for p in pages),
        warnings=warnings,
    )


def _header_page(session: Session, index: int) -> HeaderPage | None:
    try:
        return session.header(index)
    except PageUnreadable:
        return None
