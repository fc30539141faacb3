"""Page fidelity of evidence on real papers: every sentence is printed on the page it names.

The PDFs of ``../shared/fixtures/pdfmeta/pdfs`` and ``../shared/fixtures/pdfs/good`` are
ingested into a temporary library with the default model. For each paper, claims are
asked whose answer it holds: its title, and sentences picked at random
(``random.Random(36)``) from its stored text, each asked across the library and within
the paper (``ids``). Every sentence returned must appear on the page it names in
PyMuPDF's text of that page (``page`` to ``page_end`` for one that runs over a page
break), compared without case, spacing or punctuation (NFKC); none may come from back
matter (references, acknowledgements, funding, author information).

    .venv/bin/python bench/bench_evidence_pages.py
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

BACK_MATTER = {"references", "acknowledgements", "funding", "author_info"}
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalised(text: str) -> str:
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text)).casefold()


def folders() -> list[Path]:
    found = [
        common.SHARED / "fixtures" / "pdfmeta" / "pdfs",
        common.SHARED / "fixtures" / "pdfs" / "good",
    ]
    if not all(f.is_dir() for f in found):
        print("SKIPPED: the fixture PDFs (../shared/fixtures) are not beside this clone")
        raise SystemExit(0)
    return found


def claims_for(library: Any, work: Any, rng: random.Random, per_paper: int) -> list[str]:
    """The title and a few sentences of the paper's own text."""
    from prioris.search.evidence.sentences import quotable_sentences

    text = library.show(work.id)["markdown"]
    sentences = [s.text for s in quotable_sentences(text) if 8 <= len(s.text.split()) <= 40]
    picked = rng.sample(sentences, min(per_paper, len(sentences)))
    return ([work.title] if work.title else []) + [" ".join(s.split()) for s in picked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-paper", type=int, default=3, help="sentences asked per paper")
    parser.add_argument("-k", type=int, default=5)
    args = parser.parse_args()
    import pymupdf

    pdfs = sorted(p for folder in folders() for p in folder.glob("*.pdf"))
    rng = random.Random(36)
    with tempfile.TemporaryDirectory() as tmp, common.open_library(Path(tmp)) as library:
        report = library.ingest_paths(pdfs)
        print(f"ingested {len(report.ingested)} of {len(pdfs)} PDFs", file=sys.stderr)
        checked = on_page = back = spanning = asked = 0
        misses: list[str] = []
        printed_pages: dict[str, list[str]] = {}

        def pages_of(work_id: str) -> list[str]:
            """PyMuPDF's text of each page of the work's stored PDF (read once)."""
            if work_id not in printed_pages:
                documents = library.original(work_id)[1]
                pdf = next((d for d in documents if d["format"] == "pdf"), None)
                printed_pages[work_id] = []
                if pdf is not None:
                    data = library.document_bytes(pdf["sha256"])
                    with pymupdf.open(stream=data) as doc:
                        printed_pages[work_id] = [normalised(page.get_text()) for page in doc]
            return printed_pages[work_id]

        for listed in library.list_works():
            work = library.get_work(listed["id"])
            if not pages_of(work.id):
                continue
            for claim in claims_for(library, work, rng, args.per_paper):
                for scope in (None, [work.id]):
                    asked += 1
                    items = library.evidence(claim, k=args.k, ids=scope)["evidence"]
                    for item in items:
                        if item["page"] is None:
                            continue
                        checked += 1
                        back += item["section"] in BACK_MATTER
                        last = item["page_end"] or item["page"]
                        spanning += last != item["page"]
                        printed = "".join(pages_of(item["work_id"])[item["page"] - 1 : last])
                        if normalised(item["sentence"]) in printed:
                            on_page += 1
                        else:
                            where = f"{item['work_id']} p.{item['page']}"
                            misses.append(f"{where}: {item['sentence'][:90]!r}")
    print(f"papers {len(pdfs)}, claims asked {asked}, sentences checked {checked}")
    print(f"on the page they name: {on_page}/{checked} = {on_page / max(checked, 1):.3f}")
    print(f"running over a page break (page..page_end checked): {spanning}")
    print(f"back matter returned: {back}")
    for miss in misses[:20]:
        print("  miss:", miss)


if __name__ == "__main__":
    main()
