"""The PostgreSQL search backend: ``ts_rank_cd`` over the GIN index, KNN over HNSW.

Full text: the FTS5 expression becomes a tsquery (:mod:`prioris.search.tsquery`), matched
through the GIN index and ranked by ``ts_rank_cd`` with the title (A), passage (B) and
heading (C) weighted as BM25's columns are on SQLite. PostgreSQL's ranking is not BM25:
docs/benchmarks.md compares the two on SciFact.

Vectors: pgvector 0.6 has no iterative index scans, so an HNSW scan returns at most
``hnsw.ef_search`` candidates *before* the filters: a filtered query that comes back
short is asked again with a wider ``ef_search`` (up to pgvector's 1000), and one still
short (a rare source, a narrow year range, a handful of works) is answered exactly by a
scan of the rows the filters keep. A filtered search thus returns k hits when k exist.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from prioris.errors import InvalidRequestError
from prioris.search.backends import ChunkScore, SearchFilters
from prioris.search.protocols import Passage, WorkSummary
from prioris.search.tsquery import to_tsquery_text
from prioris.storage.postgres.connection import PgConnection
from prioris.storage.postgres.index import VECTOR_TABLE

MAX_EF_SEARCH = 1000  # pgvector's ceiling
HEADING_WEIGHT = 0.5
RANK_NORMALIZATION = 1  # divide by 1 + log(length): longer passages do not win by size


def _where(filters: SearchFilters, alias: str, id_column: str) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if filters.source:
        clauses.append(f"{alias}.source = ?")
        params.append(filters.source)
    if filters.from_year is not None:
        clauses.append(f"{alias}.year >= ?")
        params.append(filters.from_year)
    if filters.to_year is not None:
        clauses.append(f"{alias}.year <= ?")
        params.append(filters.to_year)
    if filters.work_ids is not None:
        clauses.append(f"{alias}.{id_column} = ANY(?)")
        params.append(list(filters.work_ids))
    return "".join(f" AND {c}" for c in clauses), params


def rank_weights(title_weight: float) -> list[float]:
    """ts_rank's {D, C, B, A} weights (each at most 1) in the proportions of BM25's."""
    raw = [0.0, HEADING_WEIGHT, 1.0, title_weight]
    top = max(raw) or 1.0
    return [w / top for w in raw]


class PostgresSearchBackend:
    def __init__(self, storage: Any, *, ef_search: int = 100) -> None:
        self.storage = storage
        self.ef_search = max(1, min(int(ef_search), MAX_EF_SEARCH))
        self.widened = 0  # KNN queries asked again with a wider ef_search (bench reads it)
        self.exact = 0  # ... and answered by an exact scan

    def _run(self, work: Any) -> Any:
        with self.storage.pool().connection() as raw:
            return work(PgConnection(raw, self.storage.location))

    def close(self) -> None:
        self.storage.close()

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        import psycopg

        query = to_tsquery_text(expression)
        if query is None:
            return []
        where, params = _where(filters, "w", "id")
        join = " JOIN works w ON w.id = c.work_id" if where else ""
        sql = (
            "SELECT c.id, c.work_id, ts_rank_cd(?::real[], c.tsv, q, ?) AS score "
            f"FROM chunks c{join}, to_tsquery('english', ?) q "
            f"WHERE c.tsv @@ q{where} ORDER BY score DESC, c.id"
        )
        args: list[Any] = [rank_weights(title_weight), RANK_NORMALIZATION, query, *params]
        if limit >= 0:
            sql += " LIMIT ?"
            args.append(limit)

        def run(conn: PgConnection) -> list[Any]:
            return list(conn.execute(sql, args).fetchall())

        try:
            rows = self._run(run)
        except psycopg.errors.SyntaxError as exc:
            raise InvalidRequestError(f"malformed FTS5 query {expression!r}: {exc}") from None
        return [ChunkScore(int(r[0]), str(r[1]), float(r[2])) for r in rows]

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        query = np.ascontiguousarray(vector, dtype=np.float32)
        where, params = _where(filters, "v", "work_id")
        k = max(k, 1)

        def run(conn: PgConnection) -> list[ChunkScore]:
            if filters.work_ids is not None or k > MAX_EF_SEARCH:
                return self._exact(conn, query, where, params, k)
            ef = max(self.ef_search, k)
            while True:
                rows = self._approximate(conn, query, where, params, k, ef)
                if len(rows) >= k or not where:
                    return rows
                if ef >= MAX_EF_SEARCH:
                    self.exact += 1
                    return self._exact(conn, query, where, params, k)
                self.widened += 1
                ef = min(ef * 4, MAX_EF_SEARCH)

        return list(self._run(run))

    @staticmethod
    def _sql(where: str) -> str:
        return (
            f"SELECT v.chunk_id, v.work_id, v.embedding <=> ? AS distance FROM {VECTOR_TABLE} v "
            f"WHERE true{where} ORDER BY distance LIMIT ?"
        )

    def _approximate(
        self, conn: PgConnection, query: np.ndarray, where: str, params: list[Any], k: int, ef: int
    ) -> list[ChunkScore]:
        conn.execute("BEGIN")
        try:
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
            rows = conn.execute(self._sql(where), [query, *params, k]).fetchall()
        finally:
            conn.execute("COMMIT")
        return [ChunkScore(int(r[0]), str(r[1]), 1.0 - float(r[2])) for r in rows]

    def _exact(
        self, conn: PgConnection, query: np.ndarray, where: str, params: list[Any], k: int
    ) -> list[ChunkScore]:
        conn.execute("BEGIN")
        try:
            conn.execute("SET LOCAL enable_indexscan = off")
            rows = conn.execute(self._sql(where), [query, *params, k]).fetchall()
        finally:
            conn.execute("COMMIT")
        return [ChunkScore(int(r[0]), str(r[1]), 1.0 - float(r[2])) for r in rows]

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        def run(conn: PgConnection) -> dict[int, Passage]:
            rows = conn.execute(
                "SELECT id, text, page_start, page_end, char_start FROM chunks WHERE id = ANY(?)",
                (list(chunk_ids),),
            ).fetchall()
            return {r[0]: Passage(r[0], r[1], r[2], r[3], r[4]) for r in rows}

        return dict(self._run(run))

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        def run(conn: PgConnection) -> dict[str, WorkSummary]:
            rows = conn.execute(
                "SELECT id, title, authors, year, source FROM works WHERE id = ANY(?)",
                (list(work_ids),),
            ).fetchall()
            return {
                r[0]: WorkSummary(r[0], r[1], json.loads(r[2] or "[]"), r[3], r[4]) for r in rows
            }

        return dict(self._run(run))
