"""Where PDF abstracts stop: how many abstracts read from real first pages run on past the
abstract, and what :func:`prioris.abstracts.trim_abstract` cuts off.

Runs every PDF of ``../shared/fixtures/pdfmeta/pdfs`` and ``../shared/fixtures/pdfs/good``
through the ingest parser (OCR off: only the text layer is read) and prints, per paper,
the abstract's length before and after trimming and the first words cut. ``-v`` prints
the whole tail that was cut.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from prioris.abstracts import trim_abstract
from prioris.errors import PriorisError
from prioris.ingest.pdf.reader import extract_pdf

FOLDERS = [
    common.SHARED / "fixtures" / "pdfmeta" / "pdfs",
    common.SHARED / "fixtures" / "pdfs" / "good",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every cut tail")
    args = parser.parse_args()
    files = [p for folder in FOLDERS if folder.is_dir() for p in sorted(folder.glob("*.pdf"))]
    if not files:
        print(f"no PDFs under {', '.join(map(str, FOLDERS))}")
        return 1
    found = trimmed = 0
    for path in files:
        try:
            content = extract_pdf(path.read_bytes(), ocr_mode="never")
        except PriorisError as exc:
            print(f"{path.name:40s} not read: {exc.code}")
            continue
        abstract = content.metadata.abstract
        if not abstract:
            print(f"{path.name:40s} no abstract found")
            continue
        found += 1
        kept = trim_abstract(abstract) or ""
        cut = abstract[len(kept) :].strip()
        if cut:
            trimmed += 1
        print(f"{path.name:40s} {len(abstract):5d} -> {len(kept):5d} chars  {cut[:60]!r}")
        if args.verbose and cut:
            print(f"    cut: {cut}")
    print(f"\n{len(files)} PDFs, {found} with an abstract, {trimmed} trimmed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
