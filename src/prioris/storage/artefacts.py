"""A work's stored artefacts in PriorisMCP's terms: per format, a document and a Markdown.

A work holds the original bytes of each format it was fetched in (``documents`` rows and
their blobs: the **document** artefacts) and one indexed text: ``works.markdown`` with its
pages, chunks, FTS rows and vectors (the **markdown** artefact), parsed from the document
of format ``works.markdown_format``. A work stored without full text (metadata and
abstract only) has a Markdown and no document; its format is called ``metadata``.

Deleting a document removes only the bytes; deleting the Markdown removes the text and
every index entry made from it, and keeps the bytes. A work left with neither is removed
with its metadata and aliases. Every function runs inside the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prioris.storage.backend import index_of
from prioris.storage.chunks import delete_chunks_of
from prioris.storage.works import delete_work

METADATA_FORMAT = "metadata"
ARTEFACTS = ("document", "markdown")


@dataclass(frozen=True)
class ArtefactRow:
    """One stored artefact of one work."""

    work_id: str
    source: str
    title: str
    format: str
    artefact: str  # document | markdown
    stored_at: str
    size_bytes: int


def _where(source: str | None, fmt: str | None, format_sql: str) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if source is not None:
        clauses.append("w.source = ?")
        params.append(source)
    if fmt is not None:
        clauses.append(f"{format_sql} = ?")
        params.append(fmt)
    return "".join(f" AND {c}" for c in clauses), params


def list_artefacts(
    conn: Any, *, source: str | None = None, fmt: str | None = None
) -> list[ArtefactRow]:
    """Every document and Markdown stored, newest work first, filtered by source/format."""
    doc_where, doc_params = _where(source, fmt, "d.format")
    md_format = f"coalesce(w.markdown_format, '{METADATA_FORMAT}')"
    md_where, md_params = _where(source, fmt, md_format)
    rows = conn.execute(
        "SELECT * FROM ("
        "SELECT w.id AS work_id, w.source, w.title, w.created_at AS added, d.format, "
        "'document' AS artefact, d.created_at AS stored_at, d.size_bytes "
        f"FROM documents d JOIN works w ON w.id = d.work_id WHERE 1 = 1{doc_where} "
        "UNION ALL "
        f"SELECT w.id, w.source, w.title, w.created_at, {md_format}, 'markdown', w.updated_at, "
        f"{index_of(conn).byte_length('w.markdown')} "
        f"FROM works w WHERE w.markdown != ''{md_where}"
        ") AS listed ORDER BY added DESC, work_id, format, artefact",
        [*doc_params, *md_params],
    ).fetchall()
    return [
        ArtefactRow(
            work_id=r["work_id"],
            source=r["source"],
            title=r["title"],
            format=r["format"],
            artefact=r["artefact"],
            stored_at=r["stored_at"],
            size_bytes=int(r["size_bytes"] or 0),
        )
        for r in rows
    ]


def markdown_format(conn: Any, work_id: str) -> str | None:
    """Format of the work's indexed Markdown (``metadata`` without a document); None when
    the work has no Markdown."""
    row = conn.execute(
        "SELECT markdown != '' AS has_text, markdown_format FROM works WHERE id = ?", (work_id,)
    ).fetchone()
    if row is None or not row["has_text"]:
        return None
    return row["markdown_format"] or METADATA_FORMAT


def markdown_formats(conn: Any, work_ids: list[str]) -> dict[str, str]:
    """``markdown_format`` of several works at once (works without Markdown left out)."""
    found: dict[str, str] = {}
    for start in range(0, len(work_ids), 500):
        batch = work_ids[start : start + 500]
        marks = ", ".join("?" for _ in batch)
        for row in conn.execute(
            f"SELECT id, markdown_format FROM works WHERE markdown != '' AND id IN ({marks})",
            batch,
        ):
            found[row[0]] = row[1] or METADATA_FORMAT
    return found


def works_with_markdown_format(conn: Any, fmt: str) -> list[str]:
    """Ids of the works whose indexed Markdown was parsed from a document of ``fmt``."""
    if fmt == METADATA_FORMAT:
        sql = "SELECT id FROM works WHERE markdown != '' AND markdown_format IS NULL"
        return [r[0] for r in conn.execute(sql)]
    return [r[0] for r in conn.execute("SELECT id FROM works WHERE markdown_format = ?", (fmt,))]


def delete_document(conn: Any, work_id: str, fmt: str) -> bool:
    """Remove the work's stored bytes of format ``fmt`` (its Markdown stays); False if none."""
    shas = [
        r[0]
        for r in conn.execute(
            "SELECT sha256 FROM documents WHERE work_id = ? AND format = ?", (work_id, fmt)
        )
    ]
    for sha in shas:
        conn.execute("DELETE FROM documents WHERE sha256 = ?", (sha,))
        conn.execute(
            "DELETE FROM blobs WHERE sha256 = ? AND NOT EXISTS "
            "(SELECT 1 FROM documents WHERE sha256 = ?)",
            (sha, sha),
        )
    return bool(shas)


def delete_markdown(conn: Any, work_id: str, fmt: str) -> bool:
    """Remove the work's Markdown when it was parsed from ``fmt``: text, pages, chunks, FTS
    rows and vectors (the stored bytes stay); False when there is no such Markdown."""
    if markdown_format(conn, work_id) != fmt:
        return False
    delete_chunks_of(conn, work_id, keep_notes=True)
    conn.execute("DELETE FROM pages WHERE work_id = ?", (work_id,))
    conn.execute(
        "UPDATE works SET markdown = '', markdown_sha256 = NULL, markdown_format = NULL "
        "WHERE id = ?",
        (work_id,),
    )
    return True


def remove_if_empty(conn: Any, work_id: str) -> bool:
    """Delete the work (metadata, aliases) when it holds no document and no Markdown."""
    row = conn.execute(
        "SELECT markdown = '' AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.work_id = w.id) "
        "FROM works w WHERE w.id = ?",
        (work_id,),
    ).fetchone()
    if row is None or not row[0]:
        return False
    delete_work(conn, work_id)
    return True
