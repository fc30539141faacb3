"""The BM25 postings snapshot: FTS5's own index, rewritten for ranking in numpy.

FTS5's ``bm25()`` costs about 2 us per matching row, and a plain query's common words match
hundreds of thousands of passages at a million; reading the same postings as arrays and
scoring them in numpy costs a tenth of that (``bench/bench_latency.py``, with and without
``PRIORIS_MCP_POSTINGS_MIN_CHUNKS=0``; docs/benchmarks.md, section 8). This module
writes those arrays, derived from the FTS5 index (so terms and stems are FTS5's own), into
a *sidecar* SQLite file next to the library (``<library>.bm25``):

- ``postings``: per FTS5 term, the sorted chunk ids holding it (as gaps in one, two or four
  bytes, :func:`prioris.search.bm25_arrays.encode_ids`), the term frequency
  ``2 x text + heading`` (exact: heading weighs 0.5; uint8, or uint16 when a count does not
  fit), and, apart, the positions and counts of the chunks with it in the title (the title
  weight is a query-time setting, so title counts are kept unweighted);
- ``meta``: FTS5's own statistics (row count, total tokens), every chunk's token count
  (the three columns unweighted, as ``bm25()`` counts them), the tokenizer, and the
  **freshness key**: the FTS5 structure record (``chunks_fts_data`` row 10) and averages
  record (row 1) the snapshot was read from. Every FTS5 write (insert, delete, the title
  trigger, a merge) rewrites the structure record and its write counter, so a snapshot is
  fresh exactly while both records are byte for byte those it was built from. (The first 4
  bytes of the structure record are FTS5's *configuration* cookie, which a content change
  does not move; tests/search/test_postings.py shows both.) And the library's
  ``fts_rewrites`` count at the build: while it has not moved and FTS5's row count is the
  snapshot's plus the passages added since, the snapshot still serves, with those
  passages indexed in memory (:mod:`prioris.engines.sqlite.postings_delta`).

The build streams term by term from ``fts5vocab(..., instance)`` in one read transaction
(memory holds one term's postings at a time), writes a temporary file and renames it over
the sidecar, so a reader sees a whole snapshot or none, and two builders never mix files.
The sidecar is a cache: deleting it is safe, a missing, corrupt or stale one is ignored.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from prioris.engines.sqlite.connection import sqlite3
from prioris.search import bm25_arrays

FORMAT = 3  # 2: ids as gaps (bm25_arrays.encode_ids); 3: positions among the passages
# (a chunk id's place in the sorted ids, kept in ``ids``), so every array is sized by the
# passages, not by the largest id (a handed-over library with an id of 2**40 would ask
# for 4 TiB); a sidecar of an older format is rebuilt
SUFFIX = ".bm25"
STRUCTURE_ROWID, AVERAGES_ROWID = 10, 1  # FTS5's own record ids in chunks_fts_data
COLUMNS = ("text", "title", "heading")  # chunks_fts's columns, in order
LARGE_TERM = 1 << 20  # instances above which a term is streamed in batches, not one string
BATCH = 1 << 16
COMMIT_BYTES = 64 << 20  # sidecar write transaction size
_TOKENIZE = re.compile(r"tokenize\s*=\s*'((?:[^']|'')*)'", re.IGNORECASE)


def sidecar_path(db_path: Path | str) -> Path:
    """Where a library file's postings snapshot lives: beside it, same name plus ``.bm25``."""
    return Path(f"{db_path}{SUFFIX}")


def freshness_key(conn: Any) -> bytes | None:
    """FTS5's structure and averages records together, None when the index is empty."""
    rows = dict(
        conn.execute(
            "SELECT id, block FROM chunks_fts_data WHERE id IN (?, ?)",
            (STRUCTURE_ROWID, AVERAGES_ROWID),
        ).fetchall()
    )
    structure, averages = rows.get(STRUCTURE_ROWID), rows.get(AVERAGES_ROWID)
    if structure is None or averages is None:
        return None
    return len(structure).to_bytes(4, "big") + bytes(structure) + bytes(averages)


