"""The PostgreSQL search backend: BM25 over the GIN index's matches, KNN over HNSW.

Full text: the FTS5 expression becomes a tsquery (:mod:`prioris.engines.postgres.tsquery`), matched
through the GIN index, and the matches are ranked by BM25 computed in SQL with FTS5's
formula and constants: each query lexeme's tf is read from the chunk's tsvector (title
positions weigh ``title_weight``, passage 1, heading 0.5, FTS5's column weights), its idf
from how many chunks hold it, and the length from ``chunks.tsv_length``. PostgreSQL's own
``ts_rank_cd`` (no idf) scored 0.46 nDCG@10 on SciFact train against BM25's 0.70
(docs/benchmarks.md), hence this. Chunk count, average length and per-lexeme counts are
remembered until the index changes (past ``LARGE`` chunks, at most every
``STATS_SECONDS`` while it changes: a count costs a scan) -- unless the BM25 postings table
(:mod:`prioris.engines.postgres.postings`) has a build: the statistics are then exact at
every query, and a plain query is ranked from the postings in numpy, not in SQL.

Vectors: past ``vector_copy_min_rows`` chunks, an in-process copy of the vectors
(:mod:`prioris.engines.postgres.vector_cache`) answers while it is current; HNSW answers
before it is loaded, and always below that size. A plain HNSW scan returns at most
``hnsw.ef_search`` candidates *before* the filters, so a filtered query (a rare source, a
narrow year range) used to come back short; pgvector 0.8's iterative index scans
(``hnsw.iterative_scan = strict_order``) keep walking the graph until k rows pass the
filters or ``hnsw.max_scan_tuples`` are visited, in distance order. A query still short
after that (the filters keep fewer rows than the scan may visit) is answered exactly by
a scan of the rows the filters keep. A filtered search thus returns k hits when k exist.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from prioris.engines.postgres.connection import PgConnection
from prioris.engines.postgres.index import VECTOR_TABLE
from prioris.engines.postgres.postings import PostgresPostings
from prioris.engines.postgres.tsquery import to_tsquery_text
from prioris.engines.postgres.vector_cache import PostgresVectors
from prioris.errors import InvalidRequestError
from prioris.search import fts_plan
from prioris.search.fts_plan import idf
from prioris.search.protocols import ChunkScore, Passage, SearchFilters, WorkSummary
from prioris.search.vector_copy import VectorCache
from prioris.storage import labels as label_store
from prioris.storage import work_vectors as work_vector_store

MAX_EF_SEARCH = 1000  # pgvector's ceiling
MAX_SCAN_TUPLES = 20_000  # an iterative scan's bound (pgvector's default) before exact
HEADING_WEIGHT = 0.5
K1, B = 1.2, 0.75  # FTS5's bm25() constants
STATS_SECONDS = 5.0  # a large changing index refreshes its BM25 statistics this often
LARGE = 100_000  # chunks: below, statistics are exact after every change
COUNT_CACHE = 20_000  # lexemes whose chunk counts are remembered
_WORD = re.compile(r"\w+", re.UNICODE)
_OPERATORS = frozenset(("AND", "OR", "NOT", "NEAR"))


def _where(filters: SearchFilters, alias: str, id_column: str) -> tuple[str, list[Any]]:
    clauses, params = filters.column_clauses(alias)
    if filters.work_ids is not None:
        clauses.append(f"{alias}.{id_column} = ANY(?)")
        params.append(list(filters.work_ids))
    return "".join(f" AND {c}" for c in clauses), params


BM25_SQL = (
    "WITH t AS (SELECT * FROM unnest(?::text[], ?::float8[]) AS t(lexeme, idf)) "
    "SELECT c.id, c.work_id, coalesce(sum(t.idf * x.tf * ? / "
    "(x.tf + ? * (? + ? * c.tsv_length / ?))), 0) AS score "
    "FROM chunks c{join} CROSS JOIN to_tsquery('english', prioris_fold(?)) q "
    "LEFT JOIN LATERAL (SELECT u.lexeme, (SELECT sum(CASE w WHEN 'A' THEN ? WHEN 'B' THEN 1.0 "
    "WHEN 'C' THEN ? ELSE 0 END) FROM unnest(u.weights) w) AS tf "
    "FROM unnest(c.tsv) u WHERE u.lexeme = ANY(?)) x ON true "
    "LEFT JOIN t ON t.lexeme = x.lexeme "
    "WHERE c.tsv @@ q{where} GROUP BY c.id, c.work_id ORDER BY score DESC, c.id"
)


def plain_words(expression: str) -> list[str] | None:
    """The words of a plain query (``"a" OR "b"``, or one ``"word"``) when each is one
    word character run, else None: what the postings table can rank."""
    quoted = fts_plan.words_of(expression)
    if quoted is None:
        inner = expression[1:-1]
        if len(expression) < 3 or expression[0] != '"' or expression[-1] != '"' or '"' in inner:
            return None
        quoted = [expression]
    words = [w[1:-1] for w in quoted]
    return words if all(_WORD.fullmatch(w) for w in words) else None


class PostgresSearchBackend:
    def __init__(
        self,
        storage: Any,
        *,
        ef_search: int = 400,
        postings_min_rows: int = LARGE,
        vector_copy_min_rows: int = 0,
    ) -> None:
        """``vector_copy_min_rows``: from this many vectors KNN is answered from an
        in-process copy of them while it is current (0: HNSW always)."""
        self.storage = storage
        self.postings = PostgresPostings(
            lambda: storage.connect(migrate=False).raw, min_rows=postings_min_rows
        )
        self.vector_cache: VectorCache | None = None
        if vector_copy_min_rows > 0:
            self.vector_cache = VectorCache(
                storage.connect_reader, PostgresVectors(vector_copy_min_rows)
            )
        self.copied = 0  # KNN queries answered by the in-process copy (bench reads it)
        self.ef_search = max(1, min(int(ef_search), MAX_EF_SEARCH))
        self.iterative = 0  # filtered KNN queries answered by an iterative scan (bench)
        self.exact = 0  # ... still short after it, answered by an exact scan
        self._stats_lock = threading.Lock()
        self._stats: tuple[int, float] = (0, 1.0)  # chunks, average length
        self._counts: dict[str, int] = {}
        self._stats_version = -1
        self._stats_at = 0.0

    def _run(self, work: Any) -> Any:
        """``work(conn)`` on a reader: a replica's when one serves (storage.run_read)."""
        return self.storage.run_read(lambda raw, url: work(PgConnection(raw, url)))

    def build_postings(self) -> dict[str, Any]:
        """The BM25 postings table rebuilt now; what the build did (``built`` false when
        another process was building)."""
        result = self.postings.build_now()
        if result is None:
            return {"built": False}
        return {"built": True, **{k: getattr(result, k) for k in result.__dataclass_fields__}}

    def close(self) -> None:
        if self.vector_cache is not None:
            self.vector_cache.close()
        self.postings.close()
        self.storage.close()

    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        import psycopg

        query = to_tsquery_text(expression)
        if query is None:
            return []
        words = plain_words(expression) if title_weight > 0 else None
        if words is not None:
            ranked = self._run(
                lambda conn: self.postings.rank(
                    conn.raw, words, limit, title_weight=title_weight, accept=self._accept(filters)
                )
            )
            if ranked is not None:
                return [ChunkScore(c, w, s) for c, w, s in ranked]
        words = " ".join(w for w in _WORD.findall(expression) if w not in _OPERATORS)
        where, params = _where(filters, "w", "id")
        join = " JOIN works w ON w.id = c.work_id" if where else ""
        sql = BM25_SQL.format(join=join, where=where)
        if limit >= 0:
            sql += " LIMIT ?"

        def run(conn: PgConnection) -> list[Any]:
            lexemes = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT unnest(tsvector_to_array("
                    "to_tsvector('english', prioris_fold(?))))",
                    (words,),
                )
            ]
            rows, avgdl, counts = self._statistics(conn, lexemes)
            idfs = [idf(counts[lexeme], rows) for lexeme in lexemes]
            args: list[Any] = [lexemes, idfs, K1 + 1, K1, 1 - B, B, avgdl, query]
            args += [title_weight, HEADING_WEIGHT, lexemes, *params]
            if limit >= 0:
                args.append(limit)
            return list(conn.execute(sql, args).fetchall())

        try:
            found = self._run(run)
        except psycopg.errors.SyntaxError as exc:
            raise InvalidRequestError(f"malformed FTS5 query {expression!r}: {exc}") from None
        return [ChunkScore(int(r[0]), str(r[1]), float(r[2])) for r in found]

    def _accept(self, filters: SearchFilters) -> Any:
        """The work of each chunk id the filters keep, read on the ranking's connection.

        Without filters, the vector copy names the works of the chunks it holds when it is
        current in the ranking's own snapshot (no vector added or deleted since it was
        loaded, so every chunk it holds exists): at a million chunks hybrid's FTS half
        ranks 400 chunks, whose works cost 5-12 ms by index and ~0.3 ms from the copy."""
        where, params = _where(filters, "w", "id")
        join = " JOIN works w ON w.id = c.work_id" if where else ""
        sql = f"SELECT c.id, c.work_id FROM chunks c{join} WHERE c.id = ANY(?){where}"
        cache = None if where else self.vector_cache

        def accept(raw: Any, ids: list[int]) -> dict[int, str]:
            conn = PgConnection(raw, "")
            owners = cache.owners(conn, ids) if cache is not None else {}
            missing = [i for i in ids if i not in owners] if owners else ids
            if missing:
                rows = conn.execute(sql, [missing, *params]).fetchall()
                owners.update((int(r[0]), str(r[1])) for r in rows)
            return owners

        return accept

    def _statistics(
        self, conn: PgConnection, lexemes: list[str]
    ) -> tuple[int, float, dict[str, int]]:
        """Chunk count, average length and the chunk count of each lexeme: exact from the
        postings table and the changes since its build when there is one, else counted
        and remembered (past ``LARGE`` chunks, for up to ``STATS_SECONDS``)."""
        from prioris.storage.chunks import vectors_version

        exact = self.postings.statistics(conn.raw, lexemes)
        if exact is not None:
            return exact

        version = vectors_version(conn)
        with self._stats_lock:
            now = time.monotonic()
            stale = version != self._stats_version
            # a large library being written to recounts at most every STATS_SECONDS
            if stale and (self._stats[0] < LARGE or now - self._stats_at > STATS_SECONDS):
                row = conn.execute(
                    "SELECT count(*), coalesce(avg(tsv_length), 1) FROM chunks"
                ).fetchone()
                self._stats = (int(row[0]), max(float(row[1]), 1.0))
                self._counts, self._stats_version, self._stats_at = {}, version, now
            if len(self._counts) > COUNT_CACHE:
                self._counts = {}
            missing = [lexeme for lexeme in lexemes if lexeme not in self._counts]
            for lexeme in missing:
                self._counts[lexeme] = int(
                    conn.execute(
                        "SELECT count(*) FROM chunks WHERE tsv @@ ?::tsquery",
                        ("'" + lexeme.replace("'", "''") + "'",),
                    ).fetchone()[0]
                )
            return self._stats[0], self._stats[1], {x: self._counts[x] for x in lexemes}

    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        query = np.ascontiguousarray(vector, dtype=np.float32)
        where, params = _where(filters, "v", "work_id")
        k = max(k, 1)

        def run(conn: PgConnection) -> list[ChunkScore]:
            if self.vector_cache is not None:
                copied = self.vector_cache.knn(conn, query, filters, k)
                if copied is not None:
                    self.copied += 1
                    return copied
            if filters.work_ids is not None or k > MAX_EF_SEARCH:
                return self._exact(conn, query, where, params, k)
            rows = self._approximate(conn, query, where, params, k, max(self.ef_search, k))
            if len(rows) >= k or not where:
                self.iterative += bool(where)
                return rows
            self.exact += 1
            return self._exact(conn, query, where, params, k)

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
            if where:  # past ef_search candidates until k pass the filters (pgvector 0.8)
                conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
                conn.execute(f"SET LOCAL hnsw.max_scan_tuples = {MAX_SCAN_TUPLES}")
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
                "SELECT id, text, page_start, page_end, char_start, section FROM chunks "
                "WHERE id = ANY(?)",
                (list(chunk_ids),),
            ).fetchall()
            return {r[0]: Passage(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows}

        return dict(self._run(run))

    def labelled_works(self, collections: Sequence[str], tags: Sequence[str]) -> set[str]:
        """The works a collection and tag filter keeps (:mod:`prioris.storage.labels`)."""

        def run(conn: PgConnection) -> set[str]:
            return label_store.works_in(conn, collections=collections, tags=tags) or set()

        return set(self._run(run))

    def count_works(self, filters: SearchFilters) -> int:
        """Works the filters cover (what a year filter left out, for the response)."""
        where, params = _where(filters, "w", "id")

        def run(conn: PgConnection) -> int:
            sql = f"SELECT count(*) FROM works w WHERE true{where}"
            return int(conn.execute(sql, params).fetchone()[0])

        return int(self._run(run))

    def page_spans(self, work_ids: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
        """``(number, start, end)`` of each PDF page of the works indexed from a PDF."""

        def run(conn: PgConnection) -> dict[str, list[tuple[int, int, int]]]:
            rows = conn.execute(
                "SELECT p.work_id, p.number, p.char_start, p.char_end FROM pages p "
                "JOIN works w ON w.id = p.work_id "
                "WHERE w.markdown_format = 'pdf' AND p.work_id = ANY(?) "
                "ORDER BY p.work_id, p.number",
                (list(work_ids),),
            ).fetchall()
            found: dict[str, list[tuple[int, int, int]]] = {}
            for r in rows:
                found.setdefault(str(r[0]), []).append((int(r[1]), int(r[2]), int(r[3])))
            return found

        return dict(self._run(run)) if work_ids else {}

    def sections(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """Each chunk's part of the paper, so back matter ranks below a work's body."""

        def run(conn: PgConnection) -> dict[int, str]:
            rows = conn.execute(
                "SELECT id, section FROM chunks WHERE id = ANY(?)", (list(chunk_ids),)
            ).fetchall()
            return {int(r[0]): str(r[1]) for r in rows}

        return dict(self._run(run)) if chunk_ids else {}

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

    def work_vectors(self, work_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The works' own vectors (title + abstract), for the vector side's work score."""
        return dict(self._run(lambda conn: work_vector_store.read(conn, work_ids)))
