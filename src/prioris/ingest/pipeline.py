"""From bytes or records to a stored, indexed work: parse, chunk, embed, commit.

Parsing and embedding happen before the write transaction; everything one document
writes (work, aliases, original bytes, Markdown, pages, chunks, FTS rows, vectors) is then
committed in one ``BEGIN IMMEDIATE … COMMIT``. A crash leaves the whole document or none of
it, and a re-run skips bytes already stored, so a batch is resumable.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from prioris.embedding.base import Embedder
from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError, PriorisError
from prioris.ingest.chunking import PageSpan, chunk_markdown, is_reference_section
from prioris.ingest.ocr import OcrEngine
from prioris.ingest.records import validate_record
from prioris.models import Chunk, Document, FullText, Page, Work
from prioris.storage import chunks as chunk_store
from prioris.storage import documents as document_store
from prioris.storage import records as record_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage import works as work_store
from prioris.strings import without_surrogates

PAGE_SEPARATOR = "\n\n"
Now = Callable[[], str]
StepProgress = Callable[[str, int, int], None]
"""``(stage, done, total)`` while a document is ingested: ``"pages"`` read (OCR included),
``"embed"`` chunks embedded, ``"index"`` documents committed to the indexes."""
log = logging.getLogger(__name__)
EMBED_STEP = 32  # chunks per embedding call when progress is reported (about 1 s on 2 cores)


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
    """The work's own vector (title + abstract, :func:`work_text`), made with its chunks'."""
    work_text: str | None = None
    """The text ``work_vector`` was made from."""
    result: IngestResult = field(default_factory=lambda: IngestResult(id=""))
    records: dict[str, Any] = field(default_factory=dict)
    """Per-source records kept beside the work (``printed``, a provider's name)."""
    replace: bool = False  # bytes already stored: replace their parse (ingest --force)
    chunked: bool = True
    """False for a record whose bytes were already stored when it was prepared: its chunks
    are only made (by :meth:`IngestPipeline.ensure_chunks`) if it still has to be indexed."""


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


def embedding_text(title: str, text: str) -> str:
    """What the model sees for a chunk: the work's title gives a passage its context."""
    body = re.sub(r"^#{1,6}\s+", "", text, flags=re.MULTILINE)
    if title and not body.startswith(title):
        return f"{title}\n{body}"
    return body


def work_text(title: str, abstract: str | None, markdown: str | None) -> str:
    """What a work's own vector embeds: its title and abstract, else the head of its
    text (a record whose text is its abstract, a paper whose abstract was not found)."""
    head = (markdown or "")[: work_vector_store.WORK_TEXT_CHARS]
    return embedding_text(title or "", (abstract or "").strip() or head.strip())


def _title_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def titles_agree(a: str, b: str) -> bool:
    """Loose title match, used before merging a PDF into a work found through an alias."""
    wa, wb = _title_words(a), _title_words(b)
    if not wa or not wb:
        return False
    return len(wa & wb) / len(wa | wb) >= 0.5


class IngestPipeline:
    """Parses, chunks, embeds and stores documents for one library connection."""

    def __init__(
        self,
        conn: Any,
        embedder: Embedder,
        *,
        ocr: OcrEngine | None,
        ocr_mode: str,
        max_file_bytes: int,
        now: Now,
        pdf_limits: Any = None,
        write_lock: AbstractContextManager[Any] | None = None,
    ) -> None:
        self.conn = conn
        # shared with the Library: parsing and embedding run outside it, writes inside
        self.write_lock = write_lock if write_lock is not None else threading.RLock()
        self.embedder = embedder
        self.ocr = ocr
        self.ocr_mode = ocr_mode
        self.max_file_bytes = max_file_bytes
        self.now = now
        self.pdf_limits = pdf_limits  # a PdfLimits; None: its defaults

    # -- preparing ---------------------------------------------------------------------
    def _chunks_for(
        self, work_id: str, markdown: str, spans: list[tuple[Page, int, int]]
    ) -> list[Chunk]:
        """Chunks to index; a reference list is kept in the Markdown but not indexed."""
        page_spans = [PageSpan(page.number, start, end) for page, start, end in spans]
        spans_kept = [
            c
            for c in chunk_markdown(markdown, page_spans, self.embedder.count_tokens)
            if not is_reference_section(c.heading)
        ]
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
        markdown, spans = assemble_markdown(pages)
        chunks = self._chunks_for(work.id, markdown, spans) if chunk else []
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
            item.chunks = self._chunks_for(item.work.id, item.markdown, item.pages)
            item.result.chunks = len(item.chunks)
            item.chunked = True

    def prepare_pdf(
        self,
        data: bytes,
        *,
        path: str | None = None,
        work: Work | None = None,
        url: str | None = None,
        ocr_mode: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        on_ocr: Callable[[int, int], None] | None = None,
    ) -> Prepared:
        """Parse a PDF (OCR where needed) into a work with its pages and chunks."""
        from prioris.ingest.pdf.reader import PARSER_VERSION, check_pdf_bytes, extract_pdf

        check_pdf_bytes(data, self.max_file_bytes)
        if path is not None:  # a file name that is not UTF-8 is stored as readable text
            path = without_surrogates(path)
        sha = sha256_bytes(data)
        started = time.perf_counter()
        content = extract_pdf(
            data,
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
            )
        else:
            work.aliases = list(dict.fromkeys([*work.aliases, *meta.identifiers]))
            work.abstract = work.abstract or meta.abstract  # a provider's abstract wins
        document = Document(
            sha256=sha,
            work_id=work.id,
            format="pdf",
            size_bytes=len(data),
            page_count=len(content.pages),
            ocr_pages=content.ocr_pages,
            parser_version=PARSER_VERSION,
            path=path,
            url=url,
        )
        prepared = self.prepare_pages(
            work, content.pages, document=document, content=data, path=path
        )
        prepared.records["printed"] = meta.printed()
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

    def prepare_record(self, record: Any) -> Prepared:
        """A JSONL record (BEIR corpus format works as is) as a work with one text page.

        The record is validated first (:func:`prioris.ingest.records.validate_record`):
        a malformed one raises InvalidRequestError naming the field and the reason.
        A record whose text is already stored is not chunked: when an import is run again
        after a crash, tokenizing every stored record again was most of the cost of
        skipping it (docs/benchmarks.md section 3 (e)).
        """
        valid = validate_record(record)
        title = (valid.title or "").strip()
        text = (valid.text or valid.abstract or "").strip()
        work = Work(
            id=valid.id,
            title=title,
            authors=valid.author_list(),
            year=valid.year,
            venue=valid.venue,
            abstract=valid.abstract,
            source=str(valid.source or "import"),
            extra=dict(valid.metadata or {}),
        )
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
        stored = self.already_stored(document.sha256) is not None
        return self.prepare_pages(
            work, [Page(1, markdown)], document=document, content=content, chunk=not stored
        )

    # -- embedding and committing --------------------------------------------------------
    def embed(self, prepared: Sequence[Prepared], progress: StepProgress | None = None) -> None:
        """Embed the chunks of several documents together (batching across them), and
        each document's own text (title + abstract, :func:`work_text`).

        A text met twice is embedded once: a short record's one chunk is its work text.
        With ``progress``, the texts are embedded ``EMBED_STEP`` at a time, shortest first
        (so each call pads as little as one big call would), reporting after each call."""
        chunk_texts = [embedding_text(p.work.title, c.text) for p in prepared for c in p.chunks]
        owners = [p for p in prepared if p.chunks]  # a work without chunks is never found
        work_texts = [work_text(p.work.title, p.work.abstract, p.markdown) for p in owners]
        slots: dict[str, int] = {}
        where = [slots.setdefault(t, len(slots)) for t in (*chunk_texts, *work_texts)]
        texts = list(slots)
        started = time.perf_counter()
        if progress is not None:
            progress("embed", 0, len(texts))
        if progress is None or len(texts) <= EMBED_STEP:
            vectors = self.embedder.embed_passages(texts)
        else:
            vectors = np.empty((len(texts), self.embedder.dim), dtype=np.float32)
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
            for start in range(0, len(order), EMBED_STEP):
                part = order[start : start + EMBED_STEP]
                vectors[part] = self.embedder.embed_passages([texts[i] for i in part])
                progress("embed", start + len(part), len(texts))
        if progress is not None and len(texts) <= EMBED_STEP:
            progress("embed", len(texts), len(texts))
        log.debug(
            "embedded %d chunks and %d work texts (%d distinct) in %.2f s",
            len(chunk_texts),
            len(work_texts),
            len(texts),
            time.perf_counter() - started,
        )
        vectors = np.asarray(vectors)[np.asarray(where, dtype=np.int64)] if where else vectors
        position = 0
        for item in prepared:
            item.vectors = vectors[position : position + len(item.chunks)]
            position += len(item.chunks)
        for item, text in zip(owners, work_texts, strict=True):
            item.work_vector, item.work_text = vectors[position], text
            position += 1

    def already_stored(self, sha256: str) -> str | None:
        with self.write_lock:
            return document_store.has_document(self.conn, sha256)

    def commit(self, item: Prepared) -> IngestResult:
        """Write one prepared document in a single transaction (under the write lock)."""
        started = time.perf_counter()
        with self.write_lock:
            result = self._commit(item)
        log.debug(
            "committed %s (%s) in %.3f s", result.id, result.status, time.perf_counter() - started
        )
        return result

    def _commit(self, item: Prepared) -> IngestResult:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = self._write(item, self.now())
            self._keep_work_vector(result.id)  # a merged title or abstract dropped it
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return result

    def _write(self, item: Prepared, now: str) -> IngestResult:
        """Everything one document changes, inside ``_commit``'s transaction."""
        conn = self.conn
        if item.document is not None:
            owner = document_store.has_document(conn, item.document.sha256)
            if owner is not None and item.replace:
                return self._replace_parse(item, owner, now)
            if owner is not None:
                if item.work.source != "file":  # a provider's record of the same bytes
                    known = replace(item.work, id=owner, aliases=[item.work.id, *item.work.aliases])
                    work_store.upsert_work(conn, known, now)
                return IngestResult(
                    id=owner,
                    path=item.result.path,
                    status="skipped",
                    reason="identical bytes already stored",
                )
        work = item.work
        if work.source == "file":
            existing = work_store.find_work_id(conn, work.aliases)
            stored = work_store.get_work(conn, existing) if existing else None
            if stored is not None and not titles_agree(stored.title, work.title):
                work.aliases = []  # ids in the text belong to another paper: do not merge
        work_id = work_store.upsert_work(conn, work, now)
        stored_work, has_full_text = self._merged(work_id, item, now)
        if item.document is not None:
            item.document.work_id = work_id
            document_store.add_document(conn, item.document, item.content, now)
        # full text already indexed stays; a further copy is only stored
        chunk_count = 0 if has_full_text else self._index(item, stored_work, now)
        result = item.result
        result.id = work_id
        result.chunks = chunk_count
        return result

    def _merged(self, work_id: str, item: Prepared, now: str) -> tuple[Work, str | None]:
        """After the upsert: save what the source printed (a new parse's records replace the
        old), and return the stored work with the hash of its indexed Markdown (if any)."""
        if item.records:
            record_store.save_records(self.conn, work_id, item.records, now)
        work = work_store.get_work(self.conn, work_id)
        assert work is not None
        indexed = self.conn.execute(
            "SELECT markdown_sha256 FROM works WHERE id = ?", (work_id,)
        ).fetchone()[0]
        return work, indexed

    def _replace_parse(self, item: Prepared, owner: str, now: str) -> IngestResult:
        """Stored bytes parsed again: the document row takes the new parse, and the work's
        text, pages, chunks and vectors are rebuilt from it when it is the indexed text.
        Metadata merges as on any ingest (stored values kept, gaps filled)."""
        assert item.document is not None
        conn = self.conn
        document_store.update_parse(conn, item.document)
        work_store.upsert_work(conn, replace(item.work, id=owner), now)
        work, indexed = self._merged(owner, item, now)
        chunk_count = 0
        if indexed in (None, item.document.sha256):
            chunk_count = self._index(item, work, now)
        result = item.result
        result.id, result.chunks, result.reason = owner, chunk_count, "re-extracted"
        return result

    def _index(self, item: Prepared, work: Work, now: str) -> int:
        """Make ``item``'s Markdown the work's indexed text: pages, chunks, FTS, vectors."""
        conn = self.conn
        self.ensure_chunks(item)  # stored when prepared, deleted since: it is indexed after all
        chunk_store.delete_chunks_of(conn, work.id)
        sha = item.document.sha256 if item.document else None
        work_store.set_markdown(conn, work.id, item.markdown, sha, now)
        chunk_store.replace_pages(conn, work.id, item.pages)
        for chunk in item.chunks:
            chunk.work_id = work.id
        ids = chunk_store.insert_chunks(conn, item.chunks, work.title)
        if ids and item.vectors is not None:
            chunk_store.insert_vectors(
                conn,
                ids,
                item.vectors,
                self.embedder.model_id,
                work_ids=[work.id] * len(ids),
                sources=[work.source] * len(ids),
                years=[work.year] * len(ids),
            )
            self._store_work_vector(item, work)
        return len(ids)

    def _keep_work_vector(self, work_id: str) -> None:
        """A work with chunks but no vector of its own (a merged title or abstract dropped
        it: the trigger) gets one for its new text, in the same transaction; one indexed
        read when it has one."""
        model = self.embedder.model_id
        for _, title, abstract, head in work_vector_store.missing(
            self.conn, model, 1, work_ids=[work_id]
        ):
            vector = self.embedder.embed_passages([work_text(title, abstract, head)])[0]
            work_vector_store.store(self.conn, work_id, vector, model)

    def _store_work_vector(self, item: Prepared, work: Work) -> None:
        """The work's own vector, from the text it has now that it is merged: the one
        embedded with the chunks when the text is the same, else embedded here."""
        text = work_text(work.title, work.abstract, item.markdown)
        vector = item.work_vector
        if vector is None or text != item.work_text:
            vector = self.embedder.embed_passages([text])[0]
        work_vector_store.store(self.conn, work.id, vector, self.embedder.model_id)

    def index_stored(self, item: Prepared) -> int:
        """Index a work's text again from a document it still stores (after its Markdown
        was deleted): embed, then write pages, chunks, FTS rows and vectors; no bytes."""
        self.embed([item])
        with self.write_lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                count = self._index(item, item.work, self.now())
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return count

    def store(self, item: Prepared, progress: StepProgress | None = None) -> IngestResult:
        """Embed and commit one prepared document."""
        return self.store_many([item], progress)[0]

    def store_many(
        self, items: Iterable[Prepared], progress: StepProgress | None = None
    ) -> list[IngestResult]:
        """Embed a group of documents together, then commit each in its own transaction.

        Bytes already stored are not embedded again; their commit only merges the new
        record's metadata and aliases into the work that holds them (or is a no-op)."""
        items = list(items)
        new = [
            i
            for i in items
            if i.replace or i.document is None or not self.already_stored(i.document.sha256)
        ]
        for item in new:
            self.ensure_chunks(item)
        if new:
            self.embed(new, progress)
        results = []
        if progress is not None:
            progress("index", 0, len(items))
        for number, item in enumerate(items, start=1):
            results.append(self.commit(item))
            if progress is not None:
                progress("index", number, len(items))
        return results

    def store_each(self, items: Sequence[Prepared]) -> list[IngestResult | PriorisError]:
        """Like :meth:`store_many`, but one document failing is its result, not the batch's.

        Documents are embedded together; if that fails they are embedded one by one, so
        the failure stays with the document that caused it. Nothing committed is undone.
        """
        new = [i for i in items if i.document is None or not self.already_stored(i.document.sha256)]
        for item in new:
            self.ensure_chunks(item)
        failed: dict[int, PriorisError] = {}
        try:
            if new:
                self.embed(new)
        except PriorisError:
            for item in new:
                try:
                    self.embed([item])
                except PriorisError as exc:
                    failed[id(item)] = exc
        results: list[IngestResult | PriorisError] = []
        for item in items:
            if id(item) in failed:
                results.append(failed[id(item)])
                continue
            try:
                results.append(self.commit(item))
            except PriorisError as exc:
                results.append(exc)
        return results


def read_file_checked(path: Path, max_bytes: int) -> bytes:
    """Read a file after checking its size against the cap (no huge read for nothing).

    Any OS error (permission denied, a directory, an I/O error) is this file's failure:
    NotFoundError or InvalidRequestError with the reason, never an OSError.
    """
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise FileTooLargeError(
                f"{path} is {size} bytes, over the limit of {max_bytes} "
                "(PRIORIS_MCP_MAX_FILE_BYTES)"
            )
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {path}") from None
    except OSError as exc:
        raise InvalidRequestError(f"cannot read {path}: {os_reason(exc)}") from None
    if len(data) > max_bytes:  # it grew since stat
        raise FileTooLargeError(
            f"{path} is over the limit of {max_bytes} bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
        )
    return data


def os_reason(exc: OSError) -> str:
    """An OSError as a short reason (``permission denied``), without the path twice."""
    return (exc.strerror or type(exc).__name__).lower()
