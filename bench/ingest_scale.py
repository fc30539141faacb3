"""(e) Import at scale: the product's own bulk path for records, with the model taken out.

``prioris import FILE.jsonl`` runs in a child process (the real CLI: JSONL reading,
validation, chunking with the real tokenizer, one transaction per record, FTS5 and vec0
writes) over N generated records of ~2 chunks each. Only the embedding model is replaced,
at its edge, by a deterministic stand-in (384 dimensions, one seeded random unit vector per
text), so the figures are the pipeline's own cost; the model's rate is measured in part
(a) and used for the projection. The parent samples the child's RSS and the library's
progress, then prints rates per tenth of the run, RSS over time, bytes per passage (by
table through ``dbstat``) and the projected time for a million passages.

Resumability: a second library gets the same command, SIGKILLed at about half way, then
the same command again; the result must hold exactly N works and the fresh run's chunk
count with no duplicates, and the second run must embed only what the first did not store.

``python bench/ingest_scale.py child DATA_DIR FILE`` is the child (used by the parent).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

STAND_IN_DIM = 384
STAND_IN_ID = "bench/stand-in-384"
EMBEDDED_MARK = "stand-in embedded texts:"
DEFAULT_MODEL_CHUNKS_PER_S = 18.87  # section 3 (a): Library.import_records with the model


# -- the child: the real CLI with a stand-in model ---------------------------------------------
class StandInEmbedder:
    """The model replaced at its edge: the real tokenizer sizes chunks (so chunking is the
    product's), vectors are seeded from a CRC of the text (deterministic, ~10 us each)."""

    def __init__(self) -> None:
        from prioris.embedding.fastembed_backend import FastembedEmbedder

        self._tokens = FastembedEmbedder()  # its tokenizer only; the ONNX model never loads
        self.embedded = 0

    @property
    def model_id(self) -> str:
        return STAND_IN_ID

    @property
    def dim(self) -> int:
        return STAND_IN_DIM

    def _vector(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
        vector = rng.standard_normal(STAND_IN_DIM).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        if not texts:
            return np.zeros((0, STAND_IN_DIM), dtype=np.float32)
        return np.vstack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self._tokens.count_tokens(texts)


def child(data_dir: str, file: str) -> int:
    """``prioris --data-dir DATA_DIR import FILE`` with the stand-in model injected."""
    import prioris.embedding
    from prioris.interfaces.cli import main

    stand_in = StandInEmbedder()
    prioris.embedding.build_embedder = lambda settings: stand_in  # type: ignore[assignment]
    code = main(["--data-dir", data_dir, "import", file])
    print(f"{EMBEDDED_MARK} {stand_in.embedded}", file=sys.stderr)
    return code


# -- generated records ---------------------------------------------------------------------
def write_records(path: Path, count: int, seed: int = 13) -> int:
    """N abstracts of ~225 words (~380 tokens: two chunks): common words mixed with a
    Zipf-distributed vocabulary of 60,000 made-up terms, so FTS postings have a long tail."""
    rng = np.random.default_rng(seed)
    common_words = np.array(common.WORDS)
    syllables = np.array(["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "gu", "sa", "di"])
    rare = np.array(
        ["".join(rng.choice(syllables, size=rng.integers(2, 5))) for _ in range(60_000)]
    )
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for number in range(count):
            words = rng.integers(200, 250)
            picks = common_words[rng.integers(0, len(common_words), size=words)]
            rare_at = rng.random(words) < 0.25
            ranks = np.minimum(rng.zipf(1.3, size=int(rare_at.sum())), len(rare)) - 1
            picks[rare_at] = rare[ranks]
            sentences = np.split(picks, np.arange(14, words, 14))
            text = " ".join(" ".join(s).capitalize() + "." for s in sentences)
            title = " ".join(picks[:8]).capitalize()
            record = {
                "_id": f"scale-{number:07d}",
                "title": f"{title} ({number})",
                "text": text,
                "year": int(1990 + number % 35),
                "authors": [f"Author {number % 997}", f"Writer {number % 389}"],
            }
            handle.write(json.dumps(record) + "\n")
            written += 1
    return written


# -- the parent: run, sample, report -------------------------------------------------------
def _counts(db: Path) -> tuple[int, int]:
    """(works, chunks) stored so far, read through a separate read-only connection."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0, 0
    try:
        works = conn.execute("SELECT count(*) FROM works").fetchone()[0]
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(works), int(chunks)
    except sqlite3.Error:
        return 0, 0
    finally:
        conn.close()


def _memory(process: Any) -> tuple[int, int]:
    """(RSS, RSS less shared pages: SQLite's mmap of the library file is shared)."""
    import psutil

    try:
        info = process.memory_info()
    except psutil.Error:
        return 0, 0
    return int(info.rss), int(info.rss - getattr(info, "shared", 0))


def run_import(
    data_dir: Path, file: Path, total: int, *, kill_at: float | None = None, interval: float = 0.5
) -> dict[str, Any]:
    """Run the child until it ends (or SIGKILL it once ``kill_at`` of the works are stored);
    return the samples ``(seconds, works, chunks, rss, private)`` and the child's output."""
    import psutil

    db = data_dir / "library.sqlite"
    command = [sys.executable, str(Path(__file__).resolve()), "child", str(data_dir), str(file)]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=common.REPO
    )
    watched = psutil.Process(process.pid)
    samples: list[tuple[float, int, int, int, int]] = []
    killed = False
    while process.poll() is None:
        works, chunks = _counts(db) if db.exists() else (0, 0)
        rss, private = _memory(watched)
        if rss:
            samples.append((time.perf_counter() - started, works, chunks, rss, private))
        if kill_at is not None and works >= kill_at * total:
            os.kill(process.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(interval)
    out, err = process.communicate()
    seconds = time.perf_counter() - started
    works, chunks = _counts(db)
    samples.append((seconds, works, chunks, samples[-1][3] if samples else 0, 0))
    if not killed and process.returncode != 0:
        raise SystemExit(f"import exited {process.returncode}: {err[-2000:]}")
    embedded = None
    for line in err.splitlines():
        if line.startswith(EMBEDDED_MARK):
            embedded = int(line.split(":", 1)[1])
    return {
        "seconds": seconds,
        "samples": samples,
        "out": out.strip(),
        "embedded": embedded,
        "killed": killed,
        "works": works,
        "chunks": chunks,
        "command": command,
    }


def _slices(run: dict[str, Any], total: int, parts: int = 10) -> list[tuple[Any, ...]]:
    """Per tenth of the records: records/s and chunks/s within it, and RSS at its end."""
    rows = []
    samples = run["samples"]
    previous = (0.0, 0, 0)
    for part in range(1, parts + 1):
        goal = total * part / parts
        hit = next((s for s in samples if s[1] >= goal), samples[-1])
        seconds = hit[0] - previous[0]
        if seconds <= 0:
            continue
        rate = (hit[1] - previous[1]) / seconds
        chunk_rate = (hit[2] - previous[2]) / seconds
        rows.append(
            (
                f"{part * 100 // parts}%",
                f"{hit[1]:,}",
                f"{hit[0]:.1f}",
                f"{rate:.0f}",
                f"{chunk_rate:.0f}",
                f"{common.mib(hit[3]):.0f}",
                f"{common.mib(hit[4]):.0f}",
            )
        )
        previous = (hit[0], hit[1], hit[2])
    return rows


def _table_sizes(db: Path) -> list[tuple[str, int]]:
    """Bytes per table (indexes and FTS/vec0 shadow tables folded into their owner)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
        index_owner = dict(
            conn.execute("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'")
        )
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    owners: dict[str, int] = {}
    for name, size in rows:
        owner = index_owner.get(name, name)
        for virtual in ("chunks_fts", "chunks_vec"):  # FTS5 / vec0 shadow tables
            if owner.startswith(virtual):
                owner = virtual
        owners[owner] = owners.get(owner, 0) + int(size)
    return sorted(owners.items(), key=lambda item: -item[1])


def maintenance(db: Path) -> None:
    """Time the upkeep docs/usage.md suggests after a large import: FTS5 ``optimize``, then
    ``VACUUM`` (neither needs sqlite-vec), and say what each did to the file's size."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = db.stat().st_size
        with common.timed() as optimized:
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        after_optimize = db.stat().st_size
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        with common.timed() as vacuumed:
            conn.execute("VACUUM")
        after_vacuum = db.stat().st_size
    finally:
        conn.close()
    print(
        f"upkeep: FTS5 'optimize' {optimized['seconds']:.1f} s (file {common.mib(before):.0f} "
        f"-> {common.mib(after_optimize):.0f} MiB, {free:,} free pages), then VACUUM "
        f"{vacuumed['seconds']:.1f} s (-> {common.mib(after_vacuum):.0f} MiB)"
    )


def _integrity(db: Path) -> dict[str, int]:
    """Counts that a clean import must make agree (duplicates, orphans, index rows)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:

        def one(sql: str) -> int:
            return int(conn.execute(sql).fetchone()[0])

        return {
            "works": one("SELECT count(*) FROM works"),
            "documents": one("SELECT count(*) FROM documents"),
            "chunks": one("SELECT count(*) FROM chunks"),
            "duplicate chunks": one(
                "SELECT count(*) FROM (SELECT 1 FROM chunks GROUP BY work_id, ordinal "
                "HAVING count(*) > 1)"
            ),
            "works without chunks": one(
                "SELECT count(*) FROM works WHERE id NOT IN (SELECT work_id FROM chunks)"
            ),
            "vectors": one("SELECT count(*) FROM chunks_vec_rowids"),
            "fts rows": one("SELECT count(*) FROM chunks_fts_docsize"),
        }
    finally:
        conn.close()


def bench_scale(
    tmp: Path, *, records: int, model_chunks_per_s: float, resume: bool = True, upkeep: bool = True
) -> None:
    """(e) the whole part: generate, import fresh, report; then kill + resume."""
    tmp.mkdir(parents=True, exist_ok=True)
    file = tmp / "records.jsonl"
    with common.timed() as made:
        write_records(file, records)
    print(
        f"(e) import at scale: {records:,} generated records ({common.mib(file.stat().st_size):.0f}"
        f" MiB of JSONL, written in {made['seconds']:.0f} s) through `prioris import FILE` in a "
        "child process. The embedding model is REPLACED by a stand-in (seeded random "
        "vectors, real tokenizer), so these figures are the pipeline's own cost; the model "
        f"alone runs at ~{model_chunks_per_s:g} chunks/s (part (a))."
    )
    fresh = run_import(tmp / "fresh", file, records)
    db = tmp / "fresh" / "library.sqlite"
    check = _integrity(db)
    chunks = check["chunks"]
    print(f"fresh run: {fresh['out']} in {fresh['seconds']:.1f} s ({fresh['embedded']} embedded)")
    common.print_table(
        ["records done", "works", "at s", "records/s", "chunks/s", "RSS MiB", "private MiB"],
        _slices(fresh, records),
    )
    during = [s for s in fresh["samples"][:-1] if s[1] > 0]  # once the first work is stored
    print(
        f"child RSS while importing: first {common.mib(during[0][3]):.0f} MiB, peak "
        f"{common.mib(max(s[3] for s in during)):.0f} MiB; private (RSS less shared pages, "
        f"i.e. without SQLite's mmap of the library file) first {common.mib(during[0][4]):.0f}"
        f" MiB, peak {common.mib(max(s[4] for s in during)):.0f} MiB ({len(during)} samples "
        "every 0.5 s)"
    )
    size = db.stat().st_size + sum(
        p.stat().st_size for p in db.parent.glob("library.sqlite-*") if p.is_file()
    )
    print(
        f"library: {chunks:,} chunks of {records:,} works, {common.mib(size):.1f} MiB on disk "
        f"(with WAL) = {size / chunks:,.0f} bytes per passage"
    )
    sizes = _table_sizes(db)
    if sizes:
        common.print_table(
            ["table (with its indexes)", "MiB", "bytes/passage"],
            [(name, f"{common.mib(b):.1f}", f"{b / chunks:,.0f}") for name, b in sizes[:8]],
        )
    pipeline_rate = chunks / fresh["seconds"]
    million = 1_000_000
    combined = 1 / (1 / pipeline_rate + 1 / model_chunks_per_s)
    print(
        f"projected for 1,000,000 passages: pipeline alone {million / pipeline_rate / 3600:.2f} h"
        f" ({pipeline_rate:.0f} chunks/s); model alone {million / model_chunks_per_s / 3600:.1f}"
        f" h ({model_chunks_per_s:g} chunks/s); both in series {million / combined / 3600:.1f} h"
        f" (the pipeline adds {100 * model_chunks_per_s / pipeline_rate:.1f}% to the model)"
    )
    if upkeep:
        maintenance(db)
    if not resume:
        return
    killed = run_import(tmp / "resumed", file, records, kill_at=0.5)
    again = run_import(tmp / "resumed", file, records)
    after = _integrity(tmp / "resumed" / "library.sqlite")
    print(
        f"resume: SIGKILL after {killed['seconds']:.1f} s with {killed['works']:,} works / "
        f"{killed['chunks']:,} chunks stored; the same command again: {again['out']} in "
        f"{again['seconds']:.1f} s, {again['embedded']:,} chunk texts embedded (a fresh run "
        f"embedded {fresh['embedded']:,} in {fresh['seconds']:.1f} s)"
    )
    common.print_table(
        ["check", "fresh", "killed + resumed"],
        [(name, f"{check[name]:,}", f"{after[name]:,}") for name in check],
    )
    ok = after == check and after["works"] == records and not after["duplicate chunks"]
    print(f"resumed library identical in every count to the fresh one: {'yes' if ok else 'NO'}\n")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "child":
        raise SystemExit(child(sys.argv[2], sys.argv[3]))
    raise SystemExit("usage: run through bench/bench_ingest.py --part scale")
