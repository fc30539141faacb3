"""Sentence-level evidence and citation checks on SciFact's train claims (issue 36).

SciFact's claims carry sentence-level rationales: ``queries.jsonl`` gives, per claim,
``{doc_id: [{"sentences": [i], "label"}]}`` and ``corpus_sentences.jsonl`` the corpus's
sentence lists (joined by one space they are the corpus text). The library is the one
``bench_scifact.py`` builds (``bench/out/scifact``: each record stored as ``# title``, a
blank line, the text), so rationale sentence ``i`` of a document is a known span of its
stored text. An evidence sentence *hits* when it lies in the rationale's document and
shares at least half of either span with it (our splitter and SciFact's may cut a
sentence differently).

Reported, for the claims with rationales:

- ``evidence``: a rationale among the first 1 / 3 / 5 sentences (hit@1, hit@3, hit@5);
  ``--folds`` also reports the two halves of the claims (``random.Random(36)``) apart;
- ``cite-check``: with the rationale's document, ``found`` and its sentence a rationale;
  with a random document the claim does not cite, ``found: false`` (refused); with the
  best-ranked uncited document (a hard negative), refused;
- latency: per claim, evidence beside a plain hybrid search (p50 / p95, ms).

    .venv/bin/python bench/bench_evidence.py                 # all claims with rationales
    .venv/bin/python bench/bench_evidence.py --limit 100     # the first 100
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common


def rationale_spans(claim: dict[str, Any], sentences: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(doc id, start, end) of each rationale sentence, in stored-text offsets."""
    spans = []
    for doc, items in claim["metadata"].items():
        record = sentences[doc]
        position = len(f"# {record['title']}\n\n")
        bounds = []
        for text in record["sentences"]:
            bounds.append((position, position + len(text)))
            position += len(text) + 1
        for item in items:
            spans += [(doc, *bounds[i]) for i in item["sentences"]]
    return spans


def is_rationale(work_id: str, start: int, end: int, gold: list[tuple[str, int, int]]) -> bool:
    for doc, gs, ge in gold:
        shared = min(end, ge) - max(start, gs)
        if (
            doc == work_id
            and shared > 0
            and (shared >= 0.5 * (ge - gs) or shared >= 0.5 * (end - start))
        ):
            return True
    return False


def percentiles(values: list[float]) -> str:
    return f"p50 {common.percentile(values, 50):.0f} ms, p95 {common.percentile(values, 95):.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--no-check", action="store_true", help="skip the citation checks")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    args = parser.parse_args()
    folder = common.require_scifact()
    sentences = {r["_id"]: r for r in common.read_jsonl(folder / "corpus_sentences.jsonl")}
    claims = [q for q in common.read_jsonl(folder / "queries.jsonl") if q["metadata"]]
    claims = claims[: args.limit] if args.limit else claims
    corpus_ids = sorted(sentences)
    halves = list(range(len(claims)))
    random.Random(36).shuffle(halves)
    fold = {i: (0 if n < len(claims) // 2 else 1) for n, i in enumerate(halves)}
    rng = random.Random(17)

    with common.open_library(common.OUT / "scifact") as library:
        library.evidence("warm-up claim about cells", k=1)
        hits = {1: [0, 0], 3: [0, 0], 5: [0, 0]}
        per_fold = [0, 0]
        gold_found = gold_right = random_refused = hard_refused = hard_n = 0
        t_evidence: list[float] = []
        t_search: list[float] = []
        t_check: list[float] = []
        measures: dict[str, list[Any]] = {"gold": [], "random": [], "hard": []}
        for n, claim in enumerate(claims):
            gold = rationale_spans(claim, sentences)
            started = time.perf_counter()
            items = library.evidence(claim["text"], k=5)["evidence"]
            t_evidence.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            search = library.search(claim["text"], mode="hybrid", k=10)
            t_search.append((time.perf_counter() - started) * 1000)
            marks = [is_rationale(e["work_id"], e["start"], e["end"], gold) for e in items]
            per_fold[fold[n]] += 1
            for k in hits:
                if any(marks[:k]):
                    hits[k][fold[n]] += 1
            if not args.no_check:
                docs = sorted(claim["metadata"])
                started = time.perf_counter()
                answer = library.cite_check(claim["text"], docs[0])
                measures["gold"].append((answer["similarity"], answer["coverage"]))
                t_check.append((time.perf_counter() - started) * 1000)
                gold_found += answer["found"]
                gold_right += answer["found"] and is_rationale(
                    docs[0], answer["start"], answer["end"], gold
                )
                cited = set(docs)
                other = rng.choice([d for d in corpus_ids if d not in cited])
                answer = library.cite_check(claim["text"], other)
                measures["random"].append((answer["similarity"], answer["coverage"]))
                random_refused += not answer["found"]
                hard = next((h.id for h in search.hits if h.id not in cited), None)
                if hard is not None:
                    hard_n += 1
                    answer = library.cite_check(claim["text"], hard)
                    measures["hard"].append((answer["similarity"], answer["coverage"]))
                    hard_refused += not answer["found"]
            if n and n % 100 == 0:
                print(f"  {n}/{len(claims)} claims", file=sys.stderr, flush=True)

    total = len(claims)
    figures: dict[str, Any] = {"claims": total}
    for k, (a, b) in hits.items():
        figures[f"hit@{k}"] = round((a + b) / total, 3)
        figures[f"hit@{k} by half"] = [round(a / per_fold[0], 3), round(b / per_fold[1], 3)]
    if not args.no_check:
        figures["cite-check gold found"] = round(gold_found / total, 3)
        figures["cite-check gold found, rationale sentence"] = round(gold_right / total, 3)
        figures["cite-check random refused"] = round(random_refused / total, 3)
        figures["cite-check hard negative refused"] = round(hard_refused / max(hard_n, 1), 3)
        figures["latency cite-check"] = percentiles(t_check)
    figures["latency evidence"] = percentiles(t_evidence)
    figures["latency search"] = percentiles(t_search)
    for key, value in figures.items():
        print(f"{key:44s} {value}")
    if args.out:
        out = {**figures, "check_measures": measures if not args.no_check else None}
        args.out.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
