"""``prioris alerts digest``: the day's alerts by e-mail, for the cron job after ``alerts
run``.

One call of ``Library.alerts_digest``: the alerts run in the last 24 hours (or ``--since``)
with their candidates not in the library, and the alerts whose last run failed, mailed
through the SMTP server of the settings (PRIORIS_MCP_SMTP_*) to ``--to`` or
PRIORIS_MCP_SMTP_TO. Nothing new: no mail (``--always`` sends one that says so).
``--dry-run`` prints the plain-text part instead of sending, and needs no server.
"""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag


def register_digest(actions: Any) -> None:
    """Add ``digest`` to ``prioris alerts``."""
    digest = actions.add_parser(
        "digest", help="mail the day's new candidates of every alert (after alerts run)"
    )
    digest.add_argument(
        "--to",
        action="append",
        metavar="ADDR",
        help="a recipient; repeat for several (default: PRIORIS_MCP_SMTP_TO)",
    )
    digest.add_argument(
        "--since",
        metavar="DATE",
        help="alerts run since this day or ISO moment (default: the last 24 hours)",
    )
    digest.add_argument(
        "--dry-run", action="store_true", help="print the digest instead of sending it"
    )
    digest.add_argument(
        "--always", action="store_true", help="send even when nothing is new (it says so)"
    )
    add_json_flag(digest)
    digest.set_defaults(func=cmd_digest)


def cmd_digest(args: argparse.Namespace, ctx: CliContext) -> int:
    report = ctx.library().alerts_digest(
        to=args.to, since=args.since, dry_run=args.dry_run, always=args.always
    )
    if args.json:
        ctx.print_json(report)
        return EXIT_OK
    if args.dry_run and report["text"]:
        for line in report["text"].splitlines():
            ctx.print_line(line)
    if report["sent"]:
        ctx.log(f"digest sent to {', '.join(report['to'])}: {report['subject']}")
    elif not report["text"]:
        ctx.log("nothing new since the last 24 hours (or --since): no mail sent")
    return EXIT_OK
