"""OCR of the pages a document needs read, several at once, taken back in page order.

tesseract is single-threaded per page, so pages in parallel are where the speed-up is.
Kept apart from :func:`prioris.ingest.pdf.reader.extract_pdf`, which decides which pages
are wanted and consumes the texts, so the threading lives in one small place.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError

from prioris.errors import ParseError, PriorisError
from prioris.ingest.ocr import OcrEngine, ocr_until
from prioris.ingest.pdf.session import Deadline, PageUnreadable, Session


class OcrQueue:
    """OCR of the wanted pages, up to ``workers`` at once, results taken in page order.

    Pages are rendered by the parser process on the calling thread; only the engine runs in
    worker threads, each call told the file's deadline so that a tesseract run stops with
    it. Until one page has been OCR'd successfully a single page is in flight, so an
    engine that cannot run is asked once, not once per worker.
    """

    def __init__(
        self,
        session: Session,
        engine: OcrEngine,
        wanted: list[bool],
        workers: int,
        deadline: Deadline,
    ) -> None:
        self.session = session
        self.engine = engine
        self.wanted = wanted
        self.deadline = deadline
        self.workers = max(1, workers)
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ocr")
        self.pending: dict[int, Future[str] | PageUnreadable | None] = {}  # None: blank
        self.next = 0
        self.proven = False
        self.stopped = False

    def _fill(self) -> None:
        limit = self.workers if self.proven else 1
        while self.next < len(self.wanted) and not self.stopped:
            in_flight = sum(
                1 for f in self.pending.values() if isinstance(f, Future) and not f.done()
            )
            if in_flight >= limit:
                return
            index = self.next
            self.next += 1
            if self.wanted[index]:
                try:
                    png = self.session.render(index)
                except PageUnreadable as exc:
                    self.pending[index] = exc
                    continue
                self.pending[index] = (
                    None
                    if png is None
                    else self.pool.submit(ocr_until, self.engine, png, self.deadline.end)
                )

    def take(self, index: int, timeout: float) -> str | None:
        """The OCR text of page ``index`` (None for a blank page); engine errors propagate.

        Raises concurrent.futures.TimeoutError when the page is not done within ``timeout``.
        """
        self._fill()
        future = self.pending.pop(index, None)
        if future is None:
            return None
        if isinstance(future, PageUnreadable):
            raise future
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
