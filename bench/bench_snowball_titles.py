"""The snowball's fuzzy title threshold: how close distinct real titles come to each other,
and how far realistic variants of one title fall from it (rapidfuzz ``ratio`` over
:func:`prioris.discovery.snowball_identity.normalise_title`).

Titles: every OpenAlex work record under ``../shared/fixtures/api``, the ``title`` fields
of the BibTeX files under ``fixtures/bibtex`` and the titles of the Zotero databases under
``fixtures/zotero``. Prints the closest distinct pairs and, per kind of variant (typos,
a dropped article, two words run together), the lowest score and how many fall under the
threshold. The variants are seeded, so a run is repeatable.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from rapidfuzz import fuzz

from prioris.discovery.snowball_dedupe import TITLE_MATCH_THRESHOLD
from prioris.discovery.snowball_identity import normalise_title

FIXTURES = common.SHARED / "fixtures"


def _openalex_titles(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        title = node.get("title") or node.get("display_name")
        if isinstance(title, str) and str(node.get("id", "")).startswith("https://openalex.org/W"):
            yield title
        for value in node.values():
            yield from _openalex_titles(value)
    elif isinstance(node, list):
        for value in node:
            yield from _openalex_titles(value)


def titles() -> list[str]:
    found: set[str] = set()
    for path in sorted((FIXTURES / "api").rglob("*.json")):
        try:
            found.update(_openalex_titles(json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, UnicodeDecodeError):
            continue
    for path in sorted((FIXTURES / "bibtex").rglob("*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="ignore")
            found.update(
                re.findall(r'^\s*title\s*=\s*[{"]+(.*?)[}"]+,?\s*$', text, flags=re.M | re.I)
            )
    for path in sorted((FIXTURES / "zotero").glob("*/zotero.sqlite")):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            found.update(
                r[0]
                for r in conn.execute(
                    "SELECT v.value FROM itemData d JOIN fields f ON f.fieldID = d.fieldID "
                    "JOIN itemDataValues v ON v.valueID = d.valueID WHERE f.fieldName = 'title'"
                )
            )
        finally:
            conn.close()
    return sorted({n for t in found if len(n := normalise_title(t)) > 15})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=7, help="seed of the variants (default 7)")
    args = parser.parse_args()
    corpus = titles()
    if len(corpus) < 2:
        print(f"no titles under {FIXTURES}")
        return 1
    print(f"{len(corpus)} distinct titles; threshold {TITLE_MATCH_THRESHOLD}")
    best = sorted(
        (
            (max(fuzz.ratio(a, b) for j, b in enumerate(corpus) if j != i), a)
            for i, a in enumerate(corpus)
        ),
        reverse=True,
    )
    print("closest distinct titles (score: title):")
    for score, title in best[:5]:
        print(f"  {score:5.1f}  {title[:90]}")
    over = sum(1 for score, _ in best if score >= TITLE_MATCH_THRESHOLD)
    print(f"distinct titles with a neighbour at or over the threshold: {over}")
    rng = random.Random(args.seed)

    def typos(count: int) -> Callable[[str], str]:
        def change(title: str) -> str:
            letters = list(title)
            for _ in range(count):
                letters[rng.randrange(len(letters))] = rng.choice("abcdefghijklmnopqrstuvwxyz")
            return "".join(letters)

        return change

    variants: dict[str, Callable[[str], str]] = {
        "1 typo": typos(1),
        "2 typos": typos(2),
        "3 typos": typos(3),
        "a dropped article": lambda t: re.sub(r"\b(the|a|an) ", "", t, count=1),
        "two words run together": lambda t: t.replace(" ", "", 1),
    }
    for name, change in variants.items():
        scores = sorted(fuzz.ratio(t, normalise_title(change(t))) for t in corpus)
        under = sum(1 for s in scores if s < TITLE_MATCH_THRESHOLD)
        print(f"{name:24s} lowest {scores[0]:5.1f}  under the threshold {under}/{len(scores)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
