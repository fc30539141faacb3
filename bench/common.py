"""Shared helpers for the benchmark scripts: SciFact loading, cached libraries, metrics.

Metrics follow the BEIR definitions (as computed there by pytrec_eval) but are written out
plainly so nothing hidden decides the figures: nDCG@10 with linear gain ``rel`` and
``log2(rank + 1)`` discount, ideal DCG from the query's judged documents; recall@100 as the
share of a query's relevant documents found in the first 100. Queries are those of the
qrels file; a query without results scores 0.

The benchmarks read ``../shared/eval/scifact`` next to the clone; when it is absent they
say so and exit 0. They write only into a temp dir or ``bench/out/`` (git-ignored).
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# PRIORIS_TEST_SHARED points elsewhere, as for the tests (a copy of the repo, e.g. the
# mutants/ folder of a mutation run, has no ../shared beside it)
SHARED = Path(os.environ.get("PRIORIS_TEST_SHARED") or REPO.parent / "shared")
SCIFACT = SHARED / "eval" / "scifact"
OUT = REPO / "bench" / "out"

if str(REPO / "src") not in sys.path:  # a clean clone run without an editable install
    sys.path.insert(0, str(REPO / "src"))

from prioris.config import Settings, load_settings  # noqa: E402

if hasattr(sys.stdout, "reconfigure"):  # figures appear as they come, also in a log file
    sys.stdout.reconfigure(line_buffering=True)

Qrels = dict[str, dict[str, int]]


# -- data ------------------------------------------------------------------------------------
def require_scifact() -> Path:
    """The SciFact folder, or exit 0 with a clear message when ../shared is absent."""
    if not (SCIFACT / "corpus.jsonl").is_file():
        print(
            f"SKIPPED: SciFact data not found at {SCIFACT} (it lives in ../shared next to "
            "the clone; this benchmark needs it)"
        )
        raise SystemExit(0)
    return SCIFACT


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def load_corpus(folder: Path = SCIFACT) -> list[dict[str, Any]]:
    return list(read_jsonl(folder / "corpus.jsonl"))


def load_queries(folder: Path = SCIFACT) -> dict[str, str]:
    return {str(q["_id"]): q["text"] for q in read_jsonl(folder / "queries.jsonl")}


def load_qrels(split: str, folder: Path = SCIFACT) -> Qrels | None:
    """``{query_id: {doc_id: relevance}}`` of a split, or None when the file is absent."""
    path = folder / "qrels" / f"{split}.tsv"
    if not path.is_file():
        return None
    qrels: Qrels = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            parts = line.rstrip("\n").split("\t")
            if number == 0 and parts[0] == "query-id":
                continue
            if len(parts) < 3:
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


# -- libraries -------------------------------------------------------------------------------
def settings_for(data_dir: Path, **overrides: Any) -> Settings:
    """Settings from the environment, but with the library in ``data_dir``."""
    env = {k: v for k, v in os.environ.items() if k != "PRIORIS_MCP_DB"}
    env["PRIORIS_MCP_DATA_DIR"] = str(data_dir)
    return load_settings(env).with_overrides(**overrides)


def open_library(data_dir: Path, *, embedder: Any = None, **overrides: Any) -> Any:
    from prioris.library import Library

    components = {} if embedder is None else {"embedder": embedder}
    return Library.open(settings_for(data_dir, **overrides), **components)


# -- metrics ---------------------------------------------------------------------------------
def ndcg_at_k(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    """BEIR/trec_eval nDCG@k: gain = relevance, discount log2(rank + 1)."""
    dcg = sum(
        relevant.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(ranked[:k], start=1)
    )
    ideal = sorted((r for r in relevant.values() if r > 0), reverse=True)[:k]
    idcg = sum(rel / math.log2(rank + 1) for rank, rel in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: dict[str, int], k: int = 100) -> float:
    wanted = {doc for doc, rel in relevant.items() if rel > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(ranked[:k])) / len(wanted)


def evaluate(runs: dict[str, list[str]], qrels: Qrels) -> dict[str, float]:
    """Mean nDCG@10 and recall@100 over the queries of ``qrels`` (missing run = empty)."""
    ids = sorted(qrels)
    if not ids:
        return {"ndcg@10": 0.0, "recall@100": 0.0, "queries": 0}
    ndcg = sum(ndcg_at_k(runs.get(q, []), qrels[q], 10) for q in ids) / len(ids)
    recall = sum(recall_at_k(runs.get(q, []), qrels[q], 100) for q in ids) / len(ids)
    return {"ndcg@10": ndcg, "recall@100": recall, "queries": len(ids)}


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolation percentile (numpy's default), without numpy."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * pct / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# -- time and memory -------------------------------------------------------------------------
@contextmanager
def timed() -> Iterator[dict[str, float]]:
    """``with timed() as t: ...`` then ``t["seconds"]``."""
    box: dict[str, float] = {}
    start = time.perf_counter()
    try:
        yield box
    finally:
        box["seconds"] = time.perf_counter() - start


class RssSampler:
    """Samples a process's RSS (plus its children's) in a thread and keeps the peak."""

    def __init__(self, pid: int | None = None, interval: float = 0.05) -> None:
        import psutil

        self.process = psutil.Process(pid or os.getpid())
        self.interval = interval
        self.peak = 0
        self.peak_private = 0  # RSS less file-backed pages (SQLite's mmap of the library)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _rss(self) -> int:
        import psutil

        total = 0
        try:
            total = self.process.memory_info().rss
            for child in self.process.children(recursive=True):
                with suppress(psutil.Error):
                    total += child.memory_info().rss
        except psutil.Error:
            pass
        return total

    def _private(self) -> int:
        import psutil

        try:
            info = self.process.memory_info()
            return int(info.rss - getattr(info, "shared", 0))
        except psutil.Error:
            return 0

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss())
            self.peak_private = max(self.peak_private, self._private())
            self.samples += 1
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def mib(n_bytes: float) -> float:
    return n_bytes / (1024 * 1024)


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """A Markdown table on stdout (pasteable into docs/benchmarks.md)."""

    def cell(value: Any) -> str:
        return f"{value:.4f}" if isinstance(value, float) else str(value)

    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join("---" for _ in headers) + "|")
    for row in rows:
        print("| " + " | ".join(cell(v) for v in row) + " |")


# -- generated documents ---------------------------------------------------------------------
WORDS = (
    "cell protein gene expression tumour immune response receptor signalling pathway mouse "
    "human patients cohort trial dose treatment risk mortality infection virus bacteria "
    "antibody binding structure membrane transport metabolism glucose insulin liver kidney "
    "brain neuron synapse memory cortex development stem differentiation tissue repair "
    "inflammation cytokine macrophage lymphocyte activation inhibition mutation variant "
    "sequence genome transcription chromatin methylation regulation enzyme kinase "
    "phosphorylation model analysis data sample measurement increase decrease significant "
    "association effect mechanism function level rate population study result method "
    "evidence control group baseline outcome follow years months weeks early late high low "
    "temperature pressure energy network graph learning training attention transformer "
    "optimisation gradient loss estimate variance distribution probability sampling signal "
    "noise image resolution spectrum frequency material surface particle crystal layer"
).split()


def sentence(rng: Any, words: int = 14) -> str:
    picked = [rng.choice(WORDS) for _ in range(words)]
    return " ".join(picked).capitalize() + "."


def paragraph(rng: Any, sentences: int = 6) -> str:
    return " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(sentences))


def write_text_pdf(path: Path, title: str, pages: int, rng: Any) -> None:
    """A born-digital paper: a title, then pages of headed paragraphs (~400 words a page)."""
    import pymupdf

    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page(width=595, height=842)
        y = 60.0
        if number == 0:
            page.insert_textbox(
                pymupdf.Rect(60, y, 535, y + 50), title, fontsize=16, fontname="hebo"
            )
            y += 60
        for section in range(2):
            page.insert_text(
                (60, y), f"{number + 1}.{section + 1} Section", fontsize=12, fontname="hebo"
            )
            y += 16
            page.insert_textbox(pymupdf.Rect(60, y, 535, y + 320), paragraph(rng, 9), fontsize=10)
            y += 330
    doc.set_metadata({"title": title, "author": "Bench Author"})
    doc.save(path)
    doc.close()


def write_scanned_pdf(path: Path, title: str, pages: int, rng: Any, dpi: int = 200) -> None:
    """Image-only pages, as a scanner makes them: text rendered to a grey bitmap."""
    import pymupdf

    source = pymupdf.open()
    for number in range(pages):
        page = source.new_page(width=595, height=842)
        if number == 0:
            page.insert_textbox(pymupdf.Rect(60, 60, 535, 110), title, fontsize=16, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(60, 130, 535, 780), paragraph(rng, 12), fontsize=11)
    scanned = pymupdf.open()
    for page in source:
        pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        target = scanned.new_page(width=595, height=842)
        target.insert_image(target.rect, pixmap=pixmap)
    source.close()
    scanned.save(path)
    scanned.close()


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """``count`` processes spinning on a core beside the timed code: a machine "loaded by
    another job", as the search-speed issues ask figures for."""
    import subprocess

    loops = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for process in loops:
            process.kill()
            process.wait()
