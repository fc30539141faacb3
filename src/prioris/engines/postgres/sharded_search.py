"""Search over shards: every shard asked at once, scores as one server would give them.

- **Full text**: BM25's statistics are the whole library's. The chunk count, the total
  length and each query lexeme's chunk count are read from every shard (kept per shard
  until its ``vectors_version`` moves, as one server keeps its own), summed, and the same
  idf and average length are sent with the query to every shard, which ranks its matches
  with :data:`~prioris.engines.postgres.search.BM25_SQL`; the lists are merged by score.
  Gathering costs one round trip per shard (in parallel) while the statistics are cached,
  a count per new lexeme otherwise (exact and cheap from a shard's BM25 postings table
  when it has a build); keeping global statistics on the primary instead would cost a
  write there for every passage written on a shard. A plain query is ranked from each
  shard's postings table (:mod:`~prioris.engines.postgres.postings`) with the library's
  statistics passed in, as one server ranks from its own; SQL answers meanwhile.
- **Vectors**: each shard's :class:`PostgresSearchBackend` answers its top k as it does on
  one server (HNSW with iterative scans for filters, exact below it, or the shard's own
  in-process vector copy past ``PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS`` of that shard);
  the k best of the merged lists are the library's k best, since each shard's top k holds
  every one of its chunks that can be in the library's.
- Works' records, labels and the filters' counts come from the primary; passages,
  sections, pages and work vectors from the shards.

A shard that does not answer fails the search with an error naming it
(``PRIORIS_MCP_DB_SHARD_MISSING=fail``), or (``partial``) is left out and named by
:meth:`ShardedSearchBackend.missing_shards`, which the search's response carries as
``missing_shards``; a shard found down is asked again after ``DOWN_RECHECK_SECONDS``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from prioris.engines.postgres.connection import PgConnection, ServerUnreachable, redact
from prioris.engines.postgres.search import (
    _OPERATORS,
    _WORD,
    BM25_SQL,
    HEADING_WEIGHT,
    K1,
    B,
    PostgresSearchBackend,
    _where,
    plain_words,
)
from prioris.engines.postgres.tsquery import to_tsquery_text
from prioris.errors import InvalidRequestError, ShardUnavailableError
from prioris.search.fts_plan import idf
from prioris.search.protocols import ChunkScore, Passage, SearchFilters, WorkSummary

T = TypeVar("T")
DOWN_RECHECK_SECONDS = 5.0


class _Stats:
    """One shard's BM25 statistics at one ``vectors_version``."""

    def __init__(self, version: int, rows: int, length: int) -> None:
        self.version, self.rows, self.length = version, rows, length
        self.counts: dict[str, int] = {}


