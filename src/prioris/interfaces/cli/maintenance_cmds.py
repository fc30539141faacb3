"""Commands that look after the library: ``delete``, ``status`` and ``reindex``.

``add_<command>(sub)`` adds one command's parser: :mod:`.library_cmds` calls them in the
order ``prioris --help`` lists them."""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_ITEM_FAILED, EXIT_OK, CliContext, add_json_flag
from prioris.interfaces.cli.progress import bar, wants_progress
from prioris.interfaces.cli.render import plural


def add_delete(sub: Any) -> None:
    p = sub.add_parser("delete", help="remove works from the library and every index")
    p.add_argument("ids", nargs="+", metavar="ID", help="work ids or aliases to remove")
    add_json_flag(p)
    p.set_defaults(func=cmd_delete)


def add_status(sub: Any) -> None:
    p = sub.add_parser("status", help="counts, model and index state")
    add_json_flag(p)
    p.set_defaults(func=cmd_status)


def add_reindex(sub: Any) -> None:
    p = sub.add_parser("reindex", help="re-embed chunks made stale by a model change")
    add_json_flag(p)
    p.set_defaults(func=cmd_reindex)


def cmd_delete(args: argparse.Namespace, ctx: CliContext) -> int:
    deleted, failed = ctx.library().delete_each(args.ids)
    if args.json:
        ctx.print_json({"deleted": deleted, "failed": failed})
    else:
        for work_id in deleted:
            ctx.print_line(f"deleted {work_id}")
        for failure in failed:
            error = failure["error"]
            ctx.error(f"error [{error['code']}]: {error['message']}")
    return EXIT_ITEM_FAILED if failed else EXIT_OK


def cmd_status(args: argparse.Namespace, ctx: CliContext) -> int:
    status = ctx.library().status()
    if args.json:
        ctx.print_json(status)
    else:
        width = max(len(k) for k in status)
        for key, value in status.items():
            ctx.print_line(f"{key:<{width}}  {value}")
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    status = library.status()
    total = status["stale_chunks"] + status["stale_works"]  # then the works' own vectors
    progress = bar(total, "vector", "reindex", wants_progress(args.json))
    last = 0

    def on_progress(done: int, _total: int) -> None:
        nonlocal last
        progress.update(done - last)
        last = done

    try:
        done = library.reindex(on_progress=on_progress)
    finally:
        progress.close()
    works = last - done  # progress counts the chunks, then the works
    model = library.embedder.model_id
    if args.json:
        ctx.print_json({"reindexed": done, "work_vectors": works, "model": model})
    else:
        ctx.print_line(
            f"re-embedded {plural(done, 'chunk')} and {plural(works, 'work vector')} with {model}"
        )
    return EXIT_OK
