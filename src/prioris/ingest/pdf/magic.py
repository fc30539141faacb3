"""Where a PDF starts: the ``%PDF-`` header, and the gate every PDF passes first.

Readers accept junk before the header within the first KiB, so both the parser
(:mod:`prioris.ingest.pdf.reader`) and the page renderer (:mod:`prioris.ingest.pdf.render`)
hand MuPDF the bytes from the header on; :func:`check_pdf_bytes` refuses what is too large
or no PDF before anything else touches the data. No MuPDF here: the check is cheap.
"""

from __future__ import annotations

from prioris.errors import FileTooLargeError, ParseError

MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # readers accept junk before the header within the first KiB


def header_offset(data: bytes) -> int:
    """Offset of the ``%PDF-`` header within the first KiB; ParseError when there is none."""
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
    header_offset(data)
