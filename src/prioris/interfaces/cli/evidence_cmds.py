"""``prioris evidence``, ``prioris cite-check`` and ``prioris skill``: sentences an agent
can quote, a check of each citation it is about to write, and the short text that teaches
a shell-using agent the commands (``SKILL.md``, shipped with the package).

Each handler calls the Library and renders text or JSON; it decides nothing. The batch
forms (``--queries``, ``--pairs``) load the model once and write one JSON line per input,
as ``search --queries`` does."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError, PriorisError
from prioris.interfaces.cli.context import EXIT_ITEM_FAILED, EXIT_OK, CliContext, add_json_flag
from prioris.interfaces.cli.read_cmds import add_filter_flags, filter_kwargs


def register(sub: Any) -> None:
    """Add the evidence commands to ``sub``."""
    p = sub.add_parser(
        "evidence", help="sentences of the library that state a claim, with page and offsets"
    )
    p.add_argument("claim", nargs="?", metavar="CLAIM", help="a claim or a question")
    p.add_argument(
        "--queries",
        type=Path,
        metavar="FILE.jsonl",
        help="every claim {_id|id, text} of a JSONL file, one JSON line out per claim "
        "(default: the single CLAIM)",
    )
    p.add_argument("-k", type=int, default=5, metavar="N", help="sentences (default 5, max 50)")
    add_filter_flags(p)
    p.add_argument(
        "--back-matter",
        action="store_true",
        help="also quote references, acknowledgements, funding and author information "
        "(default: left out)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_evidence)

    p = sub.add_parser(
        "cite-check", help="does a work support a sentence? its best sentence for it, and found"
    )
    p.add_argument("claim", nargs="?", metavar="SENTENCE", help="the sentence you cite it for")
    p.add_argument("work", nargs="?", metavar="WORK", help="work id, DOI, arXiv id or citekey")
    p.add_argument(
        "--pairs",
        type=Path,
        metavar="FILE.jsonl",
        help="check every line {id, claim, work_id} of a JSONL file, one JSON line out per "
        "pair (default: the single SENTENCE and WORK)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_cite_check)

    p = sub.add_parser("skill", help="print the short guide that teaches an agent these commands")
    p.set_defaults(func=cmd_skill)


def skill_text() -> str:
    """The agent skill shipped with the package (``SKILL.md``)."""
    return files("prioris.interfaces.cli").joinpath("SKILL.md").read_text(encoding="utf-8")


def cmd_skill(args: argparse.Namespace, ctx: CliContext) -> int:
    sys.stdout.write(skill_text())
    return EXIT_OK


def cmd_evidence(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    options = {"k": args.k, "back_matter": args.back_matter, **filter_kwargs(args)}
    if args.queries:
        if args.claim:
            raise InvalidRequestError("give either CLAIM or --queries, not both")

        def answer(item: dict[str, Any]) -> dict[str, Any]:
            text = item.get("text", "")
            if not isinstance(text, str):
                raise InvalidRequestError("'text' must be a string")
            found = library.evidence(text, **options)
            return {"query_id": item.get("_id", item.get("id")), "evidence": found["evidence"]}

        return _each_line(library, args.queries, answer, ctx)
    if not args.claim:
        raise InvalidRequestError("evidence needs CLAIM or --queries FILE.jsonl")
    found = library.evidence(args.claim, **options)
    if args.json:
        ctx.print_json(found)
        return EXIT_OK
    if not found["evidence"]:
        ctx.print_line("no evidence")
    for n, item in enumerate(found["evidence"], 1):
        for line in _evidence_lines(n, item):
            ctx.print_line(line)
    return EXIT_OK


def cmd_cite_check(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    if args.pairs:
        if args.claim or args.work:
            raise InvalidRequestError("give either SENTENCE WORK or --pairs, not both")

        def answer(item: dict[str, Any]) -> dict[str, Any]:
            claim, work = item.get("claim", ""), item.get("work_id", "")
            if not isinstance(claim, str) or not isinstance(work, str):
                raise InvalidRequestError("'claim' and 'work_id' must be strings")
            return {"id": item.get("id"), **library.cite_check(claim, work)}

        return _each_line(library, args.pairs, answer, ctx)
    if not args.claim or not args.work:
        raise InvalidRequestError("cite-check needs SENTENCE and WORK, or --pairs FILE.jsonl")
    result = library.cite_check(args.claim, args.work)
    if args.json:
        ctx.print_json(result)
        return EXIT_OK
    verdict = "supported" if result["found"] else "NOT supported"
    ctx.print_line(f"{verdict} by {result['citekey']} ({result['work_id']})")
    if result["sentence"]:
        ctx.print_line(f"  best sentence{_where(result)}: {result['sentence']}")
    return EXIT_OK if result["found"] else EXIT_ITEM_FAILED


def _each_line(
    library: Any, path: Path, answer: Callable[[dict[str, Any]], dict[str, Any]], ctx: CliContext
) -> int:
    """One JSON line out per JSONL line in; a bad line is said on stderr and counted."""
    failed = 0
    for line in library.read_jsonl(path):
        item = line.value
        try:
            if isinstance(item, PriorisError):
                raise item
            out = answer(item)
        except PriorisError as exc:
            ctx.error(f"error [{exc.code}]: {line.where}: {exc.message}")
            failed += 1
            continue
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return EXIT_ITEM_FAILED if failed else EXIT_OK


def _where(item: dict[str, Any]) -> str:
    if item.get("page") is None:
        return f" (offset {item['start']})"
    pages = f"p. {item['page']}" + (f"-{item['page_end']}" if item.get("page_end") else "")
    return f" ({pages}, offset {item['start']})"


def _evidence_lines(n: int, item: dict[str, Any]) -> list[str]:
    year = f", {item['year']}" if item.get("year") else ""
    lines = [
        f"{n}. {item['sentence']}",
        f"   {item['citekey']} ({item['work_id']}{year}){_where(item)}: {item['title']}",
    ]
    lines += [f"   also in {o['work_id']}" for o in item.get("also", [])]
    return lines
