"""The postings snapshot a ranker holds open: opening the sidecar and checking it fits.

A sidecar (:mod:`prioris.engines.sqlite.postings`) is a cache, so before
:class:`~prioris.engines.sqlite.postings_rank.PostingsRanker` scores from one, this module
decides whether it can: the file is a regular one in the library's folder
(:func:`_file_id`), of this format and tokenizer, with a lengths array that fits the
library (:func:`_open`, against :func:`_library_facts`), and whether its statistics are
the library's (``agrees``). What it opens is a :class:`_Snapshot`: the read-only
connection, the length norms, and the cache of its common terms' decoded arrays. Separate
from the ranking because it is about trusting a file, not scoring; the names stay
private to the two modules (the ranker imports them, the tests reach them here).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any

import numpy as np

from prioris.engines.sqlite import postings
from prioris.engines.sqlite.connection import sqlite3
from prioris.search import bm25_arrays
from prioris.search.bm25_arrays import K1, B

# common terms' arrays kept decoded (per snapshot): reading and checking a term in a
# tenth of the chunks costs ~0.5 ms a query at a million, and the same few recur
TERM_CACHE_BYTES = 48 << 20
TERM_CACHE_MIN_BYTES = 64 << 10  # shorter rows are read each time (cheap, and many)
# the name of the module this was logged from before it was split: log filters keep working
log = logging.getLogger("prioris.engines.sqlite.postings_rank")


class _TermCache:
    """The decoded arrays of a snapshot's common terms, least recently used out first."""

    def __init__(self) -> None:
        self._found: OrderedDict[str, bm25_arrays.TermPostings] = OrderedDict()
        self._bytes = 0

    def get(self, term: str) -> bm25_arrays.TermPostings | None:
        found = self._found.get(term)
        if found is not None:
            self._found.move_to_end(term)
        return found

    def put(self, term: str, found: bm25_arrays.TermPostings) -> None:
        size = _size(found)
        if size < TERM_CACHE_MIN_BYTES or size > TERM_CACHE_BYTES or term in self._found:
            return
        self._found[term] = found
        self._bytes += size
        while self._bytes > TERM_CACHE_BYTES:
            self._bytes -= _size(self._found.popitem(last=False)[1])


def _size(found: bm25_arrays.TermPostings) -> int:
    return found.ids.nbytes + found.tf.nbytes + found.at.nbytes + found.counts.nbytes


@dataclass(frozen=True)
class _Snapshot:
    key: bytes
    conn: Any  # the sidecar, read-only
    rows: int
    norm: np.ndarray  # k1 * (1 - b + b * length / avgdl), by position among the passages
    norm32: np.ndarray  # the same in float32, for the first pass
    norm_floor: float  # the smallest norm of a chunk with a token (bm25_arrays.floor)
    tokenizer: str
    file_id: tuple[int, int, int]
    tokens: int
    rewrites: int  # the library's ``fts_rewrites`` when built (-1: unknown, no overlay)
    agrees: bool  # its statistics were the library's when opened (a fresh key is trusted)
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The chunk id at each position (increasing): postings and norms index by position."""
    terms: _TermCache = field(default_factory=_TermCache)


def _lengths(snapshot: _Snapshot) -> np.ndarray:
    """The snapshot's token counts by position, back from its norms (exact: the counts are
    whole numbers, the float64 error ~1e-12) rather than kept twice in memory."""
    avgdl = snapshot.tokens / snapshot.rows
    return np.rint((snapshot.norm / K1 - (1 - B)) * avgdl / B)


def _file_id(path: Path) -> tuple[int, int, int] | None:
    """The sidecar's identity (inode, mtime, size), or None when it is not a regular file
    in the library's own folder: a FIFO or a device would block or stream forever, and a
    symlink out of the folder would make another file the cache."""
    try:
        if path.is_symlink() and path.resolve().parent != path.parent.resolve():
            return None
        stat = path.stat()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        return None
    if not S_ISREG(stat.st_mode):
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


@dataclass(frozen=True)
class _Library:
    """What a sidecar must agree with: the library's FTS5 tokenizer, chunk count, tokens
    and highest chunk id (its lengths and ids arrays have one entry per passage)."""

    tokenizer: str
    rows: int
    tokens: int
    last_id: int


def _library_facts(conn: Any) -> _Library:
    """Read as the builder reads them: FTS5's averages record (row count, then tokens per
    column) and its docsize table."""
    last = conn.execute("SELECT max(id) FROM chunks_fts_docsize").fetchone()[0]
    averages = conn.execute(
        "SELECT block FROM chunks_fts_data WHERE id = ?", (postings.AVERAGES_ROWID,)
    ).fetchone()
    stats = postings.varints(bytes(averages[0])) if averages else [0]
    tokens = sum(stats[1 : 1 + len(postings.COLUMNS)])
    return _Library(postings.tokenizer_of(conn), int(stats[0]), int(tokens), int(last or 0))


def _open(path: Path, file_id: tuple[int, int, int], library: _Library) -> _Snapshot | None:
    """The sidecar's statistics, or None when it is unreadable, of another format, or
    cannot describe this library (another tokenizer, more passages than the library
    holds, ids out of order or past the library's highest): a sidecar is a cache, and
    only a consistent one is used. One whose row count, tokens and highest id are the
    library's ``agrees``; another may still serve
    the passages it covers while the library has only grown since (:class:`_Overlay`)."""
    try:
        conn = sqlite3.connect(
            f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False
        )
    except sqlite3.Error:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != postings.FORMAT:
            conn.close()
            return None
        rows, tokens = int(meta["rows"]), int(meta["tokens"])
        raw, raw_ids = meta["lengths"], meta["ids"]
        if (
            str(meta["tokenizer"]) != library.tokenizer
            or not isinstance(raw, bytes)
            or not isinstance(raw_ids, bytes)
            or rows > library.rows  # checked before any array is made
            or len(raw) != 4 * rows
            or len(raw_ids) != 8 * rows
            or rows <= 0
            or not 0 < tokens < 1 << 62
        ):
            raise ValueError("the sidecar does not describe this library")
        ids = np.frombuffer(raw_ids, dtype="<i8")
        if ids[0] < 0 or ids[-1] > library.last_id or bool(np.any(ids[1:] <= ids[:-1])):
            raise ValueError("the sidecar does not describe this library (its chunk ids)")
        agrees = (
            rows == library.rows
            and tokens == library.tokens  # the average length every score divides by
            and int(ids[-1]) == library.last_id
        )
        lengths = np.frombuffer(raw, dtype="<u4").astype(np.float64)
        norm, norm32 = bm25_arrays.norms(lengths, tokens / rows)
        return _Snapshot(
            bytes(meta["key"]),
            conn,
            rows,
            norm,
            norm32,
            bm25_arrays.floor(norm),
            str(meta["tokenizer"]),
            file_id,
            tokens,
            int(meta.get("rewrites", -1)),
            agrees,
            ids.astype(np.int64),
        )
    except (sqlite3.Error, KeyError, TypeError, ValueError, OverflowError) as exc:
        log.debug("postings sidecar %s ignored: %s", path, exc)
        conn.close()
        return None
