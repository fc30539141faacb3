"""``prioris cites ID`` and ``prioris cited-by ID``: the local citation graph.

Both read the references stored with each work (read from its text at ingest) and the
library works they were linked to; nothing is asked of the network.
"""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag


def register(sub: Any) -> None:
    """Add ``cites`` and ``cited-by``."""
    for name, helptext, func in (
        ("cites", "the works of your library that a work cites (from its references)", cmd_cites),
        ("cited-by", "the works of your library that cite a work", cmd_cited_by),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("id", metavar="ID", help="a work id or any alias (DOI, arXiv id, ...)")
        add_json_flag(p)
        p.set_defaults(func=func)


def _work_line(work: dict[str, Any]) -> str:
    authors = work.get("authors") or []
    who = authors[0] + (" et al." if len(authors) > 1 else "") if authors else ""
    year = f" ({work['year']})" if work.get("year") else ""
    return f"{work['id']}  {work.get('title') or '(untitled)'}{year}" + (f" — {who}" if who else "")


def _print(ctx: CliContext, args: argparse.Namespace, key: str, works: list[dict[str, Any]]) -> int:
    if args.json:
        ctx.print_json({"id": args.id, key: works, "count": len(works)})
        return EXIT_OK
    for work in works:
        ctx.print_line(_work_line(work))
        for ref in work["references"]:
            how = f"{ref['link_method']}" + (
                f" {ref['link_score']:.0f}" if ref["link_method"] == "title" else ""
            )
            ctx.print_line(f"    [{ref['ordinal']}] {ref['raw'][:160]}  ({how})")
    if not works:
        ctx.log(f"no work of the library {'is cited by' if key == 'cites' else 'cites'} {args.id}")
    return EXIT_OK


def cmd_cites(args: argparse.Namespace, ctx: CliContext) -> int:
    return _print(ctx, args, "cites", ctx.library().cites(args.id))


def cmd_cited_by(args: argparse.Namespace, ctx: CliContext) -> int:
    return _print(ctx, args, "cited_by", ctx.library().cited_by(args.id))


def reference_lines(references: list[dict[str, Any]]) -> list[str]:
    """``show``'s reference list: the count, then each entry, a linked one marked with the
    library work it is."""
    if not references:
        return []
    linked = sum(1 for r in references if r.get("cited_work_id"))
    lines = [f"references: {len(references)} ({linked} in your library)"]
    for ref in references:
        mark = f"  -> {ref['cited_work_id']}" if ref.get("cited_work_id") else ""
        lines.append(f"  [{ref['ordinal']}] {ref['raw'][:200]}{mark}")
    return lines
