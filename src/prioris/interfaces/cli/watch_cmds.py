"""``prioris watch``: ingest PDFs dropped into folders, and re-sync Zotero, until stopped.

The watching is :meth:`Library.watch` (:mod:`prioris.services.watching`); this module
parses the options, turns Ctrl-C and SIGTERM into a clean stop, and prints each action:
a line on stderr, or with ``--json`` one JSON object per line on stdout (for a log
collector). The first Ctrl-C or SIGTERM stops after the file being ingested (exit 0, the
way one stops a watcher, as ``prioris ui`` does); a second one stops at once (exit 130).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag
from prioris.interfaces.cli.render import plural

MAX_SETTLE_SECONDS = 3600.0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "watch",
        help="ingest PDFs as they appear in folders (and re-sync Zotero), until stopped",
        description="Watch folders (recursively) and ingest each PDF once it has stopped "
        "growing; files whose content is stored already (moved, renamed, copied) are "
        "skipped without parsing; partial downloads and hidden files are ignored. Runs "
        "until Ctrl-C or SIGTERM; docs/usage.md shows a systemd user unit for it.",
    )
    p.add_argument("folders", nargs="+", metavar="DIR", help="folders to watch")
    p.add_argument(
        "--zotero",
        action="store_true",
        help="also re-sync Zotero's library (as `prioris zotero sync`) when its database "
        "changes, and once at start (default: off)",
    )
    p.add_argument(
        "--zotero-dir",
        type=Path,
        metavar="DIR",
        help="Zotero's data directory, the folder holding zotero.sqlite (implies --zotero; "
        "default: ~/Zotero)",
    )
    p.add_argument(
        "--settle",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a file's size and time must stay the same before it is read (default: 1.5)",
    )
    p.add_argument(
        "--no-initial-scan",
        action="store_true",
        help="do not ingest the PDFs already in the folders at start (nor sync Zotero at "
        "start); only what changes from now on (default: scan)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_watch)


def _settle(value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and 0 <= value <= MAX_SETTLE_SECONDS):
        raise InvalidRequestError(
            f"prioris watch: --settle must be between 0 and {MAX_SETTLE_SECONDS:g} seconds"
        )
    return value


def action_line(action: Any) -> str:
    """One action as a line for a person (stderr)."""
    data = action.to_dict()
    kind, path = data["action"], data["path"]
    if kind == "failed":
        error = data["error"]
        return f"failed   {path}  error [{error['code']}]: {error['message']}"
    if kind == "skipped":
        return f"skipped  {path}  ({data.get('reason')}; {data.get('id')})"
    if kind == "folder_gone":
        return f"gone     {path}  (the watched folder is gone; watching for it to come back)"
    if kind == "folder_back":
        return f"back     {path}  (the watched folder is back: scanned and watched again)"
    if kind == "synced":
        counts = ", ".join(
            f"{data[key]} {key}"
            for key in ("added", "updated", "removed", "unchanged", "failed")
            if isinstance(data.get(key), int)
        )
        return f"synced   {path}" + (f"  ({counts})" if counts else "")
    ocr = f" ({data['ocr_pages']} by OCR)" if data.get("ocr_pages") else ""
    return (
        f"ingested {path}  {data.get('id')}  {plural(data.get('pages', 0), 'page')}{ocr}, "
        f"{plural(data.get('chunks', 0), 'chunk')}"
    )


@contextlib.contextmanager
def stop_on_signals(stop: threading.Event, ctx: CliContext) -> Iterator[None]:
    """SIGINT and SIGTERM set ``stop`` (the watcher finishes the file it is on); a second
    one raises KeyboardInterrupt, which the CLI turns into exit 130. Outside the main
    thread (tests calling ``main`` in a thread) nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        ctx.log("stopping after the current file (again to stop at once)")

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def cmd_watch(args: argparse.Namespace, ctx: CliContext) -> int:
    settle = _settle(args.settle)
    zotero = args.zotero or args.zotero_dir is not None
    from prioris.library import Library

    Library.check_watch_folders(args.folders)  # a mistyped folder starts no library
    library = ctx.library()
    stop = threading.Event()

    def on_action(action: Any) -> None:
        if action.action == "folder_gone":  # said on stderr even with --json or -q
            ctx.error(action_line(action))
        elif action.action == "folder_back":
            ctx.log(action_line(action))
        if args.json:
            ctx.print_json(action.to_dict())
        elif action.action == "failed":
            ctx.error(action_line(action))
        elif not action.action.startswith("folder_"):
            ctx.log(action_line(action))

    def on_ready() -> None:  # from now on nothing dropped in is missed
        where = ", ".join(str(f) for f in args.folders)
        ctx.log(f"watching {where}" + (" and Zotero" if zotero else "") + " (Ctrl-C stops)")

    with stop_on_signals(stop, ctx):
        stats = library.watch(
            args.folders,
            stop=stop,
            on_action=on_action,
            on_ready=on_ready,
            settle_seconds=settle,
            initial_scan=not args.no_initial_scan,
            zotero=zotero,
            zotero_dir=args.zotero_dir,
        )
    counts = stats.to_dict()
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if k != "synced" or zotero)
    ctx.log(f"stopped: {summary}")
    return EXIT_OK
