"""``prioris demo``: the main job end to end on data Prioris makes itself.

Writes a few PDFs (one of them image-only, as a scanner would produce), ingests them with
OCR into a fresh library, and runs one search in each mode, so a new user sees the whole
pipeline work offline in under a minute.
"""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path
from typing import Any

import pymupdf

DEMO_PAPERS: list[dict[str, Any]] = [
    {
        "file": "crispr_screens.pdf",
        "title": "Genome-wide CRISPR screens identify regulators of T cell exhaustion",
        "author": "Ana Lima; Wei Zhang",
        "sections": [
            (
                "Abstract",
                "Chronic antigen exposure drives T cell exhaustion. We ran genome-wide "
                "CRISPR knockout screens in primary human T cells and found that loss of the "
                "transcription factor TOX restores cytokine production and tumour killing.",
            ),
            (
                "Methods",
                "Guide RNA libraries were delivered by lentivirus. Cells were stimulated "
                "repeatedly with anti-CD3 antibodies to model chronic stimulation, and guide "
                "abundance was measured by sequencing after sorting on PD-1 expression.",
            ),
        ],
    },
    {
        "file": "sparse_attention.pdf",
        "title": "Sparse attention for long document transformers",
        "author": "Maria Rossi",
        "sections": [
            (
                "Abstract",
                "Self-attention scales quadratically with sequence length. We combine "
                "sliding-window attention with a few global tokens so transformers read documents "
                "of 16,000 tokens on a single GPU while matching dense attention on summarisation.",
            ),
            (
                "Results",
                "On long-document question answering the sparse model improves F1 by "
                "three points and halves memory use compared with a dense baseline.",
            ),
        ],
    },
    {
        "file": "scanned_coral_bleaching.pdf",
        "scanned": True,
        "title": "Coral bleaching after marine heatwaves",
        "author": "J. Okafor",
        "sections": [
            (
                "Summary",
                "Marine heatwaves in 2016 and 2017 bleached most reefs of the northern "
                "Great Barrier Reef. Coral cover fell by half where water temperature stayed above "
                "the bleaching threshold for more than eight degree heating weeks.",
            ),
        ],
    },
]

QUERIES = [
    ("fts", "CRISPR knockout screen exhaustion"),
    ("vector", "how do reefs respond to ocean warming"),
    ("hybrid", "efficient attention for very long inputs"),
]


def _text_page(doc: Any, paper: dict[str, Any]) -> None:
    page = doc.new_page(width=595, height=842)
    y = 72.0
    page.insert_textbox(
        pymupdf.Rect(72, y, 523, y + 60), paper["title"], fontsize=18, fontname="hebo"
    )
    y += 66
    page.insert_text((72, y), paper["author"].replace(";", ","), fontsize=11)
    y += 30
    for heading, body in paper["sections"]:
        page.insert_text((72, y), heading, fontsize=14, fontname="hebo")
        y += 20
        rect = pymupdf.Rect(72, y, 523, y + 160)
        page.insert_textbox(rect, body, fontsize=11)
        y += 170


def write_demo_pdfs(folder: Path) -> list[Path]:
    """Write the demo papers; the scanned one holds only a picture of its text."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for paper in DEMO_PAPERS:
        doc = pymupdf.open()
        _text_page(doc, paper)
        doc.set_metadata({"title": paper["title"], "author": paper["author"]})
        if paper.get("scanned"):
            pixmap = doc[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
            scanned = pymupdf.open()
            page = scanned.new_page(width=595, height=842)
            page.insert_image(page.rect, pixmap=pixmap)
            doc.close()
            doc = scanned
        path = folder / paper["file"]
        doc.save(path)
        doc.close()
        paths.append(path)
    return paths


def run_demo(ctx: Any, *, keep: Path | None = None) -> int:
    """Generate, ingest with OCR, search in each mode; prints what happens.

    Hits are printed by the renderer ``prioris search`` uses, so what the demo shows is
    what the real command prints."""
    from prioris.interfaces.cli.render import plural, render_hits, search_summary
    from prioris.library import Library

    with tempfile.TemporaryDirectory(prefix="prioris-demo-") as tmp:
        base = keep.expanduser().resolve() if keep else Path(tmp)
        pdfs = write_demo_pdfs(base / "pdfs")
        settings = ctx.settings.with_overrides(
            data_dir=base, db_path=base / "library.sqlite", db_url=None
        )
        ctx.print_line(f"Demo library: {settings.db_path}")
        ctx.print_line(f"Wrote {len(pdfs)} PDFs to {base / 'pdfs'} (one is image-only)\n")
        with Library.open(settings) as library:
            summary = library.ingest_paths([base / "pdfs"])
            for result in summary.ingested + summary.skipped:
                ctx.print_line(
                    f"  ingested {Path(result.path or '').name}: {plural(result.pages, 'page')} "
                    f"({result.ocr_pages} by OCR), {plural(result.chunks, 'chunk')} -> {result.id}"
                )
            for failure in summary.failed:
                ctx.print_line(f"  failed {failure['path']}: {failure['error']}")
            for mode, query in QUERIES:
                response = library.search(query, mode=mode, k=2)
                ctx.print_line(f"\n$ prioris search {shlex.quote(query)} --mode {mode} -k 2")
                paginated = library.paginated_works([hit.id for hit in response.hits])
                for line in render_hits(response.hits, paginated):
                    ctx.print_line(line)
                ctx.print_line(search_summary(len(response.hits), response.took_ms, mode))
            status = library.status()
        ctx.print_line(
            f"\n{plural(status['works'], 'work')}, {plural(status['chunks'], 'chunk')}, "
            f"{plural(status['ocr_pages'], 'OCR page')}, model {status['model']}"
        )
        if keep:
            ctx.print_line(
                f"\nThe demo library is kept in {base}; search it with\n"
                f"  prioris search 'coral reefs' --data-dir {shlex.quote(str(base))}"
            )
        else:
            ctx.print_line(
                "\nThe demo library was temporary and is now deleted. To keep it and search it "
                "yourself:\n  prioris demo --keep DIR   then   prioris search 'coral reefs' "
                "--data-dir DIR"
            )
    return 1 if summary.failed else 0
