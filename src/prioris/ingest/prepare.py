"""From PDF bytes, a provider's full text, a record or pages to a :class:`Prepared` work.

Everything here runs before the write transaction and outside the write lock: parsing (OCR
included) and chunking are the slow part of an ingest, and a reader or another writer
must not wait for them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from prioris.abstracts import trim_abstract
from prioris.ingest.chunking import PageSpan, chunk_markdown
from prioris.ingest.ocr import OcrEngine
from prioris.ingest.pdf.author_lines import demote_author_headings
from prioris.ingest.prepared import (
    CheckedPdf,
    IngestResult,
    Prepared,
    assemble_markdown,
    sha256_bytes,
)
from prioris.ingest.records import validate_record
from prioris.models import Chunk, Document, FullText, Page, Work
from prioris.strings import without_surrogates
from prioris.text_clean import clean_text, clean_work

log = logging.getLogger("prioris.ingest.pipeline")  # the pipeline's name, as ``-v`` shows it


class Preparer:
    """Parses and chunks documents with one library's model tokenizer, OCR and limits.

    Its methods are the pipeline's preparing tasks, so a preparer must pickle for a worker
    elsewhere (:mod:`prioris.ingest.tasks`): it holds the tokenizer through a
    :class:`~prioris.ingest.worker_model.WorkerModel`, the OCR engine and settings values,
    and nothing of the database; each method returns what it made and changes none of
    its arguments (a worker's changes to its copies would be lost)."""

    def __init__(
        self,
        count_tokens: Callable[[str], int],
        *,
        ocr: OcrEngine | None,
        ocr_mode: str,
        max_file_bytes: int,
        pdf_limits: Any,
    ) -> None:
        self.count_tokens = count_tokens
        self.ocr = ocr
        self.ocr_mode = ocr_mode
        self.max_file_bytes = max_file_bytes
        self.pdf_limits = pdf_limits  # a PdfLimits; None: its defaults

    def chunks_for(
        self, work_id: str, markdown: str, spans: list[tuple[Page, int, int]]
    ) -> list[Chunk]:
        """Chunks to index, each labelled with its part of the paper: the reference list
        and the back matter are indexed too (a cited title is found), and search ranks
        them below the paper's other passages."""
        page_spans = [PageSpan(page.number, start, end) for page, start, end in spans]
        spans_kept = chunk_markdown(markdown, page_spans, self.count_tokens)
        return [
            Chunk(
                work_id=work_id,
                document_sha256=None,
                ordinal=i,
                text=markdown[c.char_start : c.char_end],
                page_start=c.page_start,
                page_end=c.page_end,
                char_start=c.char_start,
                char_end=c.char_end,
                heading=c.heading,
                token_count=c.token_count,
                section=c.section,
            )
            for i, c in enumerate(spans_kept)
        ]

    def prepare_pages(
        self,
        work: Work,
        pages: Sequence[Page],
        *,
        document: Document | None = None,
        content: bytes = b"",
        path: str | None = None,
        chunk: bool = True,
    ) -> Prepared:
        # every text stored passes the one cleaning (control characters, TeX accents,
        # ligatures, NFC): PDF and OCR pages, JATS/HTML Markdown, records, provider fields
        work = clean_work(work)
        pages = [replace(p, text=clean_text(p.text)) for p in pages]
        markdown, spans = assemble_markdown(pages)
        chunks = self.chunks_for(work.id, markdown, spans) if chunk else []
        ocr_pages = sum(1 for p in pages if p.ocr)
        result = IngestResult(
            id=work.id, path=path, pages=len(pages), ocr_pages=ocr_pages, chunks=len(chunks)
        )
        return Prepared(
            work, markdown, spans, chunks, document, content, result=result, chunked=chunk
        )

    def ensure_chunks(self, item: Prepared) -> None:
        """Chunk a record prepared without chunks (its bytes were stored then) that has to
        be indexed after all, e.g. because its work was deleted in the meantime."""
        if not item.chunked:
            item.chunks = self.chunks_for(item.work.id, item.markdown, item.pages)
            item.result.chunks = len(item.chunks)
            item.chunked = True

    def prepare_pdf(
        self,
        data: bytes | CheckedPdf,
        *,
        path: str | None = None,
        work: Work | None = None,
        url: str | None = None,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        on_ocr: Callable[[int, int], None] | None = None,
    ) -> Prepared:
        """Parse a PDF (OCR where needed) into a work with its pages and chunks; bytes not
        yet checked (not a :class:`CheckedPdf`) are checked first."""
        from prioris.ingest.pdf.reader import PARSER_VERSION, extract_pdf

        if not isinstance(data, CheckedPdf):
            data = CheckedPdf.check(data, self.max_file_bytes)
        pdf = data.data
        if path is not None:  # a file name that is not UTF-8 is stored as readable text
            path = without_surrogates(path)
        sha = sha256_bytes(pdf)
        started = time.perf_counter()
        content = extract_pdf(
            pdf,
            ocr_mode=ocr_mode or self.ocr_mode,
            ocr=self.ocr,
            progress=progress,
            limits=self.pdf_limits,
            on_ocr=on_ocr,
        )
        log.debug(
            "parsed %s: %d pages (%d by OCR) in %.2f s",
            path or sha[:16],
            len(content.pages),
            content.ocr_pages,
            time.perf_counter() - started,
        )
        meta = content.metadata
        meta.abstract = trim_abstract(meta.abstract)  # not the keywords or body after it
        if work is None:
            fallback = Path(path).stem if path else f"Document {sha[:8]}"
            work = Work(
                id=f"file:{sha[:16]}",
                title=meta.title or fallback,
                authors=list(meta.authors),
                year=meta.year,
                abstract=meta.abstract,
                aliases=list(meta.identifiers),
                source="file",
                extra={"filename": Path(path).name} if path else {},
                **meta.venue_fields(),
            )
        else:  # a copy: the caller's work stays as it was (a worker's change is lost)
            work = replace(
                work,
                aliases=list(dict.fromkeys([*work.aliases, *meta.identifiers])),
                abstract=work.abstract or meta.abstract,  # a provider's abstract wins
            )
        document = Document(
            sha256=sha,
            work_id=work.id,
            format="pdf",
            size_bytes=len(pdf),
            page_count=len(content.pages),
            ocr_pages=content.ocr_pages,
            parser_version=PARSER_VERSION,
            path=path,
            url=url,
        )
        pages = list(content.pages)
        if pages:  # an authors' line set large is no section heading
            first = pages[0]
            text = demote_author_headings(
                first.text, [*meta.authors, *work.authors], meta.title or work.title
            )
            pages[0] = replace(first, text=text)
        prepared = self.prepare_pages(work, pages, document=document, content=pdf, path=path)
        prepared.records["printed"] = meta.printed()
        if meta.pdf_metadata():  # the PDF's own Info/XMP fields that page 1 agrees with
            prepared.records["pdf_metadata"] = meta.pdf_metadata()
        prepared.result.warnings = list(content.warnings)
        return prepared

    def prepare_fulltext(self, work: Work, full_text: FullText) -> Prepared:
        """A provider's full text: PDFs through the PDF path, HTML/JATS through Markdown."""
        if full_text.format == "pdf":
            return self.prepare_pdf(full_text.content, work=work, url=full_text.url)
        markdown = full_text.markdown or full_text.content.decode("utf-8", errors="replace")
        document = Document(
            sha256=sha256_bytes(full_text.content),
            work_id=work.id,
            format=full_text.format,
            size_bytes=len(full_text.content),
            page_count=1,
            parser_version=f"{full_text.format}-1",
            url=full_text.url,
        )
        return self.prepare_pages(
            work, [Page(1, markdown)], document=document, content=full_text.content
        )

    def prepare_metadata_only(self, work: Work) -> Prepared:
        """A work with no full text: its title and abstract are what gets indexed."""
        text = f"# {work.title}".strip() if work.title else ""
        if work.abstract:
            text += f"\n\n## Abstract\n\n{work.abstract}"
        return self.prepare_pages(work, [Page(1, text.strip())] if text.strip() else [])

    def prepare_record(self, record: Any, *, chunk: bool = True) -> Prepared:
        """A JSONL record (BEIR corpus format works as is) as a work with one text page.

        The record is validated first (:func:`prioris.ingest.records.validate_record`):
        a malformed one raises InvalidRequestError naming the field and the reason.
        ``chunk=False`` for a record whose text is already stored (the caller asks the
        library, :func:`record_sha256`): when an import is run again after a crash,
        tokenizing every stored record again was most of the cost of skipping it
        (docs/benchmarks.md section 3 (e)).
        """
        valid = validate_record(record)
        markdown, document = _record_text(valid)
        work = Work(
            id=valid.id,
            title=(valid.title or "").strip(),
            authors=valid.author_list(),
            year=valid.year,
            venue=valid.venue,
            abstract=valid.abstract,
            source=str(valid.source or "import"),
            extra=dict(valid.metadata or {}),
        )
        prepared = self.prepare_pages(
            work,
            [Page(1, markdown)],
            document=document,
            content=markdown.encode("utf-8"),
            chunk=chunk,
        )
        if valid.collections is not None or valid.tags is not None:
            prepared.labels = {"collections": valid.collections, "tags": valid.tags}
        return prepared


def _record_text(valid: Any) -> tuple[str, Document]:
    """A validated record's Markdown and the text document it is stored as."""
    title = (valid.title or "").strip()
    text = (valid.text or valid.abstract or "").strip()
    markdown = f"# {title}\n\n{text}" if title else text
    content = markdown.encode("utf-8")
    document = Document(
        sha256=sha256_bytes(content),
        work_id=valid.id,
        format="text",
        size_bytes=len(content),
        page_count=1,
        parser_version="text-1",
    )
    return markdown, document


def record_sha256(record: Any) -> str:
    """The sha256 a record's text is stored under (what :meth:`Preparer.prepare_record`
    would store), for the already-stored check the caller makes before preparing it;
    InvalidRequestError for a malformed record, as preparing it would raise."""
    return _record_text(validate_record(record))[1].sha256
