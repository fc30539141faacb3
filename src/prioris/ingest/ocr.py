"""OCR behind a small protocol: :class:`OcrEngine`, and :class:`TesseractOcr` that runs the binary.

The PDF layer renders a page to a grayscale PNG and asks an engine for its text; anything
that turns PNG bytes into text can stand in (tests use a fake). :class:`TesseractOcr`
calls the ``tesseract`` executable directly (``tesseract stdin stdout``) rather than
through pytesseract, so that it can pass ``OMP_THREAD_LIMIT=1`` in the child's
environment without touching this process's (tesseract's OpenMP threads make a page
6-9x slower on a small machine, not faster) and enforce a per-page timeout.

Availability is checked lazily, on the first page that needs OCR: a library of born-digital
PDFs never needs tesseract installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from typing import Protocol, runtime_checkable

from prioris.config import Settings
from prioris.errors import OcrUnavailableError, ParseError

INSTALL_HINT = (
    "install tesseract and its language data, e.g. `sudo apt-get install tesseract-ocr "
    "tesseract-ocr-eng` (Debian/Ubuntu) or `brew install tesseract` (macOS), or set "
    "PRIORIS_MCP_OCR=never to skip pages without a text layer"
)


@runtime_checkable
class OcrEngine(Protocol):
    """Turns one rendered page (PNG bytes) into plain text.

    ``extract_pdf`` may call ``ocr_page`` from several threads at once (one page each).
    """

    def ocr_page(self, image_png: bytes) -> str:
        """Text of the page image; raise OcrUnavailableError when the engine cannot run."""
        ...


class TesseractOcr:
    """OCR with the tesseract command-line program, one process per page.

    ``languages`` uses tesseract's syntax (``eng``, ``eng+deu``). ``timeout_seconds``
    bounds a single page; a page that takes longer fails with ParseError.
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

    @classmethod
    def from_settings(cls, settings: Settings) -> TesseractOcr:
        """The engine configured by ``PRIORIS_MCP_OCR_LANGUAGES``."""
        return cls(settings.ocr_languages)

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

    def ocr_page(self, image_png: bytes) -> str:
        """Run tesseract on one PNG page image and return its text (UTF-8)."""
        self.check_available()
        command = [
            self._executable(),
            "stdin",
            "stdout",
            "-l",
            self.languages,
            "--psm",
            str(self.page_segmentation_mode),
        ]
        try:
            result = subprocess.run(
                command,
                input=image_png,
                capture_output=True,
                timeout=self.timeout_seconds,
                env=self._env(),
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise ParseError(
                f"OCR of a page took longer than {self.timeout_seconds:g} s and was stopped"
            ) from exc
        except OSError as exc:
            raise OcrUnavailableError(f"could not run tesseract: {exc}; {INSTALL_HINT}") from exc
        if result.returncode != 0:
            detail = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ParseError(
                f"tesseract failed on a page (exit {result.returncode}): "
                f"{detail[-1] if detail else 'no message'}"
            )
        return result.stdout.decode("utf-8", "replace")
