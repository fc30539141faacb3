"""``prioris enrich``: complete stored works' metadata from their providers (thin adapter)."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from prioris.interfaces.cli.context import EXIT_ITEM_FAILED, EXIT_OK, CliContext
from prioris.interfaces.cli.progress import bar, wants_progress
from prioris.interfaces.cli.terminal import terminal_safe


def register(sub: Any) -> None:
    p = sub.add_parser(
        "enrich",
        help="complete works' metadata from arXiv / OpenAlex / Europe PMC (DOI or arXiv id)",
        description=(
            "Ask the provider of each work's DOI or arXiv id for its record: the provider "
            "wins for title, authors, year, venue and abstract; what the PDF printed is kept. "
            "Without IDs: every work with a DOI or an arXiv id. Runs whatever "
            "PRIORIS_MCP_ENRICH says (that setting is for ingest)."
        ),
    )
    p.add_argument(
        "ids", nargs="*", metavar="ID", help="works to enrich (default: all with a DOI or arXiv id)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    p.set_defaults(func=cmd_enrich)


def _line(report: dict[str, Any]) -> str:
    status, work_id = report["status"], report["id"]
    if status == "enriched":
        changed = ", ".join(report["changed"]) or "nothing changed"
        source = f"{report['provider']} ({report['provider_id']})"
        kept = "".join(
            f"; {c['alias']} left with {c['owner']}" for c in report.get("conflicts", [])
        )
        return f"enriched     {work_id}  from {source}: {changed}{kept}"
    return f"{status:<12} {work_id}  {report.get('message') or ''}".rstrip()


def cmd_enrich(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    show = wants_progress(args.json)
    ids = args.ids or None
    total = len(ids) if ids else len(library.enrichment.enrichable_ids())
    progress = bar(total, "work", "enrich", show)

    def on_done(work_id: str, report: dict[str, Any]) -> None:
        progress.update(1)
        if args.json:
            return
        if show:
            progress.write(terminal_safe(_line(report)))  # not through print_line
        else:
            ctx.print_line(_line(report))

    try:
        reports = library.enrich(ids, on_done=on_done)
    finally:
        progress.close()
    counts = Counter(report["status"] for report in reports)
    if args.json:
        ctx.print_json({"works": reports, **{k: counts.get(k, 0) for k in _STATUSES}})
    else:
        ctx.log(", ".join(f"{counts.get(k, 0)} {k.replace('_', ' ')}" for k in _STATUSES))
    return EXIT_ITEM_FAILED if counts.get("unavailable") else EXIT_OK


_STATUSES = ("enriched", "not_found", "mismatch", "unavailable", "no_identifier")