def rewrites(conn: Any) -> int:
    """How many times indexed passages were indexed again in place (migration 0015's
    count); -1 in a library without the count (the sidecar then serves only while fresh)."""
    row = conn.execute("SELECT value FROM index_state WHERE key = 'fts_rewrites'").fetchone()
    return -1 if row is None else int(row[0])


def varints(blob: bytes) -> list[int]:
    """SQLite varints (most significant group first) as FTS5 writes its size records."""
    out, value, length = [], 0, 0
    for byte in blob:
        length += 1
        if length == 9:  # the ninth byte of a varint carries 8 bits
            out.append((value << 8) | byte)
            value, length = 0, 0
            continue
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value, length = 0, 0
    return out


def tokenizer_of(conn: Any) -> str:
    """The ``tokenize`` option chunks_fts was created with (queries must use the same)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()
    found = _TOKENIZE.search(row[0] if row else "")
    return found.group(1).replace("''", "'") if found else "unicode61"


@dataclass(frozen=True)
class BuildResult:
    path: Path
    terms: int
    pairs: int
    seconds: float


_INSTANCE = "doc * 4 + CASE col WHEN 'text' THEN 0 WHEN 'title' THEN 1 ELSE 2 END"
_BASE_WEIGHT = np.array([2, 0, 1, 0], dtype=np.int32)  # 2 x text + heading, by column code


def term_rows(conn: Any, term: str, instances: int) -> Iterator[np.ndarray]:
    """One term's instances as ``chunk id x 4 + column`` in chunk order: one
    ``group_concat`` string for most terms (no Python object per instance), batches of
    rows for the very frequent ones (a bounded string)."""
    if instances <= LARGE_TERM:
        found = conn.execute(
            f"SELECT group_concat({_INSTANCE}) FROM temp.prioris_vi WHERE term = ?", (term,)
        ).fetchone()[0]
        if found:
            yield np.fromstring(found, dtype=np.int64, sep=",")  # parsed in C
        return
    cursor = conn.execute(f"SELECT {_INSTANCE} FROM temp.prioris_vi WHERE term = ?", (term,))
    while rows := cursor.fetchmany(BATCH):
        yield np.array(rows, dtype=np.int64).reshape(-1)


def _runs(values: np.ndarray) -> np.ndarray:
    """Start of each run of equal values."""
    first = np.empty(len(values), dtype=bool)
    first[:1] = True
    np.not_equal(values[1:], values[:-1], out=first[1:])
    return np.flatnonzero(first)


def term_postings(parts: Iterator[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chunk ids, ``2 x text + heading`` and title counts of one term's instances."""
    ids_parts, base_parts, title_parts = [], [], []
    for values in parts:
        doc, col = values >> 2, values & 3
        if len(doc) > 1 and np.any(doc[1:] < doc[:-1]):  # FTS5 yields chunk order; be sure
            order = np.argsort(doc, kind="stable")
            doc, col = doc[order], col[order]
        starts = _runs(doc)
        ids_parts.append(doc[starts])
        base_parts.append(np.add.reduceat(_BASE_WEIGHT[col], starts))
        title_parts.append(np.add.reduceat((col == 1).astype(np.int32), starts))
    if not ids_parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if len(ids_parts) == 1:
        return ids_parts[0], base_parts[0], title_parts[0]
    ids, base, title = (np.concatenate(p) for p in (ids_parts, base_parts, title_parts))
    starts = _runs(ids)  # a chunk split across two batches: merge its runs
    return ids[starts], np.add.reduceat(base, starts), np.add.reduceat(title, starts)


def _doc_lengths(conn: Any) -> tuple[np.ndarray, np.ndarray]:
    """The indexed chunk ids in increasing order and each one's tokens (all columns,
    unweighted): two arrays of one entry per passage, whatever the ids."""
    ids_parts, length_parts = [], []
    cursor = conn.execute("SELECT id, sz FROM chunks_fts_docsize ORDER BY id")
    while rows := cursor.fetchmany(BATCH):
        ids_parts.append(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        length_parts.append(
            np.fromiter((sum(varints(r[1])) for r in rows), dtype=np.uint32, count=len(rows))
        )
    if not ids_parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint32)
    return np.concatenate(ids_parts), np.concatenate(length_parts)


