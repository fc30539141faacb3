"""Ingest throughput and memory.

(a) SciFact import rate as a ratio to the embedding model alone: the chunk texts of the
    first N records are embedded with the embedder by themselves, then the same records
    are imported (parse, chunk, embed, FTS + vector writes) into a fresh temp library with
    the same, already loaded, embedder. Ratio = import docs/s / embed-alone docs/s
    (target >= 0.9: the pipeline should cost little beyond the model).
(b) PDF ingest pages/s for generated born-digital PDFs, and for generated image-only
    (scanned) pages through real tesseract.
(c) Peak RSS of ``python -m prioris --data-dir TMP ingest DIR --json`` over a directory of
    100 generated PDFs, sampled with psutil from this process (target < 1.5 GB).
(e) Import at scale (``bench/ingest_scale.py``): ``prioris import`` of N generated records
    with the model replaced by a stand-in, so the figures are the pipeline's own cost:
    rate per tenth of the run, RSS over time, bytes per passage by table, the projection
    to a million passages, and a SIGKILL at half way followed by the same command again.

Everything is written into a temp dir. Parts: ``--part import|pdf|scanned|rss|scale``
(default all but scale); (a) needs ../shared/eval/scifact and is skipped with a message
when it is absent.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import ingest_scale


def bench_import(docs: int, tmp: Path) -> None:
    """(a) import docs/s over embedding-alone docs/s on the same texts, same embedder."""
    if not (common.SCIFACT / "corpus.jsonl").is_file():
        print(f"(a) SKIPPED: SciFact data not found at {common.SCIFACT}")
        return
    from prioris.ingest.embed import embedding_text

    records = common.load_corpus()
    if docs:
        records = records[:docs]
    with common.open_library(tmp / "probe") as probe:
        embedder = probe.embedder
        prepared = [probe.pipeline.prepare_record(r) for r in records]
        texts = [embedding_text(p.work.title, c.text) for p in prepared for c in p.chunks]
        embedder.embed_passages(texts[:32])  # load the model and warm it up: not timed
        with common.timed() as alone:
            embedder.embed_passages(texts)
        with common.open_library(tmp / "import", embedder=embedder) as library:
            with common.timed() as full:
                summary = library.import_records(iter(records))
            assert not summary.failed, summary.failed[:3]
            chunks = library.status()["chunks"]
    embed_rate = len(records) / alone["seconds"]
    import_rate = len(records) / full["seconds"]
    print(
        f"(a) SciFact import, first {len(records)} records, {len(texts)} chunk texts "
        f"({chunks} stored)"
    )
    common.print_table(
        ["step", "seconds", "docs/s", "chunks/s"],
        [
            (
                "embedding alone",
                f"{alone['seconds']:.1f}",
                f"{embed_rate:.2f}",
                f"{len(texts) / alone['seconds']:.2f}",
            ),
            (
                "Library.import_records",
                f"{full['seconds']:.1f}",
                f"{import_rate:.2f}",
                f"{chunks / full['seconds']:.2f}",
            ),
        ],
    )
    print(f"ratio import/embedding-alone = {import_rate / embed_rate:.3f} (target >= 0.9)\n")


def bench_pdfs(tmp: Path, *, files: int, pages: int, scanned: bool) -> None:
    """(b) pages/s of ingest_paths on generated PDFs (text layer, or image-only + OCR)."""
    rng = random.Random(7)
    folder = tmp / ("scanned" if scanned else "text")
    folder.mkdir(parents=True)
    writer = common.write_scanned_pdf if scanned else common.write_text_pdf
    for number in range(files):
        writer(
            folder / f"paper_{number:03d}.pdf",
            f"Generated paper {number} {common.sentence(rng, 6)}",
            pages,
            rng,
        )
    with common.open_library(tmp / f"lib-{folder.name}") as library:
        library.embedder.embed_passages(["warm up the model"])  # model load not timed
        with common.timed() as t:
            summary = library.ingest_paths([folder])
        assert not summary.failed, summary.failed[:3]
        done = sum(r.pages for r in summary.ingested)
        ocr = sum(r.ocr_pages for r in summary.ingested)
        chunks = sum(r.chunks for r in summary.ingested)
    kind = "scanned (image-only, tesseract)" if scanned else "text PDFs"
    print(
        f"(b) {kind}: {files} files x {pages} pages = {done} pages ({ocr} by OCR), "
        f"{chunks} chunks in {t['seconds']:.1f} s -> {done / t['seconds']:.2f} pages/s "
        "(end to end: parse, OCR, chunk, embed, store)\n"
    )


def bench_rss(tmp: Path, *, files: int, pages: int) -> None:
    """(c) peak RSS of the CLI ingesting a directory of generated PDFs."""
    rng = random.Random(11)
    folder = tmp / "rss-pdfs"
    folder.mkdir(parents=True)
    for number in range(files):
        common.write_text_pdf(
            folder / f"doc_{number:03d}.pdf",
            f"Memory test paper {number} {common.sentence(rng, 5)}",
            rng.randint(max(1, pages - 3), pages + 3),
            rng,
        )
    command = [
        sys.executable,
        "-m",
        "prioris",
        "--data-dir",
        str(tmp / "rss-lib"),
        "ingest",
        str(folder),
        "--json",
    ]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=common.REPO
    )
    with common.RssSampler(process.pid, interval=0.05) as sampler:
        out, _ = process.communicate()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"ingest exited {process.returncode}")
    result = json.loads(out)
    done = result["ingested"]
    print(
        f"(c) `{' '.join(command[1:3])} --data-dir TMP ingest DIR --json`: {len(done)} PDFs, "
        f"{sum(r['pages'] for r in done)} pages, {sum(r['chunks'] for r in done)} chunks "
        f"in {seconds:.1f} s; peak RSS {common.mib(sampler.peak):.0f} MiB "
        f"({sampler.samples} samples; target < 1536 MiB)\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--part", choices=("import", "pdf", "scanned", "rss", "scale"), action="append"
    )
    parser.add_argument(
        "--docs",
        type=int,
        default=1000,
        help="SciFact records for (a); 0 = all 5,183 (default 1000)",
    )
    parser.add_argument("--pdf-files", type=int, default=20)
    parser.add_argument("--pdf-pages", type=int, default=10)
    parser.add_argument("--scanned-pages", type=int, default=6)
    parser.add_argument("--rss-files", type=int, default=100)
    parser.add_argument("--rss-pages", type=int, default=8, help="mean pages per PDF for (c)")
    parser.add_argument("--scale-records", type=int, default=20_000, help="records for (e)")
    parser.add_argument(
        "--model-chunks-per-s",
        type=float,
        default=ingest_scale.DEFAULT_MODEL_CHUNKS_PER_S,
        help="the model's rate for the 1M projection of (e) (default: part (a)'s figure in "
        "docs/benchmarks.md)",
    )
    parser.add_argument("--no-resume", action="store_true", help="(e) without the kill+resume")
    parser.add_argument(
        "--no-upkeep", action="store_true", help="(e) without timing FTS optimize and VACUUM"
    )
    args = parser.parse_args(argv)
    parts = args.part or ["import", "pdf", "scanned", "rss"]
    with tempfile.TemporaryDirectory(prefix="prioris-bench-ingest-") as name:
        tmp = Path(name)
        if "import" in parts:
            bench_import(args.docs, tmp / "a")
        if "pdf" in parts:
            bench_pdfs(tmp / "b", files=args.pdf_files, pages=args.pdf_pages, scanned=False)
        if "scanned" in parts:
            bench_pdfs(tmp / "s", files=args.scanned_pages, pages=1, scanned=True)
        if "rss" in parts:
            bench_rss(tmp / "c", files=args.rss_files, pages=args.rss_pages)
        if "scale" in parts:
            ingest_scale.bench_scale(
                tmp / "e",
                records=args.scale_records,
                model_chunks_per_s=args.model_chunks_per_s,
                resume=not args.no_resume,
                upkeep=not args.no_upkeep,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
