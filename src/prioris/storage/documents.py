"""Original documents, content-addressed by SHA-256, their bytes kept in the same file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prioris.models import Document


def has_document(conn: Any, sha256: str) -> str | None:
    """The work that already holds these exact bytes, if any."""
    row = conn.execute("SELECT work_id FROM documents WHERE sha256 = ?", (sha256,)).fetchone()
    return None if row is None else str(row[0])


def add_document(conn: Any, document: Document, content: bytes, now: str) -> None:
    """Store the bytes (once) and the document row, inside the caller's transaction."""
    conn.execute(
        "INSERT INTO blobs(sha256, size_bytes, content) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        (document.sha256, len(content), content),
    )
    conn.execute(
        "INSERT INTO documents(sha256, work_id, format, size_bytes, page_count, ocr_pages, "
        "parser_version, path, url, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            document.sha256,
            document.work_id,
            document.format,
            document.size_bytes,
            document.page_count,
            document.ocr_pages,
            document.parser_version,
            document.path,
            document.url,
            now,
        ),
    )


def documents_of(conn: Any, work_id: str) -> list[Document]:
    rows = conn.execute(
        "SELECT * FROM documents WHERE work_id = ? ORDER BY created_at, sha256", (work_id,)
    ).fetchall()
    return [
        Document(
            sha256=r["sha256"],
            work_id=r["work_id"],
            format=r["format"],
            size_bytes=r["size_bytes"],
            page_count=r["page_count"],
            ocr_pages=r["ocr_pages"],
            parser_version=r["parser_version"],
            path=r["path"],
            url=r["url"],
            created_at=r["created_at"],
        )
        for r in rows
    ]


def get_blob(conn: Any, sha256: str) -> bytes | None:
    row = conn.execute("SELECT content FROM blobs WHERE sha256 = ?", (sha256,)).fetchone()
    return None if row is None else bytes(row[0])


def update_parse(conn: Any, document: Document) -> None:
    """Record a fresh parse of stored bytes (``ingest --force``): pages, OCR, parser."""
    conn.execute(
        "UPDATE documents SET page_count = ?, ocr_pages = ?, parser_version = ? WHERE sha256 = ?",
        (document.page_count, document.ocr_pages, document.parser_version, document.sha256),
    )


def paginated_works(conn: Any, work_ids: Sequence[str]) -> set[str]:
    """Which works are indexed from a paginated document (a PDF), so page numbers mean
    something; imported records and HTML/XML full texts are one pseudo-page."""
    ids = list(dict.fromkeys(work_ids))
    if not ids:
        return set()
    marks = ", ".join("?" for _ in ids)
    rows = conn.execute(
        "SELECT w.id FROM works w JOIN documents d ON d.sha256 = w.markdown_sha256 "
        f"WHERE d.format = 'pdf' AND w.id IN ({marks})",
        ids,
    ).fetchall()
    return {r[0] for r in rows}
