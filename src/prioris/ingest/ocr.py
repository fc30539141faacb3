"""OCR behind a small protocol: :class:`OcrEngine`, and :class:`TesseractOcr` that runs tesseract.

The PDF layer renders a page to a grayscale PNG and asks an engine for its text; anything
that turns PNG bytes into text can stand in (tests use a fake). :class:`TesseractOcr`
runs the ``tesseract`` program through pytesseract, one process per page. Its timeout
kills that process: the per-page timeout, or less when the caller's deadline is nearer
(:func:`ocr_until` passes the deadline of the file being parsed, so no tesseract run
outlives the parse time limit). ``OMP_THREAD_LIMIT=1`` is set in this process's
environment, which pytesseract hands to tesseract: its OpenMP threads make a page 6-9x
slower on a small machine, not faster.

Availability is checked lazily, on the first page that needs OCR: a library of born-digital
PDFs never needs tesseract installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from contextvars import ContextVar
from typing import Protocol, runtime_checkable

from prioris.config import Settings
from prioris.errors import OcrUnavailableError, ParseError

INSTALL_HINT = (
    "install tesseract and its language data, e.g. `sudo apt-get install tesseract-ocr "
    "tesseract-ocr-eng` (Debian/Ubuntu) or `brew install tesseract` (macOS), or set "
    "PRIORIS_MCP_OCR=never to skip pages without a text layer"
)


_deadline: ContextVar[float | None] = ContextVar("prioris_ocr_deadline", default=None)
_binary_lock = threading.Lock()


def ocr_until(engine: OcrEngine, image_png: bytes, deadline: float) -> str:
    """``engine.ocr_page(image_png)`` told to stop by ``deadline`` (a ``time.monotonic``
    value); engines that honour it (TesseractOcr) kill their work when it passes."""
    token = _deadline.set(deadline)
    try:
        return engine.ocr_page(image_png)
    finally:
        _deadline.reset(token)


@runtime_checkable
class OcrEngine(Protocol):
    """Turns one rendered page (PNG bytes) into plain text.

    ``extract_pdf`` may call ``ocr_page`` from several threads at once (one page each).
    """

    def ocr_page(self, image_png: bytes) -> str:
        """Text of the page image; raise OcrUnavailableError when the engine cannot run."""
        ...


class TesseractOcr:
    """OCR with the tesseract program through pytesseract, one process per page.

    ``languages`` uses tesseract's syntax (``eng``, ``eng+deu``). ``timeout_seconds``
    bounds a single page (``PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS``); a page that takes
    longer, or runs into the deadline of :func:`ocr_until`, is killed and fails with
    ParseError.
    """

    def __init__(
        self,
        languages: str = "eng",
        *,
        timeout_seconds: float = 120.0,
        binary: str = "tesseract",
        page_segmentation_mode: int = 3,
    ) -> None:
        langs = [part.strip() for part in languages.replace(",", "+").split("+") if part.strip()]
        self.languages = "+".join(langs) or "eng"
        self.timeout_seconds = timeout_seconds
        self.binary = binary
        self.page_segmentation_mode = page_segmentation_mode
        self._checked = False
        self._lock = threading.Lock()
        os.environ["OMP_THREAD_LIMIT"] = "1"  # reaches every tesseract child (see module doc)

    def __getstate__(self) -> dict[str, object]:
        """Pickled for a task worker elsewhere: the settings, not the lock; the worker
        checks its own tesseract before its first page."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_checked")}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._checked = False
        self._lock = threading.Lock()
        os.environ["OMP_THREAD_LIMIT"] = "1"

    @classmethod
    def from_settings(cls, settings: Settings) -> TesseractOcr:
        """The engine configured by ``PRIORIS_MCP_OCR_LANGUAGES`` and the page timeout."""
        return cls(settings.ocr_languages, timeout_seconds=settings.ocr_page_timeout_seconds)

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["OMP_THREAD_LIMIT"] = "1"
        return env

    def _executable(self) -> str:
        path = shutil.which(self.binary)
        if path is None:
            raise OcrUnavailableError(
                f"OCR needs the tesseract program, not found on PATH; {INSTALL_HINT}"
            )
        return path

    def available_languages(self) -> list[str]:
        """Languages tesseract has data for (``tesseract --list-langs``)."""
        try:
            result = subprocess.run(
                [self._executable(), "--list-langs"],
                capture_output=True,
                timeout=30,
                env=self._env(),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OcrUnavailableError(
                f"could not run tesseract --list-langs: {exc}; {INSTALL_HINT}"
            ) from exc
        # tesseract 4 prints the list on stderr, 5 on stdout; the first line is a header.
        out = (result.stdout + result.stderr).decode("utf-8", "replace").splitlines()
        return [line.strip() for line in out if line.strip() and " " not in line.strip()]

    def check_available(self) -> None:
        """Raise OcrUnavailableError (with an install hint) unless tesseract can run.

        Checks the binary and the data of every configured language; the result is cached.
        """
        with self._lock:
            if self._checked:
                return
            have = set(self.available_languages())
            missing = [lang for lang in self.languages.split("+") if lang not in have]
            if missing:
                packages = " ".join(f"tesseract-ocr-{lang.lower()}" for lang in missing)
                raise OcrUnavailableError(
                    f"tesseract has no language data for {', '.join(missing)} "
                    f"(PRIORIS_MCP_OCR_LANGUAGES={self.languages}; installed: "
                    f"{', '.join(sorted(have)) or 'none'}); install it, e.g. "
                    f"`sudo apt-get install {packages}`"
                )
            self._checked = True

    def _timeout(self) -> float:
        """The per-page timeout, or what is left before the caller's deadline if sooner."""
        deadline = _deadline.get()
        if deadline is None:
            return self.timeout_seconds
        left = deadline - time.monotonic()
        if left <= 0:
            raise ParseError("OCR was not started: the parse time limit had passed")
        return min(self.timeout_seconds, left)

    def ocr_page(self, image_png: bytes) -> str:
        """Run tesseract on one PNG page image and return its text (UTF-8)."""
        import pytesseract

        self.check_available()
        executable = self._executable()
        timeout = self._timeout()
        config = f"--psm {self.page_segmentation_mode}"
        with tempfile.NamedTemporaryFile(prefix="prioris-ocr-", suffix=".png") as image:
            image.write(image_png)
            image.flush()
            with _binary_lock:  # pytesseract reads the program from a module global
                pytesseract.pytesseract.tesseract_cmd = executable
            try:
                return pytesseract.image_to_string(
                    image.name, lang=self.languages, config=config, timeout=timeout
                )
            except pytesseract.TesseractNotFoundError as exc:
                raise OcrUnavailableError(f"could not run tesseract; {INSTALL_HINT}") from exc
            except pytesseract.TesseractError as exc:
                detail = str(exc.message).strip().splitlines()
                raise ParseError(
                    f"tesseract failed on a page (exit {exc.status}): "
                    f"{detail[-1] if detail else 'no message'}"
                ) from exc
            except RuntimeError as exc:  # pytesseract's "Tesseract process timeout"
                if "timeout" not in str(exc).lower():
                    raise
                if timeout < self.timeout_seconds:
                    raise ParseError(
                        f"OCR of a page was stopped at the parse time limit ({timeout:.3g} s left)"
                    ) from exc
                raise ParseError(
                    f"OCR of a page took longer than {self.timeout_seconds:g} s and was stopped "
                    "(PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS)"
                ) from exc
            except FileNotFoundError as exc:
                if str(exc.filename or "").endswith(".txt"):  # it ran but wrote nothing
                    raise ParseError("tesseract wrote no text for a page") from exc
                raise OcrUnavailableError(
                    f"could not run tesseract: {exc}; {INSTALL_HINT}"
                ) from exc
            except OSError as exc:
                raise OcrUnavailableError(
                    f"could not run tesseract: {exc}; {INSTALL_HINT}"
                ) from exc
