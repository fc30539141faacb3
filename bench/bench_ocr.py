"""OCR throughput: pages/s of ``extract_pdf`` with the real tesseract on scanned pages.

Parses the scanned fixture PDFs (``../shared/fixtures/pdfs/scanned``, skipped when absent)
and a generated image-only PDF (``--pages`` pages of text rendered at 200 dpi) in OCR mode
``always``, with the default number of OCR workers, and prints pages/s for each. Every
file is parsed ``--repeat`` times; the best run counts (the machine is shared).

``--src DIR`` puts another checkout's ``src`` first on the path, to compare with an older
version of the code on the same machine and inputs (how the before/after figures of
docs/benchmarks.md were made).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PRIORIS_TEST_SHARED") or REPO.parent / "shared")
SCANNED = SHARED / "fixtures" / "pdfs" / "scanned"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="another checkout's src/ to measure instead")
    parser.add_argument("--pages", type=int, default=8, help="pages of the generated PDF")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str((args.src or REPO / "src").resolve()))
    import prioris
    from prioris.ingest.ocr import TesseractOcr
    from prioris.ingest.pdf.reader import extract_pdf

    print(f"prioris from {Path(prioris.__file__).parent}")
    sys.path.insert(1, str(Path(__file__).resolve().parent))
    import common  # after prioris: it would put this checkout's src first

    files: list[tuple[str, bytes]] = []
    if SCANNED.is_dir():
        files += [(path.name, path.read_bytes()) for path in sorted(SCANNED.glob("*.pdf"))]
    else:
        print(f"SKIPPED the fixtures: {SCANNED} not found")
    with tempfile.TemporaryDirectory() as tmp:
        generated = Path(tmp) / "generated.pdf"
        common.write_scanned_pdf(generated, "A scanned report", args.pages, random.Random(7))
        files.append((f"generated, {args.pages} pages at 200 dpi", generated.read_bytes()))
    engine = TesseractOcr("eng")
    engine.check_available()
    print("| PDF | pages | best seconds | pages/s |")
    print("|---|---|---|---|")
    total_pages = total_seconds = 0.0
    for name, data in files:
        best = float("inf")
        pages = 0
        for _ in range(args.repeat):
            started = time.monotonic()
            content = extract_pdf(data, ocr=engine, ocr_mode="always")
            best = min(best, time.monotonic() - started)
            pages = len(content.pages)
        total_pages += pages
        total_seconds += best
        print(f"| {name} | {pages} | {best:.2f} | {pages / best:.2f} |")
    print(f"| all | {total_pages:.0f} | {total_seconds:.2f} | {total_pages / total_seconds:.2f} |")


if __name__ == "__main__":
    main()
