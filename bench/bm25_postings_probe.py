"""What an own BM25 index would give at a million passages: a measured probe, not product code.

FTS5 spends about 2 us per matching row in ``bm25()`` (a query over words in 10-60% of a
million passages ranks hundreds of thousands of rows), while walking the same postings
costs about 0.1 us a row (``count(*)``). This probe builds, for the query words of the
benchmark only, the postings an own index would keep (chunk id and column-weighted term
frequency, read from the FTS5 index itself through ``fts5vocab``, so terms and stems are
FTS5's own), stores them as blobs in a scratch SQLite file, and ranks each query with
numpy: read the blobs, BM25 with FTS5's formula and statistics, top-k. It prints the
latency beside FTS5's (the product's plan) and whether the top k are the same rows.

    .venv/bin/python bench/bm25_postings_probe.py --which realistic --chunks 1000000

Nothing here is used by the product; the scratch file goes to ``bench/out``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

K1, B = 1.2, 0.75
WEIGHTS = (1.0, 1.0, 0.5)  # text, title, heading: the product's bm25(chunks_fts, ...) call


def varints(blob: bytes) -> list[int]:
    """SQLite's varints (most significant group first), as FTS5's docsize rows hold them."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def doc_lengths(conn) -> tuple[np.ndarray, int, float]:
    """Tokens per row (all columns, unweighted, as FTS5's bm25 counts them)."""
    last = conn.execute("SELECT max(id) FROM chunks_fts_docsize").fetchone()[0]
    lengths = np.zeros(last + 1, dtype=np.float32)
    rows = 0
    for rowid, size in conn.execute("SELECT id, sz FROM chunks_fts_docsize"):
        lengths[rowid] = sum(varints(size))
        rows += 1
    return lengths, rows, float(lengths.sum() / rows)


def index_term(conn, word: str) -> str | None:
    """The word as FTS5 indexes it (same tokenizer: a scratch FTS5 table)."""
    conn.execute("DELETE FROM temp.tok")
    conn.execute("INSERT INTO temp.tok(t) VALUES (?)", (word,))
    row = conn.execute("SELECT term FROM temp.tokv LIMIT 1").fetchone()
    return None if row is None else row[0]


def build_postings(conn, store, terms: set[str]) -> None:
    weights = np.asarray(WEIGHTS, dtype=np.float32)
    for term in sorted(terms):
        if store.execute("SELECT 1 FROM postings WHERE term = ?", (term,)).fetchone():
            continue
        rows = np.asarray(
            conn.execute(
                "SELECT doc, CASE col WHEN 'text' THEN 0 WHEN 'title' THEN 1 ELSE 2 END "
                "FROM temp.vi WHERE term = ?",
                (term,),
            ).fetchall(),
            dtype=np.int64,
        ).reshape(-1, 2)
        if len(rows) == 0:
            ids, tf = np.zeros(0, np.int32), np.zeros(0, np.uint8)
        else:
            col = rows[:, 1]
            ids, inverse = np.unique(rows[:, 0], return_inverse=True)
            tf = np.bincount(inverse, weights=weights[col]).astype(np.float32)
            ids = ids.astype(np.int32)
            tf = np.minimum(np.rint(tf * 2), 255).astype(np.uint8)  # half steps (heading 0.5)
        store.execute("INSERT INTO postings VALUES (?, ?, ?)", (term, ids.tobytes(), tf.tobytes()))
    store.commit()


