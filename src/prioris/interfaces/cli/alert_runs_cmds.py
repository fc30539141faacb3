"""``prioris alerts add|run|list|show|remove|accept|dismiss``: alerts that run and remember.

Each action is one call of the Library (``alerts_add``, ``alerts_run``, ...); this only
parses and prints. ``run`` is what a cron job or a systemd timer calls: progress on
stderr, one report per alert (``--json``: a JSON array), exit status 1 when any alert
failed (the error's code and the failing source named on stderr and in the JSON; that
alert's previous results are kept). The CLI is the library's own user: it sees every
alert (accounts only limit the web app and the MCP server).
"""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_ITEM_FAILED, EXIT_OK, CliContext, add_json_flag


def register_actions(actions: Any) -> None:
    """Add the alert actions to ``prioris alerts``."""
    add = actions.add_parser("add", help="make an alert for a collection or a saved search")
    add.add_argument("name", metavar="NAME", help="letters, digits, '.', '_', '-' (max 64)")
    profile = add.add_mutually_exclusive_group(required=True)
    profile.add_argument(
        "--collection", metavar="C", help="rank for this collection (no default: this or --search)"
    )
    profile.add_argument(
        "--search",
        metavar="QUERY",
        help="a saved search: re-run on arXiv, Europe PMC and OpenAlex (with a key), "
        "ranked for the whole library (no default: this or --collection)",
    )
    add.add_argument(
        "--sources",
        metavar="SPEC",
        help='comma-separated: arxiv:cs.LG, europepmc:"query", openalex:"query", '
        'openalex-cites, search:"query", feed:URL, jsonl:PATH '
        "(default: none; a collection alert needs it)",
    )
    add_json_flag(add)
    add.set_defaults(func=cmd_add)

    run = actions.add_parser("run", help="fetch, rank and store new candidates (cron, timer)")
    run.add_argument("name", nargs="?", metavar="NAME", help="one alert (default: every alert)")
    run.add_argument(
        "--since",
        metavar="DATE",
        help="ask the sources from this day or ISO moment (default: each alert's last run)",
    )
    run.add_argument(
        "-k", type=int, default=50, metavar="N", help="results kept per alert (default 50)"
    )
    add_json_flag(run)
    run.set_defaults(func=cmd_run)

    listing = actions.add_parser("list", help="the alerts, their last run and results")
    add_json_flag(listing)
    listing.set_defaults(func=cmd_list)

    show = actions.add_parser("show", help="one alert's last results, best first, with why")
    show.add_argument("name", metavar="NAME", help="the alert")
    add_json_flag(show)
    show.set_defaults(func=cmd_show)

    remove = actions.add_parser("remove", help="remove an alert, its results and its triage")
    remove.add_argument("name", metavar="NAME", help="the alert")
    remove.set_defaults(func=cmd_remove)

    for verb, what in (
        ("accept", "fetch a candidate into the library (a positive of later runs)"),
        ("dismiss", "never show a candidate again for this alert (a negative of later runs)"),
    ):
        triage = actions.add_parser(verb, help=what)
        triage.add_argument("name", metavar="NAME", help="the alert")
        triage.add_argument("candidate", metavar="ID", help="the candidate's id (alerts show)")
        add_json_flag(triage)
        triage.set_defaults(func=cmd_triage, verb=verb)


def cmd_add(args: argparse.Namespace, ctx: CliContext) -> int:
    alert = ctx.library().alerts_add(
        args.name, collection=args.collection, search=args.search, sources=args.sources
    )
    if args.json:
        ctx.print_json(alert)
    else:
        ctx.print_line(f"alert {alert['name']} added: {_profile(alert)}, {alert['sources']}")
    return EXIT_OK


def _profile(alert: dict[str, Any]) -> str:
    if alert["collection"] is not None:
        return f"collection {alert['collection']}"
    return f"search {alert['search']!r}"


def cmd_run(args: argparse.Namespace, ctx: CliContext) -> int:
    reports = ctx.library().alerts_run(args.name, since=args.since, k=args.k, on_progress=ctx.log)
    failed = [r for r in reports if not r["ok"]]
    for report in failed:
        error = report["error"]
        ctx.error(f"alert {report['alert']}: error [{error['code']}]: {error['message']}")
    if args.json:
        ctx.print_json(reports)
    else:
        for report in reports:
            if report["ok"]:
                ctx.print_line(
                    f"{report['alert']}: {report['results']} result(s) from "
                    f"{report['candidates']} candidate(s)"
                )
            else:
                ctx.print_line(f"{report['alert']}: failed ({report['error']['source'] or '-'})")
            for note in report["notes"]:
                ctx.print_line(f"  note: {note}")
    return EXIT_ITEM_FAILED if failed else EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    alerts = ctx.library().alerts_list()
    if args.json:
        ctx.print_json(alerts)
        return EXIT_OK
    if not alerts:
        ctx.print_line("no alerts yet (prioris alerts add NAME --collection C --sources ...)")
    for alert in alerts:
        ctx.print_line(
            f"{alert['name']}: {_profile(alert)}; {alert['results']} result(s); last run "
            f"{alert['last_run'] or 'never'}"
        )
        ctx.print_line(f"  sources: {alert['sources']}")
        if alert["last_error"]:
            error = alert["last_error"]
            ctx.print_line(f"  last error [{error['code']}]: {error['message']}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    alert = ctx.library().alerts_show(args.name)
    if args.json:
        ctx.print_json(alert)
        return EXIT_OK
    ctx.print_line(f"{alert['name']}: {_profile(alert)}; last run {alert['last_run'] or 'never'}")
    for item in alert["results"]:
        mark = "  (in the library)" if item["in_library"] else ""
        ctx.print_line(
            f"  {item['place']:>3}. {item['score']:+.3f}  {item['id']}  {item['title']}{mark}"
        )
        near = "; ".join(n["title"] or n["id"] for n in item["why"].get("nearest", [])[:2])
        terms = ", ".join(t["term"] for t in item["why"].get("terms", []))
        ctx.print_line(f"         near: {near}" + (f" | terms: {terms}" if terms else ""))
    return EXIT_OK


def cmd_remove(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.library().alerts_remove(args.name)
    ctx.print_line(f"alert {args.name} removed")
    return EXIT_OK


def cmd_triage(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    if args.verb == "accept":
        ctx.log(f"fetching {args.candidate}")
        done = library.alerts_accept(args.name, args.candidate)
        line = f"accepted {args.candidate}: {done['status']} as {done['work_id']}"
    else:
        done = library.alerts_dismiss(args.name, args.candidate)
        line = f"dismissed {args.candidate}: not shown again for {args.name}"
    if args.json:
        ctx.print_json(done)
    else:
        ctx.print_line(line)
    return EXIT_OK
