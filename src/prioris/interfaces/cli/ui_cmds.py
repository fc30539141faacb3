"""``prioris ui``: the local web app on 127.0.0.1 (search, read, add, discover, status)."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from prioris.interfaces.cli.context import EXIT_OK, CliContext


def register(sub: Any) -> None:
    p = sub.add_parser(
        "ui",
        help="the local web app in your browser (search, read at page, add, discover, status)",
        description="Serve the web app on http://127.0.0.1:PORT/ over the same library and "
        "settings as the other commands, and open it in the browser. Only this machine can "
        "reach it; Ctrl-C stops it.",
    )
    p.add_argument("--port", type=int, help="port (default 8765, env PRIORIS_MCP_UI_PORT)")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="serve to other machines: needs accounts (prioris users add), every request "
        "then needs a login; any --host other than loopback needs it (docs/security.md)",
    )
    p.add_argument(
        "--no-browser", action="store_true", help="do not open a browser window, only serve"
    )
    p.set_defaults(func=cmd_ui)


def cmd_ui(args: argparse.Namespace, ctx: CliContext) -> int:
    from prioris.interfaces.web import serve

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how one stops it
        serve(
            ctx.settings,
            args.port,
            open_browser=not args.no_browser,
            log_line=ctx.log,
            host=args.host,
            allow_remote=args.allow_remote,
        )
    return EXIT_OK
