"""``prioris migrate-to TARGET``: copy the library to PostgreSQL or back to an SQLite file."""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_OK, CliContext
from prioris.interfaces.cli.progress import bar, wants_progress


def register(sub: Any) -> None:
    p = sub.add_parser(
        "migrate-to",
        help="copy the library (vectors included) to a postgresql:// URL or an SQLite file",
    )
    p.add_argument("target", metavar="TARGET", help="postgresql://… URL or a new SQLite file")
    p.add_argument(
        "--shards",
        metavar="URL,URL",
        default="",
        help="the target is the primary of a library spread over these postgresql:// "
        "servers (each work copied to its shard); a sharded library is copied back to one "
        "server by naming none (default: none, a one-server target)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_migrate_to)


def shard_urls(text: str) -> tuple[str, ...]:
    """``--shards``: comma-separated postgresql:// URLs, read as PRIORIS_MCP_DB_SHARDS is."""
    from prioris.config.database import postgres_urls

    return postgres_urls({"PRIORIS_MCP_DB_SHARDS": text}, "PRIORIS_MCP_DB_SHARDS")


def cmd_migrate_to(args: argparse.Namespace, ctx: CliContext) -> int:
    from prioris.library import migrate_library

    progress = None
    last = 0

    def on_progress(done: int, total: int) -> None:
        nonlocal progress, last
        if progress is None:
            progress = bar(total, "work", "copy", wants_progress(args.json))
        progress.update(done - last)
        last = done

    try:
        report = migrate_library(
            ctx.settings,
            args.target,
            on_progress=on_progress,
            target_shards=shard_urls(args.shards),
        )
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        ctx.print_json(report)
    else:
        ctx.print_line(
            f"copied {report['works']} works ({report['chunks']} chunks, {report['vectors']} "
            f"vectors) from {report['source']} to {report['target']}"
            + (f"; {report['skipped']} were already there" if report["skipped"] else "")
        )
    return EXIT_OK
