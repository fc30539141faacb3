"""CPU time of the reference-manager text cleaners on pathological inputs, at n and 8n.

Each input is one a square-time cleaner (a backtracking regular expression,
``html.parser`` on unclosed constructs, a value grown by concatenation) chokes on. A
linear cleaner takes about 8 times longer at 8n; a square-time one about 64 times. Run it
on two checkouts to compare (``PYTHONPATH=../old/src``): cases the old code takes more
than ``--budget`` CPU seconds for are shown as ``> budget`` (each case runs in a child
process killed by ``RLIMIT_CPU`` past the budget).

    .venv/bin/python bench/bench_refman_linear.py --n 20000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

CASES = {
    "Zotero note: unclosed quoted attributes": (
        "html_to_text",
        '"<p>kept</p>" + "<a x=\'" * {n}',
    ),
    "Zotero note: unclosed comments": ("html_to_text", '"<p>kept</p>" + "<!--" * {n}'),
    "BibTeX annote: unclosed tags": ("bib_annote", '"<a" * {n}'),
    "BibTeX note: one long word (arXiv id search)": ("bib_note", '"arxiv" * {n}'),
    "BibTeX keywords: distinct words": ("bib_keywords", '",".join(f"w{{i}}" for i in range({n}))'),
    "RIS note continued over n lines": ("ris_lines", '"word word\\n" * {n}'),
    "text_clean: a run of combining marks": ("clean_text", '"\\u0301" * {n} + "1"'),
}

CHILD = """
import resource, sys, time
from pathlib import Path
resource.setrlimit(resource.RLIMIT_CPU, ({budget}, {budget} + 1))
from prioris.refman.bibtex import parse_bibtex
from prioris.refman.html_text import html_to_text
from prioris.refman.ris import parse_ris
from prioris.text_clean import clean_text
nowhere = Path("/nonexistent")
def bib(field, value):
    return parse_bibtex("@misc{{k, title={{T}}, " + field + "={{" + value + "}}}}\\n",
                        base=nowhere, roots=(), encoding="utf-8")
run = {{
    "html_to_text": html_to_text,
    "bib_annote": lambda v: bib("annote", v),
    "bib_note": lambda v: bib("note", v),
    "bib_keywords": lambda v: bib("keywords", v),
    "ris_lines": lambda v: parse_ris("TY  - JOUR\\nTI  - T\\nN1  - x\\n" + v + "ER  - \\n",
                                     base=nowhere, roots=(), encoding="utf-8"),
    "clean_text": clean_text,
}}["{kind}"]
value = {value}
started = time.process_time()
run(value)
print(time.process_time() - started)
"""


def cpu_seconds(kind: str, value: str, n: int, budget: int) -> float | None:
    code = CHILD.format(budget=budget, kind=kind, value=value.format(n=n))
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True
    )
    if child.returncode != 0:
        return None  # killed past the CPU budget
    return float(child.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="the smaller input's repeats")
    parser.add_argument("--budget", type=int, default=60, help="CPU seconds a case may take")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for name, (kind, value) in CASES.items():
        small = cpu_seconds(kind, value, args.n, args.budget)
        large = cpu_seconds(kind, value, 8 * args.n, args.budget)
        rows.append({"case": name, "n": small, "8n": large})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    show = lambda t: f"> {args.budget}" if t is None else f"{t:.3f}"  # noqa: E731
    print(f"| case | CPU s at n={args.n} | CPU s at 8n | ratio |")
    print("|---|---|---|---|")
    for row in rows:
        ratio = (
            f"{row['8n'] / max(row['n'], 1e-4):.1f}"
            if row["n"] is not None and row["8n"] is not None
            else "-"
        )
        print(f"| {row['case']} | {show(row['n'])} | {show(row['8n'])} | {ratio} |")


if __name__ == "__main__":
    main()
