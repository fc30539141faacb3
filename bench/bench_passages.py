"""Passages that answer: how often a search shows boilerplate for the right paper.

Ingests the real full papers of ``../shared/fixtures/pdfmeta/pdfs`` and
``../shared/fixtures/pdfs/good`` into a temp library with the default model (the packaged
int8 MiniLM), runs the development questions of ``bench/passage_questions.json`` (two per
paper: one in the words of its title, one about its content) in fts, vector and hybrid
modes, and reports for each mode:

- how often the right paper is the first hit;
- the share of the passages shown with the first three hits (work results, one passage
  per work) that are back matter (references, acknowledgements, funding, author
  information), judged twice: by the section label (``hit.section`` where the code under
  test has it, else this checkout's labeller applied to the stored heading and text) and
  by a text check written independently of the labeller (reference-list lines, "we
  thank", "funded by", "competing interests", ...);
- the same for the first three passages of a ``--chunks`` search;
- how many first hits show back matter.

``--src DIR`` measures another checkout's ``src`` (the "before" figures came from the main
checkout: ``--src ../main/src``). ``--chunk-title drop`` embeds chunks without the work's
title in front (their work vector keeps it), to decide whether long works still need it.
Prints Markdown; ``--json FILE`` also writes the per-question hits.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PRIORIS_TEST_SHARED") or REPO.parent / "shared") / "fixtures"
FOLDERS = (SHARED / "pdfmeta" / "pdfs", SHARED / "pdfs" / "good")
QUESTIONS = Path(__file__).resolve().parent / "passage_questions.json"
MODES = ("fts", "vector", "hybrid")
TOP = 3

# -- the text check: independent of prioris.ingest.sections ---------------------------------
_ACK = re.compile(
    r"acknowledg|\bwe (?:would like to |wish to )?thank\b|grateful to|indebted to", re.I
)
_FUNDING = re.compile(
    r"\bfunded by\b|\bfunding\b|\bunder grants?\b|\bgrants? (?:no|number|agreement)\b|"
    r"\b(?:was|is|were) (?:partially |partly )?supported (?:in part )?by\b",
    re.I,
)
_AUTHOR_INFO = re.compile(
    r"competing interests?|conflicts? of interests?|author(?:s['\u2019])? contributions?|"
    r"data availability|corresponding author",
    re.I,
)
# a bibliography entry's author ("Smith, J.", "J. Smith,", "Smith J,") or "[12]" at a line
# start; "et al." is left out, since related-work prose cites that way too
_CITATION = re.compile(
    r"\b[A-Z][a-z\u00e0-\u017f]+,\s(?:[A-Z]\.\s?){1,3}|(?:\b[A-Z]\.\s?){1,3}[A-Z][a-z]+,|"
    r"^\s*\[[\w+]{1,8}\]|\b[A-Z][a-z]+ [A-Z]{1,2}[,.]",
    re.M,
)
_YEAR = re.compile(r"\b(?:19|20)\d\d[a-z]?\b")


def text_kind(text: str) -> str | None:
    """The kind of boilerplate a passage reads as, or None: judged from its text alone."""
    words = max(len(text.split()), 1)
    citations = len(_CITATION.findall(text)) * 100 / words
    years = len(_YEAR.findall(text)) * 100 / words
    if citations >= 3 and years >= 2:
        return "references"
    if _ACK.search(text):
        return "acknowledgements"
    if _FUNDING.search(text):
        return "funding"
    if _AUTHOR_INFO.search(text):
        return "author_info"
    return None


BACK_MATTER = {"references", "acknowledgements", "funding", "author_info"}


def load_labeller() -> Any:
    """This checkout's labeller, loaded from its file (it imports nothing from prioris),
    so passages of an older checkout are labelled the same way."""
    path = REPO / "src" / "prioris" / "ingest" / "sections.py"
    spec = importlib.util.spec_from_file_location("bench_sections", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drop_chunk_titles() -> None:
    """Embed chunks without the work's title; the work's own text keeps it."""
    from prioris.ingest import embed

    original_text, original_work = embed.embedding_text, embed.work_text
    local = threading.local()

    def embedding_text(title: str, text: str) -> str:
        return original_text(title if getattr(local, "work", False) else "", text)

    def work_text(title: str, abstract: str | None, markdown: str | None) -> str:
        local.work = True
        try:
            return original_work(title, abstract, markdown)
        finally:
            local.work = False

    embed.embedding_text, embed.work_text = embedding_text, work_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="another checkout's src/ to measure instead")
    parser.add_argument("--chunk-title", choices=("keep", "drop"), default="keep")
    parser.add_argument("--json", type=Path, help="write the per-question hits here")
    args = parser.parse_args()
    missing = [folder for folder in FOLDERS if not folder.is_dir()]
    if missing:
        print(f"SKIPPED: {missing[0]} not found (the real papers live in ../shared)")
        return
    sys.path.insert(0, str((args.src or REPO / "src").resolve()))
    import prioris
    from prioris.config import load_settings
    from prioris.library import Library

    print(f"prioris from {Path(prioris.__file__).parent}; chunk title: {args.chunk_title}")
    if args.chunk_title == "drop":
        drop_chunk_titles()
    labeller = load_labeller()
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    paths = sorted(p for folder in FOLDERS for p in folder.glob("*.pdf"))
    with tempfile.TemporaryDirectory(prefix="bench-passages-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PRIORIS_MCP_DB"}
        env["PRIORIS_MCP_DATA_DIR"] = tmp
        library = Library.open(load_settings(env))
        ids: dict[str, str] = {}

        def done(path: Any, result: Any, error: Any) -> None:
            if result is not None:
                ids.setdefault(Path(path).name, result.id)

        started = time.perf_counter()
        summary = library.ingest_paths(paths, on_file_done=done)
        seconds = time.perf_counter() - started
        chunks = library.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        print(
            f"ingested {len(ids)} files ({len(summary.failed)} failed), {chunks} chunks, "
            f"in {seconds:.0f} s"
        )
        rows: list[dict[str, Any]] = []
        for chunks_mode in (False, True):
            for mode in MODES:
                for question in questions:
                    expected = ids.get(question["file"])
                    response = library.search(
                        question["query"], mode=mode, k=10, chunks=chunks_mode
                    )
                    shown = []
                    for rank, hit in enumerate(response.hits[:TOP], start=1):
                        heading, text = library.conn.execute(
                            "SELECT heading, text FROM chunks WHERE id = ?", (hit.chunk_id,)
                        ).fetchone()
                        own = getattr(hit, "section", None)
                        label = own or labeller.chunk_label(
                            labeller.run_in_label(text) or labeller.label_for_path(heading), text
                        )
                        shown.append(
                            {
                                "rank": rank,
                                "id": hit.id,
                                "right": hit.id == expected,
                                "section": label,
                                "labelled_by": "hit" if own else "bench",
                                "text_kind": text_kind(text),
                                "heading": heading,
                                "text": text,
                            }
                        )
                    rows.append(
                        {
                            "mode": mode,
                            "chunks": chunks_mode,
                            "kind": question["kind"],
                            "query": question["query"],
                            "expected": expected,
                            "first_right": bool(response.hits) and response.hits[0].id == expected,
                            "shown": shown,
                        }
                    )
        library.close()
    report(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


def report(rows: list[dict[str, Any]]) -> None:
    print()
    print(
        "| results | mode | questions | right paper first | top-3 passages | back matter "
        "(label) | back matter (text check) | first hits showing back matter (label / text) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for chunks_mode in (False, True):
        for mode in MODES:
            group = [r for r in rows if r["mode"] == mode and r["chunks"] == chunks_mode]
            shown = [s for r in group for s in r["shown"]]
            by_label = sum(1 for s in shown if s["section"] in BACK_MATTER)
            by_text = sum(1 for s in shown if s["text_kind"] is not None)
            firsts = [r["shown"][0] for r in group if r["shown"]]
            first_label = sum(1 for s in firsts if s["section"] in BACK_MATTER)
            first_text = sum(1 for s in firsts if s["text_kind"] is not None)
            right = sum(1 for r in group if r["first_right"])
            label_share, text_share = _pct(by_label, len(shown)), _pct(by_text, len(shown))
            print(
                f"| {'passages' if chunks_mode else 'works'} | {mode} | {len(group)} | "
                f"{right}/{len(group)} | {len(shown)} | {by_label} ({label_share}) | "
                f"{by_text} ({text_share}) | {first_label} / {first_text} |"
            )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


if __name__ == "__main__":
    main()
