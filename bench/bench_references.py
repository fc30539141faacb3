"""Reference lists read from real papers, and the title threshold of the local citation
graph (issue 23).

Two parts, over real PDFs from ``../shared/fixtures`` ingested into a temp library with
the fake embedder (nothing here depends on the model):

The hand-checked truth is in ``bench/references_truth.json``.

1. **Parsing** (``pdfmeta/pdfs`` and ``pdfs/good``): per paper, the entries found against
   those printed (:data:`PRINTED`, counted by hand: the highest number of a numbered list,
   the keys of a keyed one, the entries of an author-year list read one by one in the
   PDF's text), and on a hand-checked sample of entries (:data:`SAMPLE`, the printed title
   and DOI written down from the PDF) the title and DOI accuracy.
2. **Linking** (the same papers plus the PDFs of the ``bibtex`` and ``zotero`` fixtures:
   sports analytics, distributed systems and control theory papers that cite each other):
   every (reference, library work) pair whose titles score 50 or more is listed;
   :data:`LINKS` holds the pairs checked by hand to be the same work (every other listed
   pair was checked not to be). Precision and recall per title threshold, with the
   year (within one) and first-author rule of :mod:`prioris.ingest.citation_links` and
   without it; then near misses made from each true pair (year moved by 3, another first
   author, another title of the same first author) must all stay unlinked.

    .venv/bin/python bench/bench_references.py
    .venv/bin/python bench/bench_references.py --list-pairs   # the pairs, to label
    .venv/bin/python bench/bench_references.py --titles   # issue 39: titles that are none

Needs ../shared (exits 0 saying so when it is absent); writes only into a temp dir.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PRIORIS_TEST_SHARED") or REPO.parent / "shared")
FIXTURES = SHARED / "fixtures"
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

TRUTH = json.loads((REPO / "bench" / "references_truth.json").read_text(encoding="utf-8"))
# file -> (entries printed, how they were counted)
PRINTED: dict[str, tuple[int, str]] = {
    name: (item["count"], item["how"]) for name, item in TRUTH["printed"].items()
}
# (file, a piece of the printed entry that finds it, the printed title, the printed DOI)
SAMPLE: list[tuple[str, str, str | None, str | None]] = [tuple(x) for x in TRUTH["sample"]]
# (citing file, a piece of the printed reference, cited file; the files by the start of
# their names): checked by hand to be the same work; every other pair the listing shows
# was checked not to be
LINKS: set[tuple[str, str, str]] = {tuple(x) for x in TRUTH["links"]}


def _pdfs(linking: bool) -> list[Path]:
    paths = sorted((FIXTURES / "pdfmeta" / "pdfs").glob("*.pdf"))
    paths += sorted((FIXTURES / "pdfs" / "good").glob("*.pdf"))
    if linking:
        paths += sorted(FIXTURES.glob("bibtex/**/*.pdf")) + sorted(FIXTURES.glob("zotero/**/*.pdf"))
    return paths


def _open_library(folder: Path) -> Any:
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    settings = load_settings({"PRIORIS_MCP_DATA_DIR": str(folder), "PRIORIS_MCP_ENRICH": "off"})
    return Library.open(settings, embedder=FakeEmbedder())


def _ingest(library: Any, paths: list[Path]) -> dict[str, str]:
    """file name -> work id (a file whose bytes another holds maps to that work)."""
    started = time.perf_counter()
    summary = library.ingest_paths([str(p) for p in paths])
    names: dict[str, str] = {}
    for result in [*summary.ingested, *summary.skipped]:
        if result.id:
            names[Path(result.path).name] = result.id
    print(
        f"ingested {len(summary.ingested)} PDFs ({len(summary.skipped)} duplicates, "
        f"{len(summary.failed)} failed) in {time.perf_counter() - started:.1f} s"
    )
    return names


def _fold(text: str | None) -> str:
    from prioris.ingest.citation_links import fold

    return fold(text or "")


def parsing(library: Any, names: dict[str, str]) -> None:
    from rapidfuzz import fuzz

    print("\n## Entries found against entries printed")
    print("| paper | printed | found | how counted |\n|---|---:|---:|---|")
    total_printed = total_found = exact = off = 0
    for name, (printed, how) in PRINTED.items():
        found = len(library.references(names[name])) if name in names else 0
        total_printed += printed
        total_found += found
        exact += found == printed
        off += abs(found - printed)
        print(f"| {name} | {printed} | {found} | {how} |")
    print(f"| **all {len(PRINTED)}** | **{total_printed}** | **{total_found}** | "
          f"{exact} of {len(PRINTED)} papers exact; {off} entries off in all |")  # fmt: skip

    print(f"\n## Hand-checked sample ({len(SAMPLE)} entries)")
    strict = lenient = missing = 0
    doi_right = doi_printed = doi_found = 0
    wrong: list[str] = []
    for name, key, title, doi in SAMPLE:
        refs = library.references(names[name])
        entry = next((r for r in refs if key in r["raw"]), None)
        if entry is None:
            missing += 1
            wrong.append(f"  missing: {name}: {key}")
            continue
        got = entry["title"]
        if _fold(got) == _fold(title):
            strict += 1
            lenient += 1
        elif title and got and fuzz.ratio(_fold(got), _fold(title)) >= 90:
            lenient += 1
            wrong.append(f"  close: {got!r} for {title!r}")
        else:
            wrong.append(f"  wrong: {got!r} for {title!r}")
        doi_printed += doi is not None
        doi_found += entry["doi"] is not None
        doi_right += doi is not None and entry["doi"] == doi
    n = len(SAMPLE)
    print(f"titles exactly right (folded): {strict}/{n} = {strict / n:.0%}")
    print(f"titles within a ratio of 90: {lenient}/{n} = {lenient / n:.0%}")
    print(f"entries not found: {missing}")
    print(f"DOIs: {doi_right} right of {doi_printed} printed, {doi_found} found")
    print("\n".join(wrong))
    _all_dois(library, names)


def _all_dois(library: Any, names: dict[str, str]) -> None:
    """Every DOI of every parsed entry, each checked against the printed entry's text."""
    import re

    found = 0
    split = 0
    for name in PRINTED:
        if name not in names:
            continue
        for ref in library.references(names[name]):
            if ref["doi"]:
                found += 1
            elif re.search(r"\b10\.\d{4,9}/\s", ref["raw"]):
                split += 1  # "10.4060/ cb2409en": broken by the PDF's line break
    print(f"DOIs read over all entries: {found}; DOIs broken by a space in the text: {split}")


