"""The library's connection when its works are spread over shards (``PRIORIS_MCP_DB_SHARDS``).

The services read and write through one connection with the storage modules' SQL.
:class:`ShardedConnection` keeps that surface and sends each statement where its rows are:

- a statement that names no **shard table** (:data:`SHARD_TABLES`: passages, their
  vectors and pages, the works' own vectors, the BM25 postings) runs on the primary, which
  keeps everything library-wide: works rows (the catalogue, aliases, records, documents),
  labels, edits, notes, accounts, alerts, sync state, settings, id allocation;
- a statement on a shard table **keyed by a work** (an ``INSERT`` whose columns include
  ``work_id``; a statement whose first placeholder is ``work_id = ?``) runs on the shard
  :meth:`Router.shard_of` picks for that work; ``executemany`` groups its rows by work;
- a statement naming a **list of works** (``work_id IN (?, ...)``, ``w.id IN (...)``,
  ``work_id = ANY(?)``) runs on those works' shards only;
- any other **read** runs on every shard and the rows are put together: an
  aggregate of one row (``count``, ``sum``, ``max``, ``min``) is combined, a list ending
  ``ORDER BY column LIMIT ?`` is merged in that order and cut, anything else concatenated
  (a work's rows are all on one shard, so per-work groups stay whole);
- a **write** not keyed by a work (by chunk id: ``UPDATE chunks ... WHERE id = ?``) runs
  on the shards the open transaction already touched by a work (a keyed read joins it
  too: "the chunks of this work" then "delete these chunk ids"), else on every shard.

A transaction opens on the primary and on each shard it writes to (lazily). Each shard
holds a copy of its works' rows (the passages' foreign key, the title the full-text index
weighs and the search filters read it there): a trigger (migration 0019) notes on the
primary every work a statement changed, and those rows are copied to their shards before
the next statement on a shard and at ``COMMIT``. ``COMMIT`` commits the shards first,
then the primary: a crash in between leaves a shard holding rows of a work the primary
does not know, which no search shows (hits are dressed from the primary's works) and
which the work's next write replaces (an ``INSERT`` on the primary clears the shard's
copy first). Chunk ids are allocated from the primary's sequence, so they stay unique
across the shards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from prioris.engines.postgres.connection import PgConnection
from prioris.engines.postgres.routed import only_reads
from prioris.engines.postgres.sharded_index import SHARDED_INDEX

# a table named where a statement reads or writes it (``works.pages`` is a column too)
SHARD_TABLES = re.compile(
    r"\b(FROM|JOIN|INTO|UPDATE)\s+"
    r"(chunks|pages|work_vectors|chunk_vectors|bm25_postings|bm25_meta|bm25_changes)\b",
    re.IGNORECASE,
)
_WORKS_WRITE = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+works\b", re.IGNORECASE)
_STATE_WRITE = re.compile(r"\b(INSERT\s+INTO|UPDATE)\s+index_state\b", re.IGNORECASE)
_INSERT_COLUMNS = re.compile(r"^\s*INSERT\s+INTO\s+\w+\s*\(([^)]*)\)", re.IGNORECASE)
_KEYED = re.compile(r"^[^?]*?\bwork_id\s*=\s*\?", re.IGNORECASE | re.DOTALL)
# a statement about a list of works: only their shards are asked
_WORK_LIST = re.compile(
    r"\b(?:(?:\w+\.)?work_id|w\.id)\s+IN\s*\(\s*\?(?:\s*,\s*\?)*\s*\)"
    r"|\b(?:(?:\w+\.)?work_id|w\.id)\s*=\s*ANY\s*\(\s*\?",
    re.IGNORECASE,
)
_ORDER_LIMIT = re.compile(
    r"ORDER\s+BY\s+(?:\w+\.)?(\w+)(\s+DESC)?(?:\s+NULLS\s+\w+)?\s+LIMIT\s+\?\s*$", re.IGNORECASE
)
_AGGREGATE = re.compile(r"^\s*SELECT\s+(count|coalesce\s*\(\s*sum|sum|max|min)\s*\(", re.I)
_ENDS = ("COMMIT", "END")
_ABORTS = ("ROLLBACK", "ABORT")
ID_BLOCK = 64  # chunk ids taken from the primary's sequence at a time


class Rows:
    """A cursor's surface over rows gathered from several servers."""

    def __init__(self, rows: list[Any], rowcount: int | None = None) -> None:
        self.rows = rows
        self.rowcount = len(rows) if rowcount is None else rowcount
        self._at = 0

    def fetchone(self) -> Any:
        if self._at >= len(self.rows):
            return None
        self._at += 1
        return self.rows[self._at - 1]

    def fetchmany(self, size: int = 1) -> list[Any]:
        taken = self.rows[self._at : self._at + size]
        self._at += len(taken)
        return taken

    def fetchall(self) -> list[Any]:
        rest, self._at = self.rows[self._at :], len(self.rows)
        return rest

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


