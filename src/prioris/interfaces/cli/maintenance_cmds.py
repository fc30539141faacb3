"""Commands that look after the library: ``delete``, ``status`` and ``reindex`` (with
``--clean-text``, the text cleaning of stored works).

``add_<command>(sub)`` adds one command's parser: :mod:`.library_cmds` calls them in the
order ``prioris --help`` lists them."""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import (
    EXIT_ITEM_FAILED,
    EXIT_OK,
    CliContext,
    add_cluster_option,
    add_json_flag,
    use_cluster,
)
from prioris.interfaces.cli.progress import Follower, bar, wants_progress
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
    p.add_argument(
        "--clean-text",
        action="store_true",
        help="first clean every stored work's text and fields (control characters, TeX "
        "accents, ligatures) and re-chunk what changed; no download, no re-parse",
    )
    p.add_argument(
        "--references",
        action="store_true",
        help="first read every stored work's reference list again from its stored text "
        "and link it to the works of the library (resumable; no download, no re-parse)",
    )
    p.add_argument(
        "--postings",
        action="store_true",
        help="PostgreSQL: first rebuild the BM25 postings table plain queries are ranked "
        "from (a searching process otherwise builds it in the background)",
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="SQLite: first pack the passage text and work vectors an earlier release "
        "stored unpacked (about half the room) and give the freed space back to the disk "
        "(resumable)",
    )
    p.add_argument(
        "--openalex-cache",
        action="store_true",
        help="first drop the cached OpenAlex answers older than PRIORIS_MCP_OPENALEX_CACHE_DAYS "
        "and, past PRIORIS_MCP_OPENALEX_CACHE_MAX_BYTES, the oldest (writes do it as they go)",
    )
    add_cluster_option(p)
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
        advice = status.pop("suggestions", None) or []
        width = max(len(k) for k in status)
        for key, value in status.items():
            if key == "replicas":  # one line each: where, how far behind, serving or not
                for replica in value:
                    lag = "?" if replica["lag_s"] is None else f"{replica['lag_s']:g} s"
                    line = f"{replica['url']}  lag {lag}  {replica['state']}"
                    ctx.print_line(f"{'replica':<{width}}  {line}")
                continue
            if key == "shards":  # one line each: where, what it holds, up or down
                for shard in value:
                    held = f"{shard['works']} works  {shard['passages']} passages"
                    line = f"{shard['url']}  {held if shard['up'] else 'DOWN'}"
                    ctx.print_line(f"{'shard':<{width}}  {line}")
                continue
            ctx.print_line(f"{key:<{width}}  {value}")
        for line in advice:
            ctx.print_line(f"hint: {line}")
    return EXIT_OK


def _clean_text(library: Any, json_output: bool) -> dict[str, Any]:
    """``reindex --clean-text``: the stored works cleaned, a bar on stderr counting works."""
    progress = bar(library.status()["works"], "work", "clean text", wants_progress(json_output))
    try:
        return dict(library.clean_stored_text(on_progress=Follower(progress)).to_dict())
    finally:
        progress.close()


def _references(library: Any, json_output: bool) -> dict[str, Any]:
    """``reindex --references``: every work's list read again, a bar on stderr."""
    progress = bar(library.status()["works"], "work", "references", wants_progress(json_output))
    try:
        return dict(library.reread_references(on_progress=Follower(progress)))
    finally:
        progress.close()


def _compact(library: Any, json_output: bool) -> dict[str, Any]:
    """``reindex --compact``: stored passages packed, a bar on stderr counting them (its
    total is the passages still unpacked, which the library counts first)."""
    progress = bar(None, "passage", "compact", wants_progress(json_output))
    follow = Follower(progress)

    def on_progress(done: int, total: int) -> None:
        if follow.done == 0:
            progress.reset(total=total)
        follow(done, total)

    try:
        return dict(library.compact(on_progress=on_progress))
    finally:
        progress.close()


def cmd_reindex(args: argparse.Namespace, ctx: CliContext) -> int:
    use_cluster(args, ctx)
    library = ctx.library()
    compacted = _compact(library, args.json) if getattr(args, "compact", False) else None
    if compacted is not None and not args.json:
        after, before = (compacted[key] / (1 << 20) for key in ("bytes_after", "bytes_before"))
        ctx.print_line(
            f"packed {plural(compacted['packed'], 'passage')} and "
            f"{plural(compacted['work_vectors'], 'work vector')}; the library takes "
            f"{after:,.1f} MiB (was {before:,.1f})"
        )
    cleaned = _clean_text(library, args.json) if args.clean_text else None
    if cleaned is not None and not args.json:
        ctx.print_line(
            f"cleaned the text of {plural(cleaned['cleaned'], 'work')} of {cleaned['works']} "
            f"({plural(cleaned['chunks'], 'passage')} re-chunked and re-embedded)"
        )
    references = _references(library, args.json) if args.references else None
    if references is not None and not args.json:
        ctx.print_line(
            f"read the references of {plural(references['works'], 'work')} again"
            f"{' (resumed)' if references['resumed'] else ''}: "
            f"{plural(references['references'], 'reference')}, "
            f"{references['linked']} linked to works of your library"
        )
    pruned = library.clean_openalex_cache() if getattr(args, "openalex_cache", False) else None
    if pruned is not None and not args.json:
        ctx.print_line(
            f"OpenAlex cache: dropped {plural(pruned['expired'], 'expired answer')} and "
            f"{plural(pruned['evicted'], 'answer')} past its size bound; "
            f"{plural(pruned['entries'], 'answer')} ({pruned['bytes'] / (1 << 20):,.1f} MiB) kept"
        )
    postings = library.build_postings() if getattr(args, "postings", False) else None
    if not args.json and getattr(args, "postings", False):
        if postings is None:
            ctx.print_line("no postings table on SQLite: its sidecar is built by searches")
        elif not postings["built"]:
            ctx.print_line("postings not rebuilt: another process is building them")
        else:
            ctx.print_line(
                f"rebuilt the BM25 postings of {plural(postings['rows'], 'chunk')} "
                f"({postings['terms']} terms) in {postings['seconds']:.1f} s"
            )
    status = library.status()
    total = status["stale_chunks"] + status["stale_works"]  # then the works' own vectors
    progress = bar(total, "vector", "reindex", wants_progress(args.json))
    on_progress = Follower(progress)

    try:
        done = library.reindex(on_progress=on_progress)
    finally:
        progress.close()
    works = on_progress.done - done  # progress counts the chunks, then the works
    model = library.embedder.model_id
    if args.json:
        out: dict[str, Any] = {"reindexed": done, "work_vectors": works, "model": model}
        if compacted is not None:
            out["compact"] = compacted
        if cleaned is not None:
            out["clean_text"] = cleaned
        if references is not None:
            out["references"] = references
        if getattr(args, "postings", False):
            out["postings"] = postings
        if pruned is not None:
            out["openalex_cache"] = pruned
        ctx.print_json(out)
    else:
        ctx.print_line(
            f"re-embedded {plural(done, 'chunk')} and {plural(works, 'work vector')} with {model}"
        )
    return EXIT_OK
