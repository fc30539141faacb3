"""What shared tests read of each backend's own tables (the full-text rows and vectors)."""

from __future__ import annotations

from typing import Any


def is_postgres(library: Any) -> bool:
    return library.storage.kind == "postgresql"


def fts_rows_sql(library: Any) -> str:
    """Rows of the full-text index: FTS5's table, or the chunks with a tsvector."""
    if is_postgres(library):
        return "SELECT count(*) FROM chunks WHERE tsv IS NOT NULL"
    return "SELECT count(*) FROM chunks_fts"


def vector_table(library: Any) -> str:
    return "chunk_vectors" if is_postgres(library) else "chunks_vec"


def chunk_text(library: Any) -> str:
    """SQL reading ``chunks.text`` as text (SQLite stores it packed)."""
    from prioris.storage.backend import index_of

    return index_of(library.conn).text_sql("text")
