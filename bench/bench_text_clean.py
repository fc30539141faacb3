"""Text defects in stored passages of real papers: control characters, TeX spacing accents
left as printed, ligatures and hyphenation broken at line ends.

Ingests the real fixture PDFs of ``../shared/fixtures`` (``pdfmeta/pdfs``, ``pdfs/good``
and the PDFs in the BibTeX and Zotero fixtures' ``storage/`` folders) into a temporary
library (fake embedder, no OCR, no provider) and counts, over every stored passage
(chunk), page and the works' Markdown:

* **control**: a C0 control character other than ``\\t``/``\\n``, DEL or a C1 control;
* **accent**: a TeX spacing accent touching a letter (``O˘guz``, ``Franc¸ois``) or
  with a space inside a word (``Gy¨ ongyi``), a combining mark before its letter, or the
  cedilla the earlier cleaner put on the vowel after the c (``Franco̧is``); an accent
  between spaces is not counted (some fonts map other glyphs there: ``R ˆ R`` for
  ``R × R``);
* **ligature**: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ kept as one character;
* **hyphen**: a word broken at a line end and joined with a space (``retrie- val``):
  a lower-case word part, a hyphen, a space and a lower-case word part, where the two
  parts joined make a word the paper uses elsewhere and the hyphenated form does not
  occur unbroken (so ``pre- and post-processing`` and real compounds are not counted);
  **loose hyphen splits** counts every ``word- word`` but ``pre- and``;
* **joined compounds**: a lower-case word the paper also prints with a hyphen
  (``largescale`` where ``large-scale`` occurs): a compound whose hyphen fell at a line
  end and was removed (an upper bound: a paper may print both spellings).

It only reads the library through SQL, so it measures any checkout: run it with
``--src`` pointing at another checkout's ``src`` for the figures before a change
(docs/benchmarks.md, section "Clean text").

    .venv/bin/python bench/bench_text_clean.py [--src OTHER/src] [-v]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PRIORIS_TEST_SHARED") or REPO.parent / "shared")
FIXTURES = SHARED / "fixtures"

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SPACING = (
    "\u00a8\u00b4\u02ca\u02c6\u02dc\u02c7\u02da\u02d8\u02d9\u02dd\u00af\u02c9\u02cb\u00b8\u02db"
)
# an accent touching its letter, or with a space inside a word (an accent between spaces
# is a glyph some fonts map wrongly, e.g. "R ˆ R" for "R × R": left as printed)
ACCENT = re.compile(
    f"[A-Za-z\u0131][{_SPACING}] ?[A-Za-z\u0131]|(?<![A-Za-z\u0131])[{_SPACING}][A-Za-z\u0131]"
    "|[A-Za-z] ?[\u00b8\u02db]|(?<![^\\W\\d_])[\u0300-\u0336\u0339-\u036f][A-Za-z]"
    "|[CcSsTt][AEIOUaeiou]\u0327"
)
LIGATURE = re.compile("[\ufb00-\ufb06]")
HYPHEN = re.compile(r"(?<![\w-])([a-z]{2,})- ([a-z]{2,})(?![\w-])")
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
_LOWER_COMPOUND = re.compile(r"(?<![\w-])[a-z]{2,}-[a-z]{2,}(?![\w-])")
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{4,}(?![\w-])")


def fixture_pdfs() -> list[Path]:
    """The real papers: pdfmeta, pdfs/good and the reference managers' stored PDFs."""
    found: list[Path] = []
    for pattern in (
        "pdfmeta/pdfs/*.pdf",
        "pdfs/good/*.pdf",
        "bibtex/*/storage/*/*.pdf",
        "zotero/*/storage/*/*.pdf",
    ):
        found += sorted(FIXTURES.glob(pattern))
    return found


def broken_hyphens(text: str, vocabulary: set[str]) -> list[str]:
    """``word- part`` splits whose joined form is a word of the paper (see the module)."""
    out = []
    for match in HYPHEN.finditer(text):
        left, right = match.groups()
        if right in ("and", "or", "to", "nor", "vs", "versus"):
            continue
        joined, hyphenated = left + right, f"{left}-{right}"
        if joined in vocabulary and hyphenated not in vocabulary:
            out.append(match.group(0))
    return out