def _pairs(library: Any, names: dict[str, str]) -> list[dict[str, Any]]:
    """Every (reference, work) pair of the library whose titles score 50 or more."""
    import json

    from prioris.ingest.citation_links import title_score

    by_id = {v: k for k, v in names.items()}
    works = {
        r[0]: (r[1] or "", json.loads(r[2] or "[]"), r[3])
        for r in library.conn.execute("SELECT id, title, authors, year FROM works")
    }
    pairs = []
    refs = library.conn.execute(
        "SELECT work_id, ordinal, raw, authors, title, year FROM work_references "
        "WHERE title IS NOT NULL"
    ).fetchall()
    for work_id, ordinal, raw, authors, title, year in refs:
        ref = {"work_id": work_id, "raw": raw, "authors": json.loads(authors), "title": title,
               "year": year}  # fmt: skip
        for target, (t_title, t_authors, t_year) in works.items():
            if target == work_id or not t_title:
                continue
            score = title_score(title, t_title)
            if score < 50:
                continue
            pairs.append(
                {
                    "citing": by_id.get(work_id, work_id),
                    "cited": by_id.get(target, target),
                    "ordinal": ordinal,
                    "raw": raw,
                    "title": title,
                    "work_title": t_title,
                    "score": score,
                    "passes": _passes(ref, t_authors, t_year),
                    "ref": ref,
                    "work": (t_title, t_authors, t_year),
                }
            )
    return sorted(pairs, key=lambda p: -p["score"])


