"""TesseractOcr: the real binary on a rendered page, and its failure modes via stand-in programs."""

from __future__ import annotations

import stat
from pathlib import Path

import pymupdf
import pytest

from prioris.config import load_settings
from prioris.errors import OcrUnavailableError, ParseError
from prioris.ingest.ocr import OcrEngine, TesseractOcr


def _text_png(lines: list[str], fontsize: float = 20) -> bytes:
    """A grayscale 300 dpi PNG of some printed lines, like a scanned page."""
    doc = pymupdf.open()
    page = doc.new_page(width=500, height=60 + 30 * len(lines))
    for i, line in enumerate(lines):
        page.insert_text((30, 45 + 30 * i), line, fontsize=fontsize, fontname="helv")
    pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    return pix.tobytes("png")


def _fake_tesseract(tmp_path: Path, body: str) -> str:
    """A stand-in ``tesseract`` program (shell script) that lists eng and then runs ``body``."""
    script = tmp_path / "fake-tesseract"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--list-langs" ]; then\n'
        "  echo 'List of available languages in \"/x\" (1):'; echo eng; exit 0\n"
        "fi\n"
        f"{body}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_real_tesseract_reads_rendered_words() -> None:
    engine = TesseractOcr("eng")
    engine.check_available()
    text = engine.ocr_page(_text_png(["Prioris reads scanned pages", "with tesseract quickly"]))
    words = set(text.lower().split())
    assert {"prioris", "reads", "scanned", "pages", "tesseract", "quickly"} <= words


def test_tesseract_satisfies_the_protocol() -> None:
    assert isinstance(TesseractOcr(), OcrEngine)


def test_languages_come_from_settings() -> None:
    settings = load_settings(
        {"PRIORIS_MCP_DATA_DIR": "/tmp/x", "PRIORIS_MCP_OCR_LANGUAGES": "eng+deu"}
    )
    assert TesseractOcr.from_settings(settings).languages == "eng+deu"


def test_missing_language_data_names_the_package() -> None:
    engine = TesseractOcr("eng+zzz")
    with pytest.raises(OcrUnavailableError) as info:
        engine.check_available()
    assert "zzz" in info.value.message
    assert "tesseract-ocr-zzz" in info.value.message


def test_missing_binary_is_reported_lazily_with_an_install_hint() -> None:
    engine = TesseractOcr(binary="prioris-no-such-tesseract")  # constructing never raises
    with pytest.raises(OcrUnavailableError) as info:
        engine.ocr_page(b"\x89PNG")
    assert info.value.code == "ocr_unavailable"
    assert "apt-get install tesseract-ocr" in info.value.message


def test_child_gets_omp_thread_limit_1_and_the_image_on_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "8")
    binary = _fake_tesseract(tmp_path, 'echo "limit=$OMP_THREAD_LIMIT args=$*"; wc -c | tr -d " "')
    out = TesseractOcr("eng", binary=binary).ocr_page(b"12345")
    assert "limit=1" in out
    assert "args=stdin stdout -l eng --psm 3" in out
    assert out.strip().endswith("5")  # the five image bytes arrived on stdin


def test_a_page_over_the_timeout_fails_with_parse_error(tmp_path: Path) -> None:
    binary = _fake_tesseract(tmp_path, "exec sleep 5")
    engine = TesseractOcr("eng", binary=binary, timeout_seconds=0.3)
    with pytest.raises(ParseError, match=r"longer than 0\.3 s"):
        engine.ocr_page(b"png")


def test_a_failing_tesseract_run_is_a_parse_error(tmp_path: Path) -> None:
    binary = _fake_tesseract(tmp_path, 'echo "Error: image file cannot be read" >&2; exit 1')
    with pytest.raises(ParseError, match="image file cannot be read"):
        TesseractOcr("eng", binary=binary).ocr_page(b"not an image")
