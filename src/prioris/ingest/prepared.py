"""What the ingest steps hand each other: a prepared document and its result.

Preparing, embedding and writing are separate modules (:mod:`~prioris.ingest.prepare`,
:mod:`~prioris.ingest.embed`, :mod:`~prioris.ingest.write`); the data they pass along and
the page assembly they all rely on live here so that none of them imports another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prioris.ingest.pdf.magic import check_pdf_bytes
from prioris.models import Chunk, Document, Page, Work

PAGE_SEPARATOR = "\n\n"
Now = Callable[[], str]
StepProgress = Callable[[str, int, int], None]
"""``(stage, done, total)`` while a document is ingested: ``"pages"`` read (OCR included),
``"embed"`` chunks embedded, ``"index"`` documents committed to the indexes."""


@dataclass(frozen=True)
class CheckedPdf:
    """PDF bytes that passed ``check_pdf_bytes`` (the size cap and the magic bytes).

    Whoever checked a file's bytes on the way in hands this on, so the bytes are checked
    once per file however many layers they pass through."""

    data: bytes

    @classmethod
    def check(cls, data: bytes, max_bytes: int) -> CheckedPdf:
        """FileTooLargeError over ``max_bytes``, ParseError for bytes that are no PDF."""
        check_pdf_bytes(data, max_bytes)
        return cls(data)


@dataclass
class IngestResult:
    """Outcome for one file, upload or record."""

    id: str
    path: str | None = None
    pages: int = 0
    ocr_pages: int = 0
    chunks: int = 0
    status: str = "ingested"  # or "skipped"
    reason: str | None = None
    enriched: str | None = None  # the provider whose record completed the work
    warnings: list[str] = field(default_factory=list)  # e.g. a PDF MuPDF had to repair

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "path": self.path,
            "pages": self.pages,
            "ocr_pages": self.ocr_pages,
            "chunks": self.chunks,
        }
        if self.status == "skipped":
            data["reason"] = self.reason
        if self.enriched:
            data["enriched"] = self.enriched
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass
class Prepared:
    """A document parsed and chunked, waiting for vectors and its transaction."""

    work: Work
    markdown: str
    pages: list[tuple[Page, int, int]]
    chunks: list[Chunk]
    document: Document | None = None
    content: bytes = b""
    vectors: Any = None
    work_vector: Any = None
    """The work's own vector (title + abstract, :func:`~prioris.ingest.embed.work_text`),
    made with its chunks'."""
    work_text: str | None = None
    """The text ``work_vector`` was made from."""
    result: IngestResult = field(default_factory=lambda: IngestResult(id=""))
    records: dict[str, Any] = field(default_factory=dict)
    """Per-source records kept beside the work (``printed``, a provider's name)."""
    labels: dict[str, list[str] | None] | None = None
    """A JSONL record's ``{"collections", "tags"}`` (each None when the record does not
    give it), stored as the import's labels of the work however its text is stored."""
    replace: bool = False  # bytes already stored: replace their parse (ingest --force)
    chunked: bool = True
    """False for a record whose bytes were already stored when it was prepared: its chunks
    are only made (by :meth:`~prioris.ingest.prepare.Preparer.ensure_chunks`) if it still
    has to be indexed."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def assemble_markdown(pages: Sequence[Page]) -> tuple[str, list[tuple[Page, int, int]]]:
    """Join page texts; remember where each page starts and ends."""
    parts: list[str] = []
    spans: list[tuple[Page, int, int]] = []
    position = 0
    for page in pages:
        text = page.text.strip()
        if parts:
            parts.append(PAGE_SEPARATOR)
            position += len(PAGE_SEPARATOR)
        parts.append(text)
        spans.append((page, position, position + len(text)))
        position += len(text)
    return "".join(parts), spans
