"""Time and peak memory per case of the hostile-PDF corpus (tests/hostile_pdfs.py).

Each PDF is written by the corpus, then parsed in a fresh process that reports the
outcome, the parse time (a PDF parser process already waiting, as in a server or a batch)
and the peak resident memory of itself and of the parser process. Prints a Markdown table.

``--text-bomb`` measures only the one-page PDF of 3 million positioned text runs (7.5 MB,
each run at its own absolute position, as in the report that found it), cold: the parser
process start is included. With ``--src DIR`` that measurement runs another checkout's
code instead (how the "before" figure of docs/benchmarks.md was made; the old code parses
in-process, so its own peak memory is the figure).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import hostile_pdfs  # noqa: E402


def corpus(folder: Path) -> None:
    print("| case | file size | outcome | message | seconds | parent MB | parser MB |")
    print("|---|---|---|---|---|---|---|")
    for case in hostile_pdfs.CASES:
        result = hostile_pdfs.run_case(case, folder)
        message = result["message"][:90].replace("|", "/")
        print(
            f"| {case.name} | {result['size_bytes'] / 1e6:.2f} MB | {result['outcome']} | "
            f"{message} | {result['seconds']:.2f} | {result['parent_mb']:.0f} | "
            f"{result['parser_mb']:.0f} |",
            flush=True,
        )


def text_bomb(folder: Path, src: Path | None, time_limit: float) -> None:
    path = folder / "text-bomb-3M.pdf"
    path.write_bytes(hostile_pdfs.text_bomb(3_000_000, varied=True))
    limits = {"time_limit_seconds": time_limit}
    result = hostile_pdfs.measure_file(path, limits, src=src, cold=True)
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text-bomb", action="store_true")
    parser.add_argument("--src", type=Path, help="another checkout's src/ (with --text-bomb)")
    parser.add_argument("--time-limit", type=float, default=300.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.text_bomb:
            text_bomb(Path(tmp), args.src, args.time_limit)
        else:
            corpus(Path(tmp))


if __name__ == "__main__":
    main()
