"""TesseractOcr: the real binary on a rendered page, and its failure modes via stand-in programs."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pymupdf
import pytest

from prioris.config import load_settings
from prioris.errors import OcrUnavailableError, ParseError
from prioris.ingest.ocr import OcrEngine, TesseractOcr, ocr_until


def _text_png(lines: list[str], fontsize: float = 20) -> bytes:
    """A grayscale 300 dpi PNG of some printed lines, like a scanned page."""
    doc = pymupdf.open()
    page = doc.new_page(width=500, height=60 + 30 * len(lines))
    for i, line in enumerate(lines):
        page.insert_text((30, 45 + 30 * i), line, fontsize=fontsize, fontname="helv")
    pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    return pix.tobytes("png")


def _fake_tesseract(tmp_path: Path, body: str) -> str:
    """A stand-in ``tesseract`` program (shell script) that lists eng and then runs ``body``.

    pytesseract calls it as ``tesseract IMAGE OUTBASE -l LANG --psm N txt`` and reads the
    text from ``OUTBASE.txt``."""
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


def test_languages_and_page_timeout_come_from_settings() -> None:
    settings = load_settings(
        {
            "PRIORIS_MCP_DATA_DIR": "/tmp/x",
            "PRIORIS_MCP_OCR_LANGUAGES": "eng+deu",
            "PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS": "7.5",
        }
    )
    engine = TesseractOcr.from_settings(settings)
    assert engine.languages == "eng+deu" and engine.timeout_seconds == 7.5


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


def test_child_gets_omp_thread_limit_1_and_the_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "8")
    binary = _fake_tesseract(
        tmp_path,
        'echo "limit=$OMP_THREAD_LIMIT args=$*" > "$2.txt"; wc -c < "$1" | tr -d " " >> "$2.txt"',
    )
    engine = TesseractOcr("eng", binary=binary)
    assert os.environ["OMP_THREAD_LIMIT"] == "1"  # set for the process: pytesseract passes it on
    out = engine.ocr_page(b"12345")
    assert "limit=1" in out
    assert "-l eng --psm 3" in out
    assert out.strip().endswith("5")  # the five image bytes arrived as the image file


def test_a_deadline_kills_the_tesseract_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    binary = _fake_tesseract(tmp_path, f'echo $$ > "{pid_file}"; exec sleep 30')
    engine = TesseractOcr("eng", binary=binary, timeout_seconds=60)
    # the message says the child was stopped at the deadline: ignoring it, the child would
    # have ended on its own after 30 s without text ("wrote no text")
    with pytest.raises(ParseError, match="OCR of a page was stopped at the parse time limit"):
        ocr_until(engine, b"png", time.monotonic() + 0.5)
    _assert_gone(int(pid_file.read_text()))


def _assert_gone(pid: int, within: float = 5.0) -> None:
    """The process ``pid`` has ended (killed and reaped) within ``within`` seconds."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} is still running")


def test_a_page_over_the_timeout_fails_with_parse_error(tmp_path: Path) -> None:
    binary = _fake_tesseract(tmp_path, "exec sleep 5")
    engine = TesseractOcr("eng", binary=binary, timeout_seconds=0.3)
    with pytest.raises(ParseError, match=r"longer than 0\.3 s"):
        engine.ocr_page(b"png")


def test_a_failing_tesseract_run_is_a_parse_error(tmp_path: Path) -> None:
    binary = _fake_tesseract(tmp_path, 'echo "Error: image file cannot be read" >&2; exit 1')
    with pytest.raises(ParseError, match="image file cannot be read"):
        TesseractOcr("eng", binary=binary).ocr_page(b"not an image")


def _image_only_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_image(page.rect, stream=_text_png(["a scanned page"]))
    return doc.tobytes()


def test_the_parse_time_limit_stops_a_running_tesseract(tmp_path: Path) -> None:
    """The file's deadline reaches the tesseract child: nothing runs on after the refusal."""
    from prioris.ingest.pdf.reader import extract_pdf

    pid_file = tmp_path / "pid"
    binary = _fake_tesseract(tmp_path, f'echo $$ > "{pid_file}"; exec sleep 30')
    engine = TesseractOcr("eng", binary=binary, timeout_seconds=60)
    # the OCR child is stopped at the deadline (the message is the child's or the file's,
    # whichever noticed first), and is gone right after: its own timeout is 60 s, and it
    # would have slept on for 30 s had the deadline not reached it
    with pytest.raises(ParseError, match=r"stopped at the parse time limit|exceeded the 4 s"):
        extract_pdf(_image_only_pdf(), ocr=engine, time_limit_seconds=4.0)
    if pid_file.exists():  # absent only if a loaded machine used the 4 s before OCR began
        _assert_gone(int(pid_file.read_text()))
