"""The two SQL retrievals over the library file: FTS5 BM25 and sqlite-vec KNN.

Filters are applied inside each query (SQL WHERE for FTS5, metadata columns inside the
``vec0`` KNN), so a filtered search still returns k hits when k exist.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from prioris.engines.sqlite.connection import sqlite3
from prioris.engines.sqlite.index import VEC_TABLE
from prioris.errors import InvalidRequestError
from prioris.search.protocols import VEC_MAX_K, ChunkScore, SearchFilters


def _where(filters: SearchFilters, alias: str) -> tuple[str, list[Any]]:
    # vec0 keeps 0 for an unknown year (its metadata cannot be NULL)
    clauses, params = filters.column_clauses(
        alias, unknown_year="= 0" if alias == "v" else "IS NULL"
    )
    if filters.work_ids is not None:
        marks = ", ".join("?" for _ in filters.work_ids) or "NULL"
        id_column = "work_id" if alias == "v" else "id"
        clauses.append(f"{alias}.{id_column} IN ({marks})")
        params.extend(filters.work_ids)
    return "".join(f" AND {c}" for c in clauses), params


def count_works(conn: Any, filters: SearchFilters) -> int:
    """Works matching the filters' source, year and id restrictions."""
    where, params = _where(filters, "w")
    return int(
        conn.execute(f"SELECT count(*) FROM works w WHERE 1 = 1{where}", params).fetchone()[0]
    )


def fts_search(
    conn: Any,
    expression: str,
    filters: SearchFilters,
    limit: int,
    *,
    title_weight: float = 1.0,
    heading_weight: float = 0.5,
    rowids: tuple[int, int] | None = None,
) -> list[ChunkScore]:
    """BM25 over chunk text, title and heading; a malformed expression is invalid_request.

    ``rowids`` (first, last) ranks only that span of chunk ids: FTS5 seeks to it, and its
    BM25 statistics are those of the whole index, so spans ranked apart and merged give
    the same list as one query (the SQLite backend uses this to rank on two cores)."""
    where, params = _where(filters, "w")
    span, span_params = "", []
    if rowids is not None:
        span, span_params = " AND f.rowid BETWEEN ? AND ?", list(rowids)
    if where:
        sql = (
            "SELECT f.rowid, c.work_id, bm25(chunks_fts, 1.0, ?, ?) AS score FROM chunks_fts f "
            "JOIN chunks c ON c.id = f.rowid JOIN works w ON w.id = c.work_id "
            f"WHERE chunks_fts MATCH ?{span}{where} ORDER BY score LIMIT ?"
        )
    else:  # no join per match: rank in FTS5 alone, then look up the few rows kept
        sql = (
            "SELECT f.rowid, NULL, bm25(chunks_fts, 1.0, ?, ?) AS score FROM chunks_fts f "
            f"WHERE chunks_fts MATCH ?{span} ORDER BY score LIMIT ?"
        )
    try:
        rows = conn.execute(
            sql, (title_weight, heading_weight, expression, *span_params, *params, limit)
        ).fetchall()
        if not where and rows:
            marks = ", ".join("?" for _ in rows)
            owners = dict(
                conn.execute(
                    f"SELECT id, work_id FROM chunks WHERE id IN ({marks})", [r[0] for r in rows]
                ).fetchall()
            )
            rows = [(r[0], owners.get(r[0]), r[2]) for r in rows]
        return [ChunkScore(int(r[0]), str(r[1]), -float(r[2])) for r in rows if r[1] is not None]
    except sqlite3.OperationalError as exc:
        message = str(exc)
        if not any(word in message for word in ("locked", "busy", "disk", "I/O", "memory")):
            raise InvalidRequestError(f"malformed FTS5 query {expression!r}: {message}") from exc
        raise


def vector_search(conn: Any, query: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
    """Exact cosine KNN with the filters inside the ``vec0`` query.

    vec0 takes no OR among its metadata constraints, so a year filter that keeps works
    without a year runs as two KNNs (the years asked for, then the undated works) merged
    by distance."""
    if filters.include_undated and filters.has_years and not filters.undated_only:
        dated = vector_search(conn, query, replace(filters, include_undated=False), k)
        undated = vector_search(conn, query, replace(filters, undated_only=True), k)
        return sorted(dated + undated, key=lambda c: -c.score)[: min(max(k, 1), VEC_MAX_K)]
    where, params = _where(filters, "v")
    k = min(max(k, 1), VEC_MAX_K)
    sql = (
        f"SELECT v.chunk_id, v.work_id, v.distance FROM {VEC_TABLE} v "
        f"WHERE v.embedding MATCH ? AND k = ?{where} ORDER BY v.distance"
    )
    blob = np.ascontiguousarray(query, dtype=np.float32).tobytes()
    rows = conn.execute(sql, (blob, k, *params)).fetchall()
    return [ChunkScore(int(r[0]), str(r[1]), 1.0 - float(r[2])) for r in rows]
