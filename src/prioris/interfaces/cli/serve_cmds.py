"""``prioris serve``: run the MCP server on stdio (for desktop clients) or streamable HTTP."""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_OK, CliContext


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the MCP server (stdio for MCP clients, or streamable HTTP on localhost)",
        description="Serve the library to MCP clients. stdio is what Claude Desktop, Claude "
        "Code or Cursor launch; http serves http://HOST:PORT/mcp (127.0.0.1 by default, CORS "
        "for localhost origins plus PRIORIS_MCP_CORS_ORIGINS).",
    )
    p.add_argument(
        "--transport",
        choices=("stdio", "http"),
        help="stdio (default) or http (env PRIORIS_MCP_TRANSPORT)",
    )
    p.add_argument("--host", help="HTTP bind address (default 127.0.0.1, env PRIORIS_MCP_HOST)")
    p.add_argument("--port", type=int, help="HTTP port (default 8000, env PRIORIS_MCP_PORT)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="confirm a --host other than loopback; requests then need a bearer token "
        "(env PRIORIS_MCP_HTTP_ALLOW_REMOTE, token PRIORIS_MCP_HTTP_TOKEN; docs/security.md)",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace, ctx: CliContext) -> int:
    from prioris.interfaces.mcp_server import serve

    serve(ctx.settings, args.transport, args.host, args.port, allow_remote=args.allow_remote)
    return EXIT_OK