def _passes(ref: dict[str, Any], authors: list[str], year: int | None) -> bool:
    """The year and first-author part of the rule alone (any title)."""
    from prioris.ingest.citation_links import match_score

    probe = {**ref, "title": "x" * 40}
    return match_score(probe, "x" * 40, authors, year) is not None


def _is_link(pair: dict[str, Any]) -> bool:
    from unicodedata import normalize

    return any(
        normalize("NFC", pair["citing"]).startswith(normalize("NFC", citing))
        and normalize("NFC", pair["cited"]).startswith(normalize("NFC", cited))
        and key in pair["raw"]
        for citing, key, cited in LINKS
    )


def linking(library: Any, names: dict[str, str], list_pairs: bool) -> None:
    import json

    from prioris.ingest.citation_links import TITLE_THRESHOLD, family_name, match_score, title_score

    pairs = _pairs(library, names)
    works = [
        (r[0], json.loads(r[1] or "[]"))
        for r in library.conn.execute("SELECT title, authors FROM works WHERE title IS NOT NULL")
    ]
    if list_pairs:
        for p in pairs:
            mark = "LINK" if _is_link(p) else "    "
            print(
                f"{mark} {p['score']:5.1f} rule={int(p['passes'])} {p['citing'][:30]} -> "
                f"{p['cited'][:30]} | {p['title'][:70]!r} | {p['work_title'][:60]!r}"
            )
    positives = [p for p in pairs if _is_link(p)]
    print(f"\n## Linking by title: {len(pairs)} pairs scoring 50+, {len(positives)} true")
    print("| threshold | rule: links | right | wrong | recall | title alone: links | wrong |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threshold in (50, 60, 70, 75, 80, 85, 88, 90, 92, 95, 98, 100):
        ruled = [p for p in pairs if p["passes"] and p["score"] >= threshold]
        alone = [p for p in pairs if p["score"] >= threshold]
        right = sum(_is_link(p) for p in ruled)
        print(
            f"| {threshold} | {len(ruled)} | {right} | {len(ruled) - right} | "
            f"{right}/{len(positives)} | {len(alone)} | {sum(not _is_link(p) for p in alone)} |"
        )
    # not adopted, measured: a pair where a year is unknown, linked on a near-identical
    # title (98+) and the first author alone
    unknown = [
        p for p in pairs
        if p["score"] >= 98 and (p["ref"]["year"] is None or p["work"][2] is None)
        and _passes({**p["ref"], "year": 2000}, p["work"][1], 2000)
    ]  # fmt: skip
    print(f"if a missing year were allowed at 98+: {sum(_is_link(p) for p in unknown)} more "
          f"right, {sum(not _is_link(p) for p in unknown)} more wrong")  # fmt: skip
    near = wrong = 0
    for p in positives:  # near misses made from each true pair
        ref, (title, authors, year) = p["ref"], p["work"]
        variants = []
        if year is not None:
            variants.append((title, authors, year + 3))
        variants.append((title, ["Somebody Else"], year))
        others = [
            q["work"] for q in pairs if q["work"][1][:1] == authors[:1] and q["work"][0] != title
        ]
        variants += others[:3]
        for v_title, v_authors, v_year in variants:
            near += 1
            wrong += match_score(ref, v_title, v_authors, v_year) is not None
    print(f"near misses: {wrong} linked of {near} (threshold {TITLE_THRESHOLD:g})")
    siblings = [  # two works of the library with the same first author: how alike titles get
        (title_score(a[0], b[0]), a[0], b[0])
        for i, a in enumerate(works)
        for b in works[i + 1 :]
        if a[1] and b[1] and family_name(a[1][0]) == family_name(b[1][0]) and a[0] != b[0]
    ]
    top = max(siblings, default=(0.0, "", ""))
    print(f"same first author, different works ({len(siblings)} pairs): highest title "
          f"score {top[0]:.1f} ({top[1]!r} / {top[2]!r})")  # fmt: skip
    linked = library.conn.execute(
        "SELECT link_method, count(*) FROM work_references WHERE cited_work_id IS NOT NULL "
        "GROUP BY link_method ORDER BY 1"
    ).fetchall()
    total = library.conn.execute("SELECT count(*) FROM work_references").fetchone()[0]
    print(f"the library: {total} references, linked at ingest: {dict(linked)}")
    started = time.perf_counter()
    again = library.reread_references()
    print(f"every list read again and linked (reindex --references): {again['works']} works, "
          f"{again['references']} references in {time.perf_counter() - started:.2f} s")  # fmt: skip
    by_id = {v: k for k, v in names.items()}
    for method, citing, cited, raw in library.conn.execute(
        "SELECT link_method, work_id, cited_work_id, raw FROM work_references "
        "WHERE link_method IN ('doi', 'arxiv') ORDER BY 1, 2"
    ).fetchall():  # checked by hand: each is the cited work
        print(f"  {method}: {by_id.get(citing, citing)[:40]} -> {by_id.get(cited, cited)[:40]}"
              f" | {raw[:70]!r}")  # fmt: skip


def scale(n_works: int, n_refs: int) -> None:
    """Linking time in a larger library: ``n_works`` works (metadata rows), a work with 200
    references linked to it (outgoing), then a new work arriving among ``n_refs`` unlinked
    references (incoming). Synthetic titles; only the time is of interest."""
    import json
    import random

    from prioris.ingest.citation_links import link_references_of, link_references_to
    from prioris.models import Reference
    from prioris.storage import references as reference_store
    from prioris.storage.transaction import immediate

    rng = random.Random(23)
    words = "reef coral lattice protein graph neural model search ranking citation".split()
    names = ["Smith", "Garcia", "Nakamura", "Okafor", "Berg", "Rossi", "Kowalski", "Chen"]

    def title() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(5, 10))).capitalize()

    with tempfile.TemporaryDirectory() as tmp:
        library = _open_library(Path(tmp))
        conn = library.conn
        try:
            works = [
                (f"doi:10.5555/{i}", title(), [f"Ann {rng.choice(names)}"], rng.randint(1990, 2024))
                for i in range(n_works)
            ]  # fmt: skip
            with library.lock, immediate(conn):
                conn.executemany(
                    "INSERT INTO works(id, title, authors, year, source, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, 'import', '', '')",
                    [(w[0], w[1], json.dumps(w[2]), w[3]) for w in works],
                )
                cited = rng.sample(works, 100)
                refs = [
                    Reference(i + 1, "x", [f"A. {w[2][0].split()[-1]}"], w[1], w[3])
                    for i, w in enumerate(cited)
                ] + [Reference(101 + i, "x", ["B. Nobody"], title(), 2001) for i in range(100)]
                reference_store.replace_references(conn, works[0][0], refs)
                started = time.perf_counter()
                linked = link_references_of(conn, works[0][0])
                outgoing = time.perf_counter() - started
                others = [
                    Reference(i + 1, "x", [f"C. {rng.choice(names)}"], title(), year)
                    for i, year in enumerate(rng.randint(1990, 2024) for _ in range(n_refs))
                ]
                others[0].authors, others[0].year = ["D. Smith"], 2010  # the one that is it
                reference_store.replace_references(conn, works[1][0], others)
                conn.execute(
                    "INSERT INTO works(id, title, authors, year, source, created_at, updated_at) "
                    "VALUES ('new', ?, '[\"Dee Smith\"]', 2010, 'import', '', '')",
                    (others[0].title,),
                )
                started = time.perf_counter()
                incoming = link_references_to(conn, "new")
                arriving = time.perf_counter() - started
        finally:
            library.close()
    print(f"\n## Scale: {n_works} works")
    print(f"a work's 200 references linked in {outgoing:.2f} s ({linked} linked, 100 expected)")
    print(f"a new work among {n_refs} unlinked references linked in {arriving:.3f} s "
          f"({incoming} linked, 1 expected)")  # fmt: skip