def measure(conn: Any, verbose: bool) -> dict[str, Any]:
    """Counts over chunks (passages), pages (as stored spans) and Markdown, per defect."""
    works = conn.execute("SELECT id, markdown FROM works").fetchall()
    vocab: dict[str, set[str]] = {w: set(_WORD.findall((md or "").lower())) for w, md in works}
    chunks = conn.execute("SELECT work_id, text FROM chunks").fetchall()
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}

    def note(kind: str, sample: str) -> None:
        examples.setdefault(kind, [])
        if len(examples[kind]) < 25:
            examples[kind].append(sample)

    compounds = {  # lower-case compounds as printed (not "AutoScholar-Query" at a line end)
        w: {c.replace("-", ""): c for c in _LOWER_COMPOUND.findall(md or "")} for w, md in works
    }
    for work_id, text in chunks:
        counts["passages"] += 1
        joined = [
            compounds[work_id][w]
            for w in _LOWER_WORD.findall(text)
            if w in compounds.get(work_id, {})
        ]
        if joined:
            counts["joined compounds"] += len(joined)
            note("joined compound", ", ".join(joined[:3]))
        if CONTROL.search(text):
            counts["passages with control"] += 1
            m = CONTROL.search(text)
            assert m is not None
            note("control", repr(text[max(0, m.start() - 20) : m.end() + 20]))
        if ACCENT.search(text):
            counts["passages with accent"] += 1
            m = ACCENT.search(text)
            assert m is not None
            note("accent", text[max(0, m.start() - 15) : m.end() + 15])
        if LIGATURE.search(text):
            counts["passages with ligature"] += 1
        loose = [
            m.group(0)
            for m in HYPHEN.finditer(text)
            if m.group(2) not in ("and", "or", "to", "nor", "vs", "versus")
        ]
        counts["loose hyphen splits"] += len(loose)
        for sample in loose[:1]:
            note("loose hyphen", sample)
        broken = broken_hyphens(text, vocab.get(work_id, set()))
        if broken:
            counts["passages with hyphen"] += 1
            counts["hyphen splits"] += len(broken)
            for b in broken[:2]:
                note("hyphen", b)
    for _, markdown in works:
        markdown = markdown or ""
        counts["works"] += 1
        counts["markdown with control"] += bool(CONTROL.search(markdown))
        counts["markdown with accent"] += bool(ACCENT.search(markdown))
        for m in list(ACCENT.finditer(markdown))[:2]:
            note("markdown accent", repr(markdown[max(0, m.start() - 30) : m.end() + 30]))
        counts["control chars in markdown"] += len(CONTROL.findall(markdown))
        counts["accents in markdown"] += len(ACCENT.findall(markdown))
    counts["pages"] = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
    try:  # the cleaning's own cost, where the checkout has it
        from prioris.text_clean import clean_text
    except ImportError:
        return dict(counts)
    texts = [md or "" for _, md in works]
    started = time.process_time()  # CPU time: the machine may be busy with other work
    for text in texts:
        clean_text(text)
    counts["clean ms"] = round((time.process_time() - started) * 1000)
    counts["markdown chars"] = sum(len(t) for t in texts)
    if verbose:
        for kind, samples in examples.items():
            print(f"  {kind}:")
            for sample in samples:
                print(f"    {sample}")
    return dict(counts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", help="the src folder of the checkout to measure")
    parser.add_argument("-v", "--verbose", action="store_true", help="examples of each defect")
    args = parser.parse_args()
    if not FIXTURES.is_dir():
        print(f"{FIXTURES} is absent: nothing to measure")
        return 0
    src = Path(args.src).resolve() if args.src else REPO / "src"
    sys.path.insert(0, str(src))
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    pdfs = fixture_pdfs()
    with tempfile.TemporaryDirectory(prefix="bench-text-") as tmp:
        for name in list(os.environ):
            if name.startswith("PRIORIS_MCP_"):
                del os.environ[name]
        os.environ["PRIORIS_MCP_DATA_DIR"] = tmp
        os.environ["PRIORIS_MCP_ENRICH"] = "off"
        os.environ["PRIORIS_MCP_OCR"] = "never"
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        started = time.perf_counter()
        with Library.open(load_settings(), embedder=FakeEmbedder()) as lib:
            summary = lib.ingest_paths([str(p) for p in pdfs])
            took = time.perf_counter() - started
            ingested = len(summary.ingested)
            print(
                f"prioris from {src}: {len(pdfs)} fixture PDFs, {ingested} works ingested "
                f"({len(summary.skipped)} skipped as duplicates, {len(summary.failed)} failed) "
                f"in {took:.1f} s"
            )
            counts = measure(lib.conn, args.verbose)
    for key in (
        "works",
        "pages",
        "passages",
        "passages with control",
        "passages with accent",
        "passages with ligature",
        "passages with hyphen",
        "hyphen splits",
        "loose hyphen splits",
        "joined compounds",
        "markdown with control",
        "markdown with accent",
        "control chars in markdown",
        "accents in markdown",
    ):
        print(f"  {key:28s} {counts.get(key, 0)}")
    if "clean ms" in counts:
        print(
            f"  cleaning all Markdown again ({counts['markdown chars']:,} characters) took "
            f"{counts['clean ms']} ms of CPU"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
