"""The PDF parser process and the page budget: counting, killing, crashing, reusing."""

from __future__ import annotations

import os
import signal

import pytest

from prioris.errors import FileTooLargeError, ParseError
from prioris.ingest.pdf.budget import PageLimits, stream_cost
from prioris.ingest.pdf.process import DeadlineExceeded, pdf_process
from prioris.ingest.pdf.reader import PdfLimits, extract_pdf

from hostile_pdfs import (
    blank_pages,
    nested_forms,
    one_page,
    pages_pdf,
    stream,
    text_bomb,
    text_page,
)

LIMITS = PageLimits(operations=1000, text_runs=100, chars=10_000)


def test_stream_cost_counts_operators_not_strings_names_or_numbers() -> None:
    content = b"BT /F1 10 Tf 72 700 Td (Tj TJ BT ET re f) Tj [(a) -250 (b)] TJ ET 0 0 5 5 re f"
    cost = stream_cost(content, LIMITS)
    # BT Tf Td Tj TJ ET re f: the operators inside the string are text, not work
    assert (cost.operations, cost.text_runs, cost.paints) == (8, 2, 3)


def test_stream_cost_skips_inline_image_data_and_comments() -> None:
    content = b"q BI /W 4 /H 1 /BPC 8 /CS /G ID \x00Tj Tj Tj\xff EI Q % Tj Tj Tj\nS"
    cost = stream_cost(content, LIMITS)
    assert cost.text_runs == 0
    assert cost.operations == 5  # q BI EI Q S


def test_stream_cost_is_the_same_in_pieces() -> None:
    content = text_page(30)
    whole = stream_cost(content, LIMITS)
    for size in (7, 100, 1000):  # cut anywhere, even inside a string or a number
        pieces = [content[i : i + size] for i in range(0, len(content), size)]
        assert stream_cost(iter(pieces), LIMITS) == whole


def test_stream_cost_stops_reading_past_a_limit() -> None:
    pieces_read = 0

    def endless():  # a stream that never ends: counting must stop on its own
        nonlocal pieces_read
        while True:
            pieces_read += 1
            yield b"(a) Tj\n" * 100

    cost = stream_cost(endless(), LIMITS)
    assert cost.text_runs > LIMITS.text_runs
    assert pieces_read <= 3


def test_forms_count_as_often_as_they_are_drawn() -> None:
    """Three levels of ten draws of a one-run form: 1,000 text runs from a few hundred bytes."""
    with pytest.raises(ParseError, match="more than 999 text runs"):
        extract_pdf(nested_forms(4, 10), limits=PdfLimits(max_page_text_runs=999))
    content = extract_pdf(nested_forms(4, 10), limits=PdfLimits(max_page_text_runs=1000))
    assert "leaf" in content.pages[0].text


def test_a_text_bomb_is_refused_by_its_count_before_mupdf_runs_it() -> None:
    with pytest.raises(ParseError) as info:
        extract_pdf(text_bomb(150_000))
    assert "PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS" in info.value.message
    assert info.value.code == "parse_error"


def test_the_time_limit_holds_inside_one_page() -> None:
    """Counting off, MuPDF would spend minutes on this one page: it is killed at the limit."""
    limits = PdfLimits(max_page_text_runs=10**9, max_page_operations=10**9, time_limit_seconds=2.0)
    # stopped inside its one page: the parser was killed there, not at the page's end
    with pytest.raises(ParseError, match=r"parse time limit \(stopped after 0 of 1 pages"):
        extract_pdf(text_bomb(3_000_000), limits=limits)


def test_the_page_limit_refuses_before_reading_pages() -> None:
    with pytest.raises(FileTooLargeError, match=r"6 pages, over the limit of 5 \(PRIORIS_MCP"):
        extract_pdf(blank_pages(6), limits=PdfLimits(max_pages=5))


def test_a_pdf_without_any_text_is_a_parse_error_not_an_empty_work() -> None:
    with pytest.raises(ParseError, match=r"^no text"):
        extract_pdf(blank_pages(3), ocr=_NeverCalledOcr())


def test_the_character_limits_name_their_settings() -> None:
    with pytest.raises(ParseError, match="PRIORIS_MCP_PDF_MAX_PAGE_CHARS"):
        extract_pdf(one_page(text_page(40)), limits=PdfLimits(max_page_chars=500))
    with pytest.raises(ParseError, match="PRIORIS_MCP_PDF_MAX_TEXT_CHARS"):
        extract_pdf(pages_pdf([stream(text_page(40))] * 4), limits=PdfLimits(max_text_chars=5000))


class _NeverCalledOcr:
    def ocr_page(self, image_png: bytes) -> str:
        raise AssertionError("a blank page was sent to OCR")


def test_blank_pages_are_known_blank_without_rendering() -> None:
    with pdf_process() as worker:
        reply, _ = worker.request(_open_header(), blank_pages(2), timeout=60)
        assert reply["ok"]["pages"] == 2
        page, _ = worker.request({"op": "page", "index": 0}, timeout=60)
        assert page["ok"]["blank"] is True
        reply, _ = worker.request(_open_header(), one_page(text_page(3)), timeout=60)
        page, _ = worker.request({"op": "page", "index": 0}, timeout=60)
        assert page["ok"]["blank"] is False and page["ok"]["chars"] > 100


def _open_header() -> dict[str, object]:
    return {
        "op": "open",
        "memory_limit": 256 << 20,
        "max_pages": 10,
        "max_page_operations": 10**6,
        "max_page_text_runs": 10**5,
        "max_page_chars": 10**5,
    }


def test_a_parser_that_dies_fails_its_file_and_the_next_file_gets_a_new_one() -> None:
    with pdf_process() as worker:
        os.kill(worker.pid, signal.SIGKILL)  # as a segfault in MuPDF would
        with pytest.raises(ParseError, match=r"crashed on this file \(signal 9\)"):
            worker.request({"op": "page", "index": 0}, timeout=30)
        assert worker.dead
    content = extract_pdf(one_page(text_page(3)))  # a fresh parser, not the dead one
    assert "Sulfate aerosols" in content.pages[0].text


def test_a_parser_past_its_deadline_is_killed_and_reaped() -> None:
    with pdf_process() as worker:
        with pytest.raises(DeadlineExceeded):
            worker.request({"op": "page", "index": 0}, timeout=0)
        with pytest.raises(ProcessLookupError):
            os.kill(worker.pid, 0)