def insert_key(sql: str, row: Sequence[Any]) -> str | None:
    """The work an ``INSERT`` names (its ``work_id`` column), else None."""
    found = _INSERT_COLUMNS.match(sql)
    if found is None:
        return None
    columns = [c.strip().lower() for c in found.group(1).split(",")]
    return str(row[columns.index("work_id")]) if "work_id" in columns else None


def statement_key(sql: str, params: Sequence[Any] | None) -> str | None:
    """The work a statement is about, when it says so plainly (see the module text)."""
    if not params:
        return None
    if _INSERT_COLUMNS.match(sql):
        return insert_key(sql, params)
    return str(params[0]) if _KEYED.match(sql) else None


def listed_works(sql: str, params: Sequence[Any] | None) -> list[str] | None:
    """The works a statement names by list (``work_id IN (?, ...)``, ``w.id IN (...)``,
    ``work_id = ANY(?)``), else None."""
    found = _WORK_LIST.search(sql) if params else None
    if found is None or params is None:
        return None
    at = sql.count("?", 0, found.start())
    marks = found.group(0).count("?")
    if "ANY" in found.group(0).upper():
        return [str(v) for v in params[at]]
    return [str(v) for v in params[at : at + marks]]


def merge_rows(sql: str, parts: list[list[Any]], params: Sequence[Any] | None) -> list[Any]:
    """One read's rows from every shard, put together as one server would return them."""
    if not parts:
        return []
    if _AGGREGATE.match(sql) and "GROUP BY" not in sql.upper() and all(len(p) == 1 for p in parts):
        first = parts[0][0]
        names = first.keys() if hasattr(first, "keys") else [""] * len(first)
        combined = []
        for i, name in enumerate(names):
            values = [p[0][i] for p in parts if p[0][i] is not None]
            if not values:
                combined.append(None)
            elif name in ("max", "min"):
                combined.append(max(values) if name == "max" else min(values))
            else:
                combined.append(sum(values))
        return [type(first)(combined)]
    rows = [row for part in parts for row in part]
    ordered = _ORDER_LIMIT.search(sql)
    if ordered is not None and rows and hasattr(rows[0], "keys") and params:
        column, descending = ordered.group(1), bool(ordered.group(2))
        if column in rows[0].keys():  # noqa: SIM118 - a row iterates its values
            rows.sort(key=lambda r: (r[column] is None, r[column]), reverse=descending)
            rows = rows[: int(params[-1])] if int(params[-1]) >= 0 else rows
    return rows