def positions(
    chunk_ids: np.ndarray, ids: np.ndarray, base: np.ndarray, title: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A term's postings with each chunk id replaced by its place in ``chunk_ids`` (sorted);
    an id the docsize table does not hold (a damaged index) is left out."""
    if len(chunk_ids) == 0:
        return ids[:0], base[:0], title[:0]
    where = np.minimum(np.searchsorted(chunk_ids, ids), len(chunk_ids) - 1)
    held = chunk_ids[where] == ids
    if held.all():
        return where, base, title
    return where[held], base[held], title[held]


def _create(out: Any) -> None:
    out.execute("PRAGMA journal_mode = OFF")
    out.execute("PRAGMA synchronous = OFF")
    out.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value)")
    out.execute(
        "CREATE TABLE postings (term TEXT PRIMARY KEY, ids BLOB NOT NULL, tf BLOB NOT NULL, "
        "title_at BLOB NOT NULL, title_tf BLOB NOT NULL)"
    )


def build(conn: Any, target: Path, stop: threading.Event | None = None) -> BuildResult | None:
    """Write the snapshot of ``conn``'s FTS5 index to ``target`` (atomically), or None when
    the index changed before the file could be put in place (the next query schedules a
    new build), there is nothing to index, or ``stop`` was set (the process is closing)."""
    import time

    started = time.perf_counter()
    for name, kind in (("prioris_vi", "instance"), ("prioris_vr", "row")):
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} "
            f"USING fts5vocab(main, chunks_fts, {kind})"
        )
    temp = target.with_name(f"{target.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    temp.unlink(missing_ok=True)
    out = sqlite3.connect(str(temp), isolation_level=None)
    terms = pairs = 0
    try:
        _create(out)
        conn.execute("BEGIN")  # one read snapshot: statistics and postings agree
        try:
            key = freshness_key(conn)
            if key is None:
                return None
            averages = conn.execute(
                "SELECT block FROM chunks_fts_data WHERE id = ?", (AVERAGES_ROWID,)
            ).fetchone()[0]
            stats = varints(bytes(averages))  # row count, then tokens per column
            chunk_ids, lengths = _doc_lengths(conn)
            if len(lengths) >= 1 << 31:
                return None  # positions past int32: not supported by this format
            out.execute("BEGIN")
            pending = 0
            vocabulary = conn.execute("SELECT term, cnt FROM temp.prioris_vr")
            while batch := vocabulary.fetchmany(1024):
                if stop is not None and stop.is_set():
                    return None
                for term, instances in batch:
                    ids, base, title = positions(
                        chunk_ids, *term_postings(term_rows(conn, term, instances))
                    )
                    if len(ids) == 0:
                        continue
                    tf_type = np.uint8 if len(base) == 0 or base.max() <= 255 else np.uint16
                    at = np.flatnonzero(title)
                    out.execute(
                        "INSERT INTO postings VALUES (?, ?, ?, ?, ?)",
                        (
                            term,
                            bm25_arrays.encode_ids(ids),
                            base.astype(np.dtype(tf_type).newbyteorder("<")).tobytes(),
                            at.astype("<i4").tobytes(),
                            np.minimum(title[at], 65535).astype("<u2").tobytes(),
                        ),
                    )
                    terms += 1
                    pairs += len(ids)
                    pending += len(ids) * 5
                    if pending > COMMIT_BYTES:
                        out.execute("COMMIT")
                        out.execute("BEGIN")
                        pending = 0
            meta = {
                "format": FORMAT,
                "key": key,
                "rows": stats[0],
                "tokens": sum(stats[1 : 1 + len(COLUMNS)]),
                "tokenizer": tokenizer_of(conn),
                "lengths": lengths.astype("<u4").tobytes(),
                "ids": chunk_ids.astype("<i8").tobytes(),
                "rewrites": rewrites(conn),
            }
            out.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
            out.execute("COMMIT")
        finally:
            conn.execute("COMMIT")
        out.close()
        if freshness_key(conn) != key:
            return None  # written meanwhile: this snapshot is stale already
        with open(temp, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temp, target)
        return BuildResult(target, terms, pairs, time.perf_counter() - started)
    finally:
        out.close()
        temp.unlink(missing_ok=True)
