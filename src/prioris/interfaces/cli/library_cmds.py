"""The commands over the local library, registered in the order ``prioris --help`` lists
them; each lives with the others of its job (:mod:`.ingest_cmds` adds works,
:mod:`.read_cmds` reads them, :mod:`.maintenance_cmds` looks after the library). ``demo``
is here: its code is in :mod:`.demo`, imported only when it runs (it loads PyMuPDF)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from prioris.interfaces.cli import (
    edit_cmds,
    evidence_cmds,
    ingest_cmds,
    maintenance_cmds,
    read_cmds,
)
from prioris.interfaces.cli.context import CliContext


def register(sub: Any) -> None:
    """Add every local-library command to ``sub``, in the order help lists them."""
    ingest_cmds.add_ingest(sub)
    ingest_cmds.add_import(sub)
    read_cmds.add_search(sub)
    evidence_cmds.register(sub)
    read_cmds.add_list(sub)
    read_cmds.add_show(sub)
    edit_cmds.add_edit(sub)
    maintenance_cmds.add_delete(sub)
    maintenance_cmds.add_status(sub)
    maintenance_cmds.add_reindex(sub)
    ingest_cmds.add_fetch(sub)
    add_demo(sub)


def add_demo(sub: Any) -> None:
    p = sub.add_parser("demo", help="the main job on generated PDFs (one scanned) in a temp dir")
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build the demo library in DIR and keep it, to search it afterwards with "
        "--data-dir DIR (default: a temporary folder, deleted at the end)",
    )
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace, ctx: CliContext) -> int:
    from prioris.interfaces.cli.demo import run_demo

    return run_demo(ctx, keep=args.keep)