class ShardedConnection:
    """A :class:`PgConnection`-like connection over the primary and the library's shards."""

    def __init__(self, primary: PgConnection, shards: Any) -> None:
        """``shards``: the library's :class:`~prioris.engines.postgres.shards.ShardSet`."""
        self.primary = primary
        self.url = primary.url
        self.shards = shards
        self._in_transaction = False
        self._joined: dict[str, PgConnection] = {}
        self._dirty = True  # rows a stopped process left in the outbox go first
        self._ids: list[int] = []
        self._begin = "BEGIN IMMEDIATE"
        self._columns: list[str] | None = None
        primary.raw.execute("SET prioris.sharded = 'on'")

    passages_apart = True  # list/browse ask for per-work counts apart (storage.passage_counts)

    @property
    def raw(self) -> Any:
        return self.primary.raw

    @property
    def dialect(self) -> Any:
        return SHARDED_INDEX

    @property
    def closed(self) -> bool:
        return self.primary.closed

    def close(self) -> None:
        self.primary.close()

    # -- statements --------------------------------------------------------------------
    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        head = sql.lstrip()[:20].upper()
        if head.startswith(("BEGIN", "START TRANSACTION")):
            result = self.primary.execute(sql, params)
            self._in_transaction, self._joined = True, {}
            # a shard joins the transaction as the primary began it (a write: its lock)
            self._begin = "BEGIN IMMEDIATE" if "IMMEDIATE" in head else "BEGIN"
            return result
        if head.startswith(_ENDS) and self._in_transaction:
            return self._commit(sql)
        if head.startswith(_ABORTS) and self._in_transaction:
            return self._rollback(sql)
        if not SHARD_TABLES.search(sql):
            result = self.primary.execute(sql, params)
            if _WORKS_WRITE.search(sql):
                self._dirty = True
                if not self._in_transaction:
                    self.flush()
            elif _STATE_WRITE.search(sql) and self._joined:
                # the vectors' version: the shards written to keep theirs (their caches)
                for conn in self._joined.values():
                    conn.execute(sql, params)
            return result
        self.flush()
        key = statement_key(sql, params)
        if key is not None:  # in a transaction, the work's shard joins it (reads included)
            return self.shard(self.shards.shard_of(key), write=True).execute(sql, params)
        listed = listed_works(sql, params)
        named = [u for u in self.shards.urls if listed is None or u in self._placed(listed)]
        if only_reads(sql):
            parts = [list(self.shard(url).execute(sql, params).fetchall()) for url in named]
            return Rows(merge_rows(sql, parts, params))
        count = 0
        for url in named if listed is not None else list(self._joined) or self.shards.urls:
            count += max(self.shard(url, write=True).execute(sql, params).rowcount or 0, 0)
        return Rows([], count)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        batch = [tuple(row) for row in rows]
        if not SHARD_TABLES.search(sql):
            cursor = self.primary.executemany(sql, batch)
            if _WORKS_WRITE.search(sql) and batch:
                self._dirty = True
                if not self._in_transaction:
                    self.flush()
            return cursor
        self.flush()
        if not batch:
            return Rows([])
        if _INSERT_COLUMNS.match(sql) and insert_key(sql, batch[0]) is not None:
            groups: dict[str, list[tuple[Any, ...]]] = {}
            for row in batch:
                groups.setdefault(self.shards.shard_of(insert_key(sql, row)), []).append(row)
            for url, group in groups.items():
                self.shard(url, write=True).executemany(sql, group)
            return Rows([], len(batch))
        for url in list(self._joined) or self.shards.urls:
            self.shard(url, write=True).executemany(sql, batch)
        return Rows([], len(batch))

    def _placed(self, work_ids: list[str]) -> set[str]:
        return {self.shards.shard_of(w) for w in work_ids}

    def shard(self, url: str, *, write: bool = False) -> PgConnection:
        """The connection to one shard; a write inside a transaction opens one there."""
        conn = self._joined.get(url)
        if conn is not None:
            return conn
        conn = self.shards.connection(url)
        if write and self._in_transaction:
            conn.execute(self._begin)
            self._joined[url] = conn
        return conn

    def each_shard(self) -> list[PgConnection]:
        """Every shard's connection (the chunk index's library-wide steps)."""
        return [self.shard(url) for url in self.shards.urls]

    # -- ids and the works' copies -----------------------------------------------------
    def chunk_ids(self, count: int) -> list[int]:
        """``count`` new chunk ids from the primary's sequence (unique on every shard)."""
        while len(self._ids) < count:
            rows = self.primary.raw.execute(
                "SELECT nextval(pg_get_serial_sequence('chunks', 'id')) "
                "FROM generate_series(1, %s)",
                (max(ID_BLOCK, count - len(self._ids)),),
            ).fetchall()
            self._ids.extend(int(r[0]) for r in rows)
        taken, self._ids = self._ids[:count], self._ids[count:]
        return taken

    def flush(self) -> None:
        """Copy the works rows the primary changed to their shards (see the module text)."""
        if not self._dirty:
            return
        self._dirty = False
        pending = self.primary.execute("SELECT work_id, op FROM shard_outbox").fetchall()
        if not pending:
            return
        columns = self._work_columns()
        ids = [str(r[0]) for r in pending]
        found = {
            str(r[0]): tuple(r)
            for r in self.primary.execute(
                f"SELECT {', '.join(columns)} FROM works WHERE id = ANY(?)", (ids,)
            ).fetchall()
        }
        marks = ", ".join("?" for _ in columns)
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c != "id")
        upsert = (
            f"INSERT INTO works ({', '.join(columns)}) VALUES ({marks}) "
            f"ON CONFLICT (id) DO UPDATE SET {updates}"
        )
        for work_id, op in ((str(r[0]), str(r[1])) for r in pending):
            conn = self.shard(self.shards.shard_of(work_id), write=True)
            if op == "INSERT" or work_id not in found:
                conn.execute("DELETE FROM works WHERE id = ?", (work_id,))
            if work_id in found:
                conn.execute(upsert, found[work_id])
        self.primary.execute("DELETE FROM shard_outbox WHERE work_id = ANY(?)", (ids,))

    def _work_columns(self) -> list[str]:
        if self._columns is None:
            self._columns = [
                str(r[0])
                for r in self.primary.raw.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                    "current_schema() AND table_name = 'works' AND is_generated = 'NEVER' "
                    "AND is_identity = 'NO' ORDER BY ordinal_position"
                ).fetchall()
            ]
        return self._columns

    # -- transactions ------------------------------------------------------------------
    def _commit(self, sql: str) -> Any:
        try:
            self.flush()
            while self._joined:
                url = next(iter(self._joined))
                self._joined[url].execute("COMMIT")
                del self._joined[url]
        except BaseException:
            self._rollback("ROLLBACK")
            raise
        self._in_transaction = False
        return self.primary.execute(sql)

    def _rollback(self, sql: str) -> Any:
        joined, self._joined = self._joined, {}
        self._in_transaction, self._dirty = False, False
        for conn in joined.values():
            try:
                conn.execute("ROLLBACK")
            except Exception:  # a shard lost mid-transaction: it rolled back by itself
                self.shards.forget(conn)
        return self.primary.execute(sql)
