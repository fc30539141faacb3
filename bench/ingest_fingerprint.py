"""What an ingest stores, as one JSON document: to show that a change of code layout
changes nothing a user gets from the same papers.

Ingests the PDFs of a folder (default: ``../shared/fixtures/pdfmeta/pdfs``) into a new
library with enrichment off and the real model, then prints each work's fields (title,
authors, year, identifiers, venue, abstract) and a SHA-256 of every stored passage (its
text, pages, character span and heading) and of its vector's bytes rounded to 1e-6::

    .venv/bin/python bench/ingest_fingerprint.py --out /tmp/after.json
    PYTHONPATH=../old/src .venv/bin/python bench/ingest_fingerprint.py --out /tmp/before.json
    diff /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

FIELDS = ("title", "authors", "year", "doi", "arxiv_id", "pmid", "pmcid", "venue", "abstract")


def _passage_digest(row: Any, vector: bytes | None) -> str:
    text, page_start, page_end, char_start, char_end, heading = row
    digest = hashlib.sha256()
    digest.update(json.dumps([text, page_start, page_end, char_start, char_end, heading]).encode())
    if vector is not None:
        floats = struct.unpack(f"{len(vector) // 4}f", vector)
        digest.update(json.dumps([round(x, 6) for x in floats]).encode())
    return digest.hexdigest()[:16]


def fingerprint(folder: Path, data_dir: Path) -> dict[str, Any]:
    from prioris import Library

    with Library.open(data_dir=str(data_dir), enrich="off") as library:
        pdfs = sorted(folder.glob("*.pdf"))
        library.ingest_paths(pdfs)
        return {"pdfs": len(pdfs), "works": library_fingerprint(library)}


def library_fingerprint(library: Any) -> dict[str, Any]:
    """Each work of an open library: its fields and a digest of each passage and vector
    (also what bench_dask_ingest.py compares between a plain and a cluster ingest)."""
    conn = library.conn
    text_sql = conn.dialect.text_sql("c.text")
    works = {}
    for work in sorted(library.list_works(), key=lambda w: w["id"]):
        fields = {name: work.get(name) for name in FIELDS}
        rows = conn.execute(
            f"SELECT c.id, {text_sql}, c.page_start, c.page_end, c.char_start, c.char_end,"
            " c.heading FROM chunks c WHERE c.work_id = ? ORDER BY c.ordinal",
            (work["id"],),
        ).fetchall()
        passages = []
        for chunk_id, *row in rows:
            found = conn.execute(
                "SELECT embedding FROM chunks_vec WHERE chunk_id = ?", (chunk_id,)
            ).fetchone()
            passages.append(_passage_digest(row, found[0] if found else None))
        works[work["id"]] = {**fields, "passages": passages}
    return works


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=common.SHARED / "fixtures/pdfmeta/pdfs")
    parser.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"skipped: {args.folder} is missing (the shared fixtures)", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        found = fingerprint(args.folder, Path(tmp))
    text = json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
