"""Limits on local input: file size, PDF parsing (time, memory, pages, operations, text),
OCR (mode, languages, time a page), JSONL records and query length.

Separate because these are the bounds that keep a hostile or broken local file from
exhausting the machine (docs/security.md, "Limits"); the parser process and the readers
take them from here and nothing else sets them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from prioris.config.parsing import _choice, _integer, _number

OCR_MODES = ("auto", "always", "never")


@dataclass(frozen=True)
class InputLimits:
    """OCR and the limits on local input, each with a variable."""

    ocr_mode: str = "auto"
    ocr_languages: str = "eng"
    max_file_bytes: int = 104_857_600
    # limits on local input: PDFs, OCR, JSONL records, queries (docs/security.md, "Limits")
    pdf_time_limit_seconds: float = 300.0
    pdf_memory_limit_bytes: int = 805_306_368
    pdf_max_pages: int = 2000
    pdf_max_page_operations: int = 1_000_000
    pdf_max_page_text_runs: int = 100_000
    pdf_max_page_chars: int = 200_000
    pdf_max_text_chars: int = 5_000_000
    ocr_page_timeout_seconds: float = 120.0
    max_record_bytes: int = 4_194_304
    max_query_chars: int = 4096


def input_limits(env: Mapping[str, str]) -> InputLimits:
    """The limits on local input (PDFs, OCR, JSONL records, queries), each with a variable."""
    d = InputLimits
    return InputLimits(
        ocr_mode=_choice(env, "PRIORIS_MCP_OCR", OCR_MODES, "auto"),
        ocr_languages=(env.get("PRIORIS_MCP_OCR_LANGUAGES") or "eng").strip(),
        max_file_bytes=_integer(env, "PRIORIS_MCP_MAX_FILE_BYTES", 104_857_600),
        pdf_time_limit_seconds=_number(
            env, "PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS", d.pdf_time_limit_seconds
        ),
        pdf_memory_limit_bytes=_integer(
            env, "PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES", d.pdf_memory_limit_bytes
        ),
        pdf_max_pages=_integer(env, "PRIORIS_MCP_PDF_MAX_PAGES", d.pdf_max_pages),
        pdf_max_page_operations=_integer(
            env, "PRIORIS_MCP_PDF_MAX_PAGE_OPERATIONS", d.pdf_max_page_operations
        ),
        pdf_max_page_text_runs=_integer(
            env, "PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS", d.pdf_max_page_text_runs
        ),
        pdf_max_page_chars=_integer(env, "PRIORIS_MCP_PDF_MAX_PAGE_CHARS", d.pdf_max_page_chars),
        pdf_max_text_chars=_integer(env, "PRIORIS_MCP_PDF_MAX_TEXT_CHARS", d.pdf_max_text_chars),
        ocr_page_timeout_seconds=_number(
            env, "PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS", d.ocr_page_timeout_seconds
        ),
        max_record_bytes=_integer(env, "PRIORIS_MCP_MAX_RECORD_BYTES", d.max_record_bytes),
        max_query_chars=_integer(env, "PRIORIS_MCP_MAX_QUERY_CHARS", d.max_query_chars),
    )
