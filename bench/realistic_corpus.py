"""A large library that looks like real literature: SciFact passages recombined.

Random words and random vectors time the code paths, but neither FTS postings nor vector
neighbourhoods look like real ones (random 384-dimension vectors have no near neighbours
at all, the worst case for any compact first pass). This corpus keeps real ones:

- a base of real passages: the title and abstract of the first ``BASE_DOCS`` SciFact
  records, embedded once with the library's model (cached in ``bench/out``);
- each generated passage is base passage *a* with about a tenth of its words cut out and a
  run of words from base passage *b* put in, *b*'s share set by a weight ``w`` drawn in
  [0.6, 1]; its vector is ``w·v_a + (1 - w)·v_b`` plus a little noise, normalised. Texts
  keep real word statistics (the postings of "cell" or "patients" grow as in a real
  collection), and vectors fill the space between real passages as new papers would.

Works have ``CHUNKS_PER_WORK`` passages, a year in 1990-2024 (one in twenty unknown) and one
of three sources, so filters have something to bite on. Rows go straight through the
storage layer (``works.upsert_work``, ``chunks.insert_chunks``, ``chunks.insert_vectors``)
in transactions of ``BATCH`` chunks; a stopped build resumes from its last commit.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import common

BASE_DOCS = 2000
CHUNKS_PER_WORK = 5
BATCH = 10_000
NOISE = 0.02  # per dimension: cosine to the mixed vector about 0.93
SOURCES = ("import", "arxiv", "europepmc")


def base_passages(embedder: Any) -> tuple[list[str], list[str], Any]:
    """Titles, texts and unit vectors of the base passages (vectors cached)."""
    import numpy as np

    records = common.load_corpus()[:BASE_DOCS]
    titles = [str(r.get("title") or "") for r in records]
    texts = [f"{t}\n\n{r.get('text') or ''}".strip() for t, r in zip(titles, records, strict=True)]
    cache = common.OUT / f"realistic-base-{BASE_DOCS}.npy"
    meta = common.OUT / f"realistic-base-{BASE_DOCS}.json"
    if cache.is_file() and meta.is_file() and json.loads(meta.read_text()) == embedder.model_id:
        vectors = np.load(cache)
    else:
        print(f"  embedding {len(texts)} base passages (once)", file=sys.stderr, flush=True)
        vectors = np.asarray(embedder.embed_passages(texts), dtype=np.float32)
        common.OUT.mkdir(parents=True, exist_ok=True)
        np.save(cache, vectors)
        meta.write_text(json.dumps(embedder.model_id))
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return titles, texts, vectors


def build_realistic(data_dir: Path, chunks: int, *, embedder: Any) -> dict[str, Any]:
    """Build (or resume, or reuse) the library of ``chunks`` recombined passages."""
    import numpy as np

    from prioris.engines.sqlite.connection import connect
    from prioris.models import Chunk, Work
    from prioris.storage import chunks as chunk_store
    from prioris.storage import works as work_store

    marker = data_dir / "complete.json"
    if marker.is_file():
        info = json.loads(marker.read_text())
        if info["chunks"] == chunks and info["model"] == embedder.model_id:
            return info
        raise SystemExit(f"{data_dir} holds another corpus; remove it to rebuild")
    titles, texts, base = base_passages(embedder)
    words = [t.split() for t in texts]
    conn = connect(data_dir / "library.sqlite")
    chunk_store.ensure_vector_index(conn, embedder.model_id, embedder.dim)
    made = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    if made % BATCH:
        raise SystemExit(f"{data_dir} stopped inside a batch; remove it to rebuild")
    started = time.perf_counter()
    now = "2026-01-01T00:00:00+00:00"
    while made < chunks:
        rng = np.random.default_rng(made)  # one stream per batch: a resumed build is the same
        size = min(BATCH, chunks - made)
        first = rng.integers(0, len(texts), size)
        second = rng.integers(0, len(texts), size)
        weight = rng.uniform(0.6, 1.0, size).astype(np.float32)
        noise = NOISE * rng.standard_normal((size, base.shape[1])).astype(np.float32)
        vectors = weight[:, None] * base[first] + (1 - weight[:, None]) * base[second] + noise
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cuts = rng.uniform(0, 1, (size, 3))
        conn.execute("BEGIN IMMEDIATE")
        for start in range(0, size, CHUNKS_PER_WORK):
            number = (made + start) // CHUNKS_PER_WORK
            rows = range(start, min(size, start + CHUNKS_PER_WORK))
            year = None if number % 20 == 0 else 1990 + number % 35
            work = Work(
                id=f"realistic:{number}",
                title=titles[first[start]],
                year=year,
                source=SOURCES[number % len(SOURCES)],
            )
            work_id = work_store.upsert_work(conn, work, now)
            items = []
            for ordinal, row in enumerate(rows):
                text = _mixed(words[first[row]], words[second[row]], weight[row], cuts[row])
                items.append(
                    Chunk(work_id, None, ordinal, text, 1, 1, 0, len(text), "", len(text) // 6)
                )
            ids = chunk_store.insert_chunks(conn, items, work.title)
            chunk_store.insert_vectors(
                conn,
                ids,
                vectors[start : start + len(ids)],
                embedder.model_id,
                work_ids=[work_id] * len(ids),
                sources=[work.source] * len(ids),
                years=[year] * len(ids),
            )
        conn.execute("COMMIT")
        made += size
        print(f"  realistic chunks: {made}/{chunks}", file=sys.stderr, flush=True)
    conn.close()
    info = {
        "chunks": chunks,
        "model": embedder.model_id,
        "seconds": round(time.perf_counter() - started, 1),
    }
    marker.write_text(json.dumps(info))
    return info


def _mixed(own: list[str], other: list[str], weight: float, cuts: Any) -> str:
    """``own`` with a tenth cut out at one place and a run of ``other`` put in at another."""
    cut_at = int(cuts[0] * len(own))
    kept = own[:cut_at] + own[cut_at + len(own) // 10 :]
    share = int(len(own) * (1 - weight))
    begin = int(cuts[1] * max(1, len(other) - share))
    put_at = int(cuts[2] * len(kept))
    return " ".join(kept[:put_at] + other[begin : begin + share] + kept[put_at:])