def _title_rules() -> Any:
    """The rules of ``prioris.ingest.reference_title``, loaded from this checkout's file,
    so the same measure applies to a run of an older checkout's code (issue 39)."""
    import importlib.util

    path = REPO / "src" / "prioris" / "ingest" / "reference_title.py"
    spec = importlib.util.spec_from_file_location("reference_title_rules", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _family(name: str) -> str:
    name = name.strip()
    if "," in name:
        return name.split(",", 1)[0].strip().casefold()
    return (name.split() or [""])[-1].strip(".").casefold()


def titles_shown(library: Any, names: dict[str, str]) -> None:
    """Issue 39: reference titles that are not titles (an author list, a citation string,
    a venue), in ``show``'s reference lists and among the offline snowball's candidates;
    and preprint/published pairs standing as two candidates."""
    from collections import Counter

    from rapidfuzz import fuzz

    rules = _title_rules()
    seeds = sorted(set(names.values()))
    kinds: Counter[str] = Counter()
    shown = raw = 0
    for seed in seeds:
        for ref in library.references(seed):
            if ref.get("title_parsed", bool(ref["title"])) and ref["title"]:
                shown += 1
                kinds[rules.title_problem(ref["title"]) or "title"] += 1
            else:
                raw += 1
    bad = shown - kinds["title"]
    print(f"\n## Reference titles (issue 39): {len(seeds)} papers")
    share = bad / max(shown, 1)
    print(f"entries shown with a title: {shown}; of them not a title: {bad} = {share:.1%} "
          f"({dict(kinds)}); shown as raw text, marked: {raw}")  # fmt: skip
    answers = [
        library.snowball([seed], direction="backward", limit=500, offline=True)["candidates"]
        for seed in seeds
    ]
    candidates = [c for cands in answers for c in cands]
    titled = [c for c in candidates if c.get("title_parsed", True)]
    flagged = Counter(rules.title_problem(c["title"]) for c in titled)
    not_titles = sum(n for k, n in flagged.items() if k)
    print(f"offline snowball, each seed alone: {len(candidates)} candidates, "
          f"{len(titled)} shown as a title; not a title: {not_titles} = "
          f"{not_titles / max(len(titled), 1):.1%} ({ {k: n for k, n in flagged.items() if k} }); "
          f"shown as raw text, marked: {len(candidates) - len(titled)}")  # fmt: skip
    pairs = 0
    for cands in answers:
        for i, a in enumerate(cands):
            for b in cands[i + 1 :]:
                ids_a, ids_b = a.get("ids") or {}, b.get("ids") or {}
                linked = any(k in ids_a and ids_a.get(k) == ids_b.get(k) for k in ("doi", "arxiv"))
                fa = _family(a["authors"][0]) if a.get("authors") else ""
                fb = _family(b["authors"][0]) if b.get("authors") else ""
                near = (
                    fa
                    and fa == fb
                    and fuzz.ratio(_fold(a["title"]), _fold(b["title"])) >= 85
                    and (a.get("year") is None or b.get("year") is None
                         or abs(a["year"] - b["year"]) <= 2)
                )  # fmt: skip
                pairs += bool(linked or near)
    print(f"candidate pairs of one seed that are one work (same DOI/arXiv id, or same first "
          f"author with a near-same title and years within 2): {pairs}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-linking", action="store_true", help="parsing figures only")
    parser.add_argument("--list-pairs", action="store_true", help="print every pair to label")
    parser.add_argument(
        "--titles",
        action="store_true",
        help="issue 39: reference and snowball-candidate titles that are not titles",
    )
    parser.add_argument(
        "--scale", type=int, default=0, metavar="N", help="only time linking among N works"
    )
    args = parser.parse_args()
    if args.scale:
        scale(args.scale, 50_000)
        return 0
    if not (FIXTURES / "pdfmeta" / "pdfs").is_dir():
        print(f"SKIPPED: the fixture papers are not at {FIXTURES} (../shared)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        library = _open_library(Path(tmp))
        try:
            names = _ingest(library, _pdfs(not args.no_linking and not args.titles))
            parsing(library, names)
            if args.titles:
                titles_shown(library, names)
                return 0
            if not args.no_linking:
                linking(library, names, args.list_pairs)
        finally:
            library.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
