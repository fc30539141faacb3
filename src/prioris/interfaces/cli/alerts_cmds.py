"""``prioris alerts``: rank and feed here, the alerts that run and remember (add, run,
list, show, remove, accept, dismiss) in :mod:`.alert_runs_cmds`.

``rank`` prints one JSON line per collection (``{"collection", "candidates": [{"id",
"title", "score", "why", "in_library"}]}``) with ``--json``, a short list per collection
without; ``feed NAME`` prints an alert's stored results as Atom XML, for a feed reader, and
offline ``feed --collection C --candidates FILE`` one collection's ranking of a file. The
candidates file is JSONL records or an Atom/RSS feed; the pool is embedded once for every
collection. The ranking is the Library's (``Library.rank_alerts``); this only reads the
file and prints.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.interfaces.cli.alert_digest_cmds import register_digest
from prioris.interfaces.cli.alert_runs_cmds import register_actions
from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag


def register(sub: Any) -> None:
    """Add ``alerts``."""
    p = sub.add_parser(
        "alerts",
        help="new papers ranked for each collection: add, run, list, show, accept, dismiss, "
        "feed, rank",
        description="Alerts: new papers from arXiv, Europe PMC, OpenAlex, feeds or files, "
        "ranked for a collection (or a saved search) by a model trained on its works against "
        "the rest of the library, each with why; run daily, triaged, read as Atom. rank and "
        "feed --candidates rank a file offline.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    register_actions(actions)
    register_digest(actions)
    rank = actions.add_parser("rank", help="rank a file's candidates for each collection")
    _candidates_flags(rank)
    rank.add_argument(
        "--collection",
        action="append",
        dest="collections",
        metavar="C",
        help="rank for this collection (its path or last name); repeat for several "
        "(default: the whole library and every collection)",
    )
    add_json_flag(rank)
    rank.set_defaults(func=cmd_rank)
    feed = actions.add_parser("feed", help="an alert's results (or a ranking) as an Atom feed")
    feed.add_argument(
        "name", nargs="?", metavar="NAME", help="the alert whose stored results to print"
    )
    feed.add_argument(
        "--candidates",
        type=Path,
        metavar="FILE",
        help="offline, instead of NAME: JSONL records {_id, title, text} or an Atom/RSS file "
        "(no default)",
    )
    feed.add_argument(
        "-k", type=int, default=20, metavar="N", help="offline: candidates (default 20)"
    )
    feed.add_argument(
        "--collection",
        metavar="C",
        help="offline, with --candidates: the collection to rank for (no default)",
    )
    feed.set_defaults(func=cmd_feed)


def _candidates_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--candidates",
        type=Path,
        required=True,
        metavar="FILE",
        help="JSONL records {_id, title, text} or an Atom/RSS feed file (required, no default)",
    )
    parser.add_argument(
        "-k", type=int, default=20, metavar="N", help="candidates per collection (default 20)"
    )


def _ranked(args: argparse.Namespace, ctx: CliContext, collections: Any) -> list[dict[str, Any]]:
    from prioris.alerts.candidate_file import read_candidates

    candidates = read_candidates(args.candidates)
    ctx.log(f"ranking {len(candidates)} candidate(s) from {args.candidates}")
    return ctx.library().rank_alerts(candidates, collections=collections, k=args.k)


def cmd_rank(args: argparse.Namespace, ctx: CliContext) -> int:
    for ranking in _ranked(args, ctx, args.collections):
        if args.json:
            ctx.print_json(ranking)
            continue
        ctx.print_line(f"{ranking['collection']}:")
        for at, item in enumerate(ranking["candidates"], 1):
            mark = "  (in the library)" if item["in_library"] else ""
            ctx.print_line(f"  {at:>3}. {item['score']:+.3f}  {item['id']}  {item['title']}{mark}")
            near = "; ".join(n["title"] or n["id"] for n in item["why"]["nearest"][:2])
            terms = ", ".join(t["term"] for t in item["why"]["terms"])
            ctx.print_line(f"         near: {near}" + (f" | terms: {terms}" if terms else ""))
    return EXIT_OK


def cmd_feed(args: argparse.Namespace, ctx: CliContext) -> int:
    import sys

    offline = args.candidates is not None or args.collection is not None
    if args.name is not None and offline:
        raise InvalidRequestError("alerts feed: NAME, or --collection with --candidates")
    if args.name is not None:
        sys.stdout.write(ctx.library().alerts_feed(args.name))
        return EXIT_OK
    if args.candidates is None or args.collection is None:
        raise InvalidRequestError(
            "alerts feed: give an alert's NAME, or --collection C and --candidates FILE"
        )
    from prioris.alerts.atom import atom_feed

    (ranking,) = _ranked(args, ctx, [args.collection])
    updated = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    sys.stdout.write(atom_feed(ranking["collection"], ranking["candidates"], updated))
    return EXIT_OK
