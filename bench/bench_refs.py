"""Reading reference files: a generated N-entry .bib and .ris, timed (issue 22).

The entries look like a researcher's export: LaTeX accents in names and titles, braces
protecting capitals, ``--`` page ranges, months as macros, keywords, an abstract with a
``\\textendash``, DOIs, one in five an arXiv eprint, and a ``file`` field in one of the
Zotero, JabRef, Mendeley and Better BibTeX forms (half of the files present on disk, the
others absolute paths of another machine, re-rooted or reported missing). The RIS file
holds the same entries (authors, dates, pages, ``L1`` links). Each file is read
``--repeat`` times (the best and the median wall time are printed, and the best CPU time,
which a machine shared with other jobs disturbs less), in this process, after one warm-up
read; nothing is stored.

    .venv/bin/python bench/bench_refs.py                # 5,000 entries
    .venv/bin/python bench/bench_refs.py -n 20000 --repeat 3

Needs nothing from ../shared; writes only into a temp dir.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:  # a clean clone run without an editable install
    sys.path.insert(0, str(REPO / "src"))

from prioris.refman.bibtex import read_bibtex  # noqa: E402
from prioris.refman.ris import read_ris  # noqa: E402

SURNAMES = ['M{\\"u}ller', "Garc{\\'\\i}a", "Smith", "van der Berg", "Nakamura", "O'Neil"]
GIVEN = ['J{\\"o}rg', "Jos{\\'e}", "Anna", "Jan", "Yuki", "Siobh{\\'a}n"]
PLAIN = {"M{\\\"u}ller": "Müller", "Garc{\\'\\i}a": "García", "J{\\\"o}rg": "Jörg",
         "Jos{\\'e}": "José", "Siobh{\\'a}n": "Siobhán"}  # fmt: skip
WORDS = "deep learning protein structure attention graph neural retrieval model".split()
MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()


def _plain(text: str) -> str:
    return PLAIN.get(text, text)


def generate(folder: Path, n: int, seed: int = 7) -> tuple[Path, Path]:
    """``refs.bib`` and ``refs.ris`` of ``n`` entries in ``folder`` (files half present)."""
    rng = random.Random(seed)
    bib: list[str] = []
    ris: list[str] = []
    for i in range(n):
        authors = [(rng.choice(SURNAMES), rng.choice(GIVEN)) for _ in range(rng.randint(1, 6))]
        title = " ".join(rng.choices(WORDS, k=rng.randint(4, 10))).capitalize()
        year = rng.randint(1990, 2025)
        start = rng.randint(1, 900)
        name = f"{i:05d}.pdf"
        present = i % 2 == 0
        if present:
            target = folder / "files" / str(i) / name
            target.parent.mkdir(parents=True)
            target.write_bytes(b"%PDF-1.4\n%%EOF\n")
        form = i % 4
        if form == 0:
            link = f"Full Text PDF:files/{i}/{name}:application/pdf"
        elif form == 1:
            link = f":files/{i}/{name}:PDF"
        elif form == 2:
            link = f":{str(folder)[1:]}/files/{i}/{name}:pdf"
        else:
            link = f"/Users/someone/Zotero/files/{i}/{name}"
        eprint = (
            f"  eprint = {{{rng.randint(1501, 2412)}.{rng.randint(10000, 99999)}}},\n"
            "  archivePrefix = {arXiv},\n"
            if i % 5 == 0
            else ""
        )
        bib.append(
            f"@article{{key{i},\n"
            f"  title = {{{{{title.split()[0]}}} {' '.join(title.split()[1:])}}},\n"
            f"  author = {{{' and '.join(f'{s}, {g}' for s, g in authors)}}},\n"
            f"  journal = {{Journal of {{{rng.choice(WORDS).capitalize()}}} Studies}},\n"
            f"  year = {{{year}}},\n  month = {rng.choice(MONTHS)},\n"
            f"  volume = {{{rng.randint(1, 99)}}},\n  number = {{{rng.randint(1, 12)}}},\n"
            f"  pages = {{{start}--{start + rng.randint(5, 30)}}},\n"
            f"  doi = {{10.{rng.randint(1000, 9999)}/x{i}}},\n{eprint}"
            f"  keywords = {{{', '.join(rng.sample(WORDS, 3))}}},\n"
            f"  abstract = {{{' '.join(rng.choices(WORDS, k=120))} long\\textendash term.}},\n"
            f"  file = {{{link}}}\n}}\n\n"
        )
        ris.append(
            "TY  - JOUR\n"
            f"ID  - key{i}\nTI  - {title}\n"
            + "".join(f"AU  - {_plain(s)}, {_plain(g)}\n" for s, g in authors)
            + f"T2  - Journal of Studies\nPY  - {year}\nDA  - {year}/0{rng.randint(1, 9)}/\n"
            f"SP  - {start}\nEP  - {start + 9}\nDO  - 10.1234/x{i}\n"
            + "".join(f"KW  - {w}\n" for w in rng.sample(WORDS, 3))
            + f"AB  - {' '.join(rng.choices(WORDS, k=120))}\n"
            f"L1  - files/{i}/{name}\nER  - \n\n"
        )
    bib_path, ris_path = folder / "refs.bib", folder / "refs.ris"
    bib_path.write_text("".join(bib), encoding="utf-8")
    ris_path.write_text("".join(ris), encoding="utf-8")
    return bib_path, ris_path


def _time(label: str, read: object, path: Path, repeat: int, n: int) -> None:
    items, errors = read(path)  # type: ignore[operator]  # warm-up (imports, caches)
    found = sum(a.path is not None for i in items for a in i.attachments)
    times, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        read(path)  # type: ignore[operator]
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    size = path.stat().st_size / 1e6
    print(
        f"{label}: {len(items)} items, {len(errors)} errors, {found} files found, "
        f"{size:.1f} MB; wall best {min(times):.2f} s, median {statistics.median(times):.2f} s "
        f"({1e3 * min(times) / n:.2f} ms an entry); CPU best {min(cpu):.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=5000, help="entries (default 5000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed reads (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-refs-") as tmp:
        bib, ris = generate(Path(tmp), args.n)
        _time("BibTeX", read_bibtex, bib, args.repeat, args.n)
        _time("RIS", read_ris, ris, args.repeat, args.n)


if __name__ == "__main__":
    main()
