"""The passages added since the postings sidecar was built, indexed in memory.

A sidecar goes stale with any write, and rebuilding it takes minutes at a million
passages; meanwhile FTS5 would answer, ten times slower. When the library has only grown
since the build (no passage deleted or indexed again in place: FTS5's row count and the
``fts_rewrites`` count of migration 0015 tell), the sidecar's postings are still exact
for every passage they cover, and the new passages are few: :class:`DeltaIndex` indexes
them in an in-memory FTS5 table with the library's tokenizer (so terms and counts are
FTS5's own), catches up as more are added, and gives each term's postings in the
sidecar's form. :mod:`prioris.engines.sqlite.postings_rank` ranks the two together with
the library's current row count and average length: the scores FTS5 gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from prioris.engines.sqlite import postings
from prioris.engines.sqlite.connection import sqlite3

MAX_ROWS = 50_000  # passages added past which the sidecar waits for its rebuild instead
BATCH = 2_000


class DeltaIndex:
    """An in-memory FTS5 table of the passages with ids past ``base_last``."""

    def __init__(self, tokenizer: str, base_key: bytes, base_last: int) -> None:
        self.base_key = base_key
        self.base_last = base_last
        self.last = base_last  # highest chunk id indexed here
        self.rows = 0
        self.tokens = 0
        self._ids: list[np.ndarray] = []
        self._lengths: list[np.ndarray] = []
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        spec = tokenizer.replace("'", "''")
        self.conn.execute(
            "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, heading, content='', "
            f"tokenize='{spec}')"  # contentless: the text is the library's, not kept twice
        )
        self.conn.execute(
            "CREATE VIRTUAL TABLE temp.prioris_vi USING fts5vocab(main, chunks_fts, instance)"
        )

    def catch_up(self, library: Any) -> None:
        """Index the passages of ``library`` (a connection) past the last one indexed, as
        FTS5 indexed them (text, the work's title, heading), with their token counts."""
        while True:
            rows = library.execute(
                "SELECT id, text, title, heading FROM chunk_fts_source WHERE id > ? "
                "ORDER BY id LIMIT ?",
                (self.last, BATCH),
            ).fetchall()
            if not rows:
                return
            self.conn.executemany(
                "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
                [tuple(r) for r in rows],
            )
            ids = [int(r[0]) for r in rows]
            marks = ", ".join("?" for _ in ids)
            sizes = dict(
                self.conn.execute(
                    f"SELECT id, sz FROM chunks_fts_docsize WHERE id IN ({marks})", ids
                ).fetchall()
            )
            lengths = [sum(postings.varints(bytes(sizes[i]))) for i in ids]
            self._ids.append(np.array(ids, dtype=np.int64))
            self._lengths.append(np.array(lengths, dtype=np.float64))
            self.last, self.rows = ids[-1], self.rows + len(ids)
            self.tokens += sum(lengths)

    def lengths(self, base: np.ndarray) -> np.ndarray:
        """``base`` (token counts by position) followed by the added passages' (their ids
        are all higher, so their positions follow in id order)."""
        return np.concatenate([base.astype(np.float64), *self._lengths])

    def ids(self) -> np.ndarray:
        """The added passages' chunk ids, increasing."""
        return np.concatenate(self._ids) if self._ids else np.zeros(0, dtype=np.int64)

    def postings(
        self, term: str, offset: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The added passages' positions (int32, from ``offset``: the sidecar's passages
        come first), ``2 x text + heading`` counts, and positions and counts of the title
        occurrences of ``term``, as the sidecar stores them."""
        ids, base, title = postings.positions(
            self.ids(),
            *postings.term_postings(postings.term_rows(self.conn, term, postings.LARGE_TERM)),
        )
        ids = ids + offset
        at = np.flatnonzero(title).astype(np.int32)
        tf_type = np.uint8 if len(base) == 0 or base.max() <= 255 else np.uint16
        counts = np.minimum(title[at], 65535).astype(np.uint16)
        return ids.astype(np.int32), base.astype(tf_type), at, counts

    def close(self) -> None:
        self.conn.close()
