"""Exact float KNN for benchmark queries, and the recall of the library's KNN against it.

The exact top 10 is computed by streaming every stored vector out of ``vec0`` in blocks
(constant memory, one pass for all queries) and cached beside the library, keyed by the
queries and the vector-index version, so it is computed once per library.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

K = 10
BLOCK = 20_000


def exact_top(db_path: Path, vectors: Any, k: int = K) -> list[list[int]]:
    """Chunk ids of the k nearest stored vectors (cosine) of each query, best first."""
    import numpy as np

    from prioris.engines.sqlite.connection import connect
    from prioris.engines.sqlite.index import VEC_TABLE

    queries = np.asarray(vectors, dtype=np.float32)
    queries = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best_scores = np.zeros((len(queries), 0), dtype=np.float32)
    conn = connect(db_path, migrate=False)
    try:
        cursor = conn.execute(f"SELECT chunk_id, embedding FROM {VEC_TABLE}")
        while rows := cursor.fetchmany(BLOCK):
            block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            block = block.reshape(len(rows), -1)
            block = block / np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            scores = np.concatenate([best_scores, queries @ block.T], axis=1)
            every = np.concatenate([best_ids, np.broadcast_to(ids, (len(queries), len(ids)))], 1)
            top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
            best_scores = np.take_along_axis(scores, top, 1)
            best_ids = np.take_along_axis(every, top, 1)
    finally:
        conn.close()
    return best_ids.tolist()


def cached_truth(data_dir: Path, library: Any, queries: list[str]) -> list[list[int]]:
    """Exact top 10 per query, computed once per library and query list."""
    from prioris.storage.chunks import vectors_version

    version = vectors_version(library.conn)
    key = hashlib.sha256(json.dumps([version, queries]).encode()).hexdigest()[:16]
    path = data_dir / f"truth-{key}.json"
    if path.is_file():
        return json.loads(path.read_text())
    started = time.perf_counter()
    vectors = [library.embedder.embed_query(q) for q in queries]
    truth = exact_top(Path(library.settings.db_path), vectors)
    path.write_text(json.dumps(truth))
    print(f"exact top {K} of {len(queries)} queries: {time.perf_counter() - started:.1f} s")
    return truth


def recall_at_10(library: Any, queries: list[str], truth: list[list[int]]) -> float:
    """Mean share of the exact top 10 chunks that the library's own KNN returns."""
    from prioris.search.protocols import SearchFilters

    backend = library.searcher.backend
    found = 0
    for query, exact in zip(queries, truth, strict=True):
        vector = library.embedder.embed_query(query)
        got = {c.chunk_id for c in backend.knn(vector, SearchFilters(), K)}
        found += len(got & set(exact))
    return found / (K * len(queries))