class ShardedSearchBackend:
    """The search backend of a sharded library (see the module text)."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage
        self.urls: tuple[str, ...] = storage.shard_set.urls
        self.partial = storage.missing == "partial"
        self.primary = PostgresSearchBackend(
            storage, ef_search=storage.ef_search, postings_min_rows=0, vector_copy_min_rows=0
        )
        self.shards = {
            url: PostgresSearchBackend(
                storage.shard_storage(url),
                ef_search=storage.ef_search,
                postings_min_rows=storage.postings_min_chunks,
                vector_copy_min_rows=storage.vector_copy_min_chunks,
            )
            for url in self.urls
        }
        self._pool = ThreadPoolExecutor(len(self.urls), thread_name_prefix="prioris-shard")
        self._lock = threading.Lock()
        self._stats: dict[str, _Stats] = {}
        self._down: dict[str, float] = {}  # shard -> when it last failed to answer

    # -- asking every shard ------------------------------------------------------------
    def _each(self, work: Callable[[PostgresSearchBackend], T]) -> dict[str, T]:
        """``work(backend)`` on every shard at once; a shard down fails or is left out."""
        import psycopg

        now = time.monotonic()
        futures = {}
        missing: dict[str, str] = {}
        for url in self.urls:
            last = self._down.get(url)
            if self.partial and last is not None and now - last < DOWN_RECHECK_SECONDS:
                missing[url] = "down a moment ago"
                continue
            futures[url] = self._pool.submit(work, self.shards[url])
        found: dict[str, T] = {}
        for url, future in futures.items():
            try:
                found[url] = future.result()
            except psycopg.errors.QueryCanceled:
                raise
            except (psycopg.OperationalError, ServerUnreachable) as exc:
                missing[url] = str(exc).strip().splitlines()[0] if str(exc).strip() else "down"
                with self._lock:
                    self._down[url] = time.monotonic()
            else:
                with self._lock:
                    self._down.pop(url, None)
        if missing and not self.partial:
            names = [self.storage.shard_set.name(url) for url in missing]
            raise ShardUnavailableError(
                f"the search cannot reach {', '.join(names)}, so it cannot see the works "
                "placed there; start it again, or set PRIORIS_MCP_DB_SHARD_MISSING=partial "
                "to answer from the other shards with a missing_shards warning",
                shards=[redact(url) for url in missing],
            )
        return found

    def missing_shards(self) -> list[str]:
        """The shards the last searches could not ask (passwords masked): down since they
        last failed to answer, until one answers again."""
        with self._lock:
            return [redact(url) for url in self.urls if url in self._down]

    # -- full text ---------------------------------------------------------------------
    def fts(
        self, expression: str, filters: SearchFilters, limit: int, *, title_weight: float
    ) -> list[ChunkScore]:
        import psycopg

        query = to_tsquery_text(expression)
        if query is None:
            return []
        words = " ".join(w for w in _WORD.findall(expression) if w not in _OPERATORS)
        lexemes = self.primary._run(
            lambda conn: [
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT unnest(tsvector_to_array("
                    "to_tsvector('english', prioris_fold(?))))",
                    (words,),
                )
            ]
        )
        stats = self._each(
            lambda backend: backend._run(lambda c: self._shard_stats(backend, c, lexemes))
        )
        rows = sum(s.rows for s in stats.values())
        length = sum(s.length for s in stats.values())
        avgdl = max(length / rows, 1.0) if rows else 1.0
        counts = {x: sum(s.counts[x] for s in stats.values()) for x in lexemes}
        idfs = [idf(counts[x], rows) for x in lexemes]
        where, params = _where(filters, "w", "id")
        join = " JOIN works w ON w.id = c.work_id" if where else ""
        sql = BM25_SQL.format(join=join, where=where) + (" LIMIT ?" if limit >= 0 else "")
        args: list[Any] = [lexemes, idfs, K1 + 1, K1, 1 - B, B, avgdl, query]
        args += [title_weight, HEADING_WEIGHT, lexemes, *params]
        args += [limit] if limit >= 0 else []
        plain = plain_words(expression) if title_weight > 0 else None

        def rank(backend: PostgresSearchBackend) -> list[Any]:
            def run(conn: PgConnection) -> list[Any]:
                if plain is not None:  # the shard's postings, scored with the library's stats
                    ranked = backend.postings.rank(
                        conn.raw,
                        plain,
                        limit,
                        title_weight=title_weight,
                        accept=backend._accept(filters),
                        stats=(rows, avgdl, counts),
                    )
                    if ranked is not None:
                        return ranked
                return list(conn.execute(sql, args).fetchall())

            return list(backend._run(run))

        try:
            found = self._each(rank)
        except psycopg.errors.SyntaxError as exc:
            raise InvalidRequestError(f"malformed FTS5 query {expression!r}: {exc}") from None
        merged = [ChunkScore(int(r[0]), str(r[1]), float(r[2])) for p in found.values() for r in p]
        merged.sort(key=lambda c: (-c.score, c.chunk_id))
        return merged[:limit] if limit >= 0 else merged

    def _shard_stats(
        self, backend: PostgresSearchBackend, conn: PgConnection, lexemes: list[str]
    ) -> _Stats:
        """A shard's chunk count, total length and lexeme counts: exact from its postings
        table when it has a build, else counted (and kept until its version moves)."""
        from prioris.storage.chunks import vectors_version

        exact = backend.postings.statistics(conn.raw, lexemes)
        if exact is not None:
            found = _Stats(-1, exact[0], round(exact[0] * exact[1]) if exact[0] else 0)
            found.counts = dict(exact[2])
            return found
        version = vectors_version(conn)
        key = conn.url
        with self._lock:
            held = self._stats.get(key)
        if held is None or held.version != version:
            count, length = conn.execute(
                "SELECT count(*), coalesce(sum(tsv_length), 0) FROM chunks"
            ).fetchone()
            held = _Stats(version, int(count), int(length))
        for lexeme in lexemes:
            if lexeme not in held.counts:
                held.counts[lexeme] = int(
                    conn.execute(
                        "SELECT count(*) FROM chunks WHERE tsv @@ ?::tsquery",
                        ("'" + lexeme.replace("'", "''") + "'",),
                    ).fetchone()[0]
                )
        with self._lock:
            self._stats[key] = held
        return held

    # -- vectors -----------------------------------------------------------------------
    def knn(self, vector: np.ndarray, filters: SearchFilters, k: int) -> list[ChunkScore]:
        found = self._each(lambda backend: backend.knn(vector, filters, k))
        merged = [c for part in found.values() for c in part]
        merged.sort(key=lambda c: (-c.score, c.chunk_id))
        return merged[: max(k, 1)]

    # -- reading back ------------------------------------------------------------------
    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        ids = list(chunk_ids)
        return self._merged(lambda backend: backend.passages(ids)) if ids else {}

    def sections(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        ids = list(chunk_ids)
        return self._merged(lambda backend: backend.sections(ids)) if ids else {}

    def page_spans(self, work_ids: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
        ids = list(work_ids)
        return self._merged(lambda backend: backend.page_spans(ids)) if ids else {}

    def work_vectors(self, work_ids: Sequence[str]) -> dict[str, np.ndarray]:
        ids = list(work_ids)
        return self._merged(lambda backend: backend.work_vectors(ids)) if ids else {}

    def _merged(self, work: Callable[[PostgresSearchBackend], dict[Any, Any]]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for part in self._each(work).values():
            out.update(part)
        return out

    def works(self, work_ids: Sequence[str]) -> dict[str, WorkSummary]:
        return self.primary.works(work_ids)

    def labelled_works(self, collections: Sequence[str], tags: Sequence[str]) -> set[str]:
        return self.primary.labelled_works(collections, tags)

    def count_works(self, filters: SearchFilters) -> int:
        return self.primary.count_works(filters)

    def build_postings(self) -> dict[str, Any]:
        """Each shard's BM25 postings table rebuilt now: the counts summed (the seconds:
        the slowest shard's, as they build at once), each shard's build in ``shards``."""
        builds = list(self._each(lambda backend: backend.build_postings()).values())
        out: dict[str, Any] = {"built": all(b.get("built") for b in builds), "shards": builds}
        for key in ("rows", "terms", "pairs"):
            if all(isinstance(b.get(key), int) for b in builds):
                out[key] = sum(b[key] for b in builds)
        if all(isinstance(b.get("seconds"), int | float) for b in builds):
            out["seconds"] = max(b["seconds"] for b in builds)
        return out

    @property
    def copied(self) -> int:
        """KNN answers the shards' in-process vector copies gave (the bench reads it)."""
        return sum(b.copied for b in self.shards.values())

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for backend in self.shards.values():
            if backend.vector_cache is not None:
                backend.vector_cache.close()
            backend.postings.close()
        self.primary.postings.close()
        self.storage.close()