def rank(store, terms: list[str], lengths: np.ndarray, rows: int, avgdl: float, k: int):
    scores = np.zeros(len(lengths), dtype=np.float32)
    norm = None
    for term in terms:
        found = store.execute("SELECT ids, tf FROM postings WHERE term = ?", (term,)).fetchone()
        if found is None:
            continue
        ids = np.frombuffer(found[0], dtype=np.int32)
        if len(ids) == 0:
            continue
        tf = np.frombuffer(found[1], dtype=np.uint8).astype(np.float32) * 0.5
        idf = max(np.log((rows - len(ids) + 0.5) / (len(ids) + 0.5)), 1e-6)
        if norm is None:
            norm = K1 * (1 - B + B * lengths / avgdl)
        scores[ids] += idf * tf * (K1 + 1) / (tf + norm[ids])
    top = np.argpartition(-scores, k)[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [int(i) for i in top if scores[i] > 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--which", choices=("synthetic", "realistic"), default="realistic")
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("-k", type=int, default=40, help="chunks ranked (k=10 works asks 40)")
    args = parser.parse_args(argv)
    from prioris.search.backends import SearchFilters
    from prioris.search.query import plain_to_fts5
    from prioris.storage.db import sqlite3

    library_dir = common.OUT / f"{args.which}-{args.chunks // 1000}k"
    if not (library_dir / "complete.json").is_file():
        print(f"SKIPPED: build it first: bench_latency.py --which {args.which} --chunks ...")
        return 0
    if args.which == "realistic":
        queries = list(common.load_queries().values())[: args.queries]
    else:
        import json

        import bench_latency

        info = json.loads((library_dir / "complete.json").read_text())
        queries = bench_latency.synthetic_queries(info["vocabulary"], args.queries)
    conn = sqlite3.connect(str(library_dir / "library.sqlite"))
    conn.execute("CREATE VIRTUAL TABLE temp.vi USING fts5vocab(main, chunks_fts, instance)")
    tokenizer = "porter unicode61 remove_diacritics 2"  # the product's chunks_fts tokenizer
    conn.execute(f"CREATE VIRTUAL TABLE temp.tok USING fts5(t, tokenize='{tokenizer}')")
    conn.execute("CREATE VIRTUAL TABLE temp.tokv USING fts5vocab(temp, tok, row)")
    store = sqlite3.connect(str(common.OUT / f"postings-{library_dir.name}.sqlite"))
    store.execute("CREATE TABLE IF NOT EXISTS postings (term TEXT PRIMARY KEY, ids BLOB, tf BLOB)")
    started = time.perf_counter()
    lengths, rows, avgdl = doc_lengths(conn)
    expressions = [plain_to_fts5(q) for q in queries]
    query_terms = []
    for expression in expressions:
        words = [w.strip('"') for w in expression.split(" OR ")]
        query_terms.append([t for t in (index_term(conn, w) for w in words) if t])
    build_postings(conn, store, {t for ts in query_terms for t in ts})
    print(
        f"setup (doc lengths, postings of {len({t for ts in query_terms for t in ts})} terms): "
        f"{time.perf_counter() - started:.0f} s; rows {rows}, avgdl {avgdl:.1f}"
    )
    with common.open_library(library_dir) as library:
        backend = library.searcher.backend
        mine, theirs, same = [], [], 0
        for expression, terms in zip(expressions, query_terms, strict=True):
            for _ in range(2):  # second run timed: postings in the page cache, as FTS5's
                t0 = time.perf_counter()
                got = rank(store, terms, lengths, rows, avgdl, args.k)
                t1 = time.perf_counter()
            fts = backend.fts(expression, SearchFilters(), args.k, title_weight=1.0)
            t2 = time.perf_counter()
            mine.append((t1 - t0) * 1000)
            theirs.append((t2 - t1) * 1000)
            same += set(got) == {c.chunk_id for c in fts}
    print(f"{len(queries)} queries, top {args.k} chunks, ms:")
    common.print_table(
        ["ranker", "p50", "p95"],
        [
            (
                "FTS5 bm25 (product plan)",
                f"{common.percentile(theirs, 50):.1f}",
                f"{common.percentile(theirs, 95):.1f}",
            ),
            (
                "numpy over tf postings",
                f"{common.percentile(mine, 50):.1f}",
                f"{common.percentile(mine, 95):.1f}",
            ),
        ],
    )
    print(f"same top {args.k} rows as FTS5: {same} of {len(queries)} queries")
    conn.execute("CREATE VIRTUAL TABLE temp.vr USING fts5vocab(main, chunks_fts, row)")
    pairs = conn.execute("SELECT sum(doc) FROM temp.vr").fetchone()[0]
    print(
        f"postings of every word (chunk, word) pairs: {pairs:,}; as int32 ids + uint8 tf "
        f"about {pairs * 5 / 2**20:,.0f} MiB before compression"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
