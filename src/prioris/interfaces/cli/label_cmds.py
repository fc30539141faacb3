"""``prioris collection ...`` and ``prioris tag ...``: collections and tags made in Prioris.

The works are given as ids (any form the library resolves: id, DOI, arXiv id, ...) or
picked by ``--search "QUERY"`` (its ``-k`` best works). What may change and how a name
finds its collection are the Library's rules (:mod:`prioris.storage.user_labels`); this
only parses and prints.
"""

from __future__ import annotations

import argparse
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag


def register(sub: Any) -> None:
    """Add ``collection`` and ``tag``."""
    p = sub.add_parser(
        "collection",
        help="make collections and put works in them: create, rename, delete, list, add, remove",
        description="Collections made in Prioris live beside the ones Zotero or a BibTeX "
        "file gave; a re-sync never removes what you add here.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="make a collection")
    create.add_argument("name", metavar="NAME", help="its name, or a path 'A / B'")
    create.add_argument(
        "--parent", metavar="P", help="make it a subcollection of P (default: top level)"
    )
    add_json_flag(create)
    create.set_defaults(func=cmd_create)
    rename = actions.add_parser("rename", help="rename a collection (its works follow)")
    rename.add_argument("old", metavar="OLD", help="the collection (its path or last name)")
    rename.add_argument("new", metavar="NEW", help="its new name, or a new path 'A / B' to move it")
    add_json_flag(rename)
    rename.set_defaults(func=cmd_rename)
    delete = actions.add_parser("delete", help="delete a collection (its works stay)")
    delete.add_argument("name", metavar="NAME", help="the collection (its path or last name)")
    add_json_flag(delete)
    delete.set_defaults(func=cmd_delete)
    listing = actions.add_parser("list", help="every collection, with its works and origins")
    add_json_flag(listing)
    listing.set_defaults(func=cmd_list)
    for name, helptext, func in (
        ("add", "put works in a collection", cmd_add),
        ("remove", "take works out of a collection", cmd_remove),
    ):
        q = actions.add_parser(name, help=helptext)
        q.add_argument("name", metavar="NAME", help="the collection (its path or last name)")
        _add_works(q)
        q.set_defaults(func=func)

    t = sub.add_parser("tag", help="tag works or untag them: add, remove")
    tag_actions = t.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, helptext, func in (
        ("add", "give works a tag", cmd_tag_add),
        ("remove", "take a tag from works", cmd_tag_remove),
    ):
        q = tag_actions.add_parser(name, help=helptext)
        q.add_argument("tag", metavar="TAG", help="the tag (any case)")
        _add_works(q)
        q.set_defaults(func=func)


def _add_works(parser: argparse.ArgumentParser) -> None:
    """IDS, or ``--search QUERY -k N --mode M``."""
    parser.add_argument(
        "ids", nargs="*", metavar="IDS", help="work ids or any alias (DOI, arXiv id, ...)"
    )
    parser.add_argument(
        "--search", metavar="QUERY", help="the works a search finds instead of IDS (default: none)"
    )
    parser.add_argument(
        "-k", type=int, default=10, metavar="N", help="with --search: its N best works (default 10)"
    )
    parser.add_argument(
        "--mode",
        choices=("fts", "vector", "hybrid"),
        default="hybrid",
        help="with --search: fts, vector or hybrid (default hybrid)",
    )
    add_json_flag(parser)


def _works(args: argparse.Namespace) -> dict[str, Any]:
    if args.ids and args.search:
        raise InvalidRequestError("give IDS or --search, not both")
    return {"ids": args.ids or None, "search": args.search, "k": args.k, "mode": args.mode}


def _report(ctx: CliContext, args: argparse.Namespace, result: dict[str, Any], done: str) -> int:
    """A change's result: JSON, or one line and the works a reference manager keeps."""
    if args.json:
        ctx.print_json(result)
        return EXIT_OK
    ctx.print_line(done)
    for kept in result.get("kept", []):
        ctx.print_line(
            f"  {kept['id']}: kept, it comes from {', '.join(kept['origins'])} (change it there)"
        )
    return EXIT_OK


def _ids(values: list[str]) -> str:
    return ", ".join(values[:10]) + (f" and {len(values) - 10} more" if len(values) > 10 else "")


def cmd_create(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().create_collection(args.name, parent=args.parent)
    return _report(ctx, args, result, f"created collection {result['collection']!r}")


def cmd_rename(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().rename_collection(args.old, args.new)
    return _report(
        ctx, args, result, f"renamed {result['collection']!r} to {result['renamed_to']!r}"
    )


def cmd_delete(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().delete_collection(args.name)
    done = f"deleted collection {result['collection']!r} ({result['works']} work(s) kept)"
    return _report(ctx, args, result, done)


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    found = ctx.library().list_collections()
    if args.json:
        ctx.print_json({"collections": found, "count": len(found)})
        return EXIT_OK
    for row in found:
        ctx.print_line(f"{row['works']:>6}  {row['path']}  ({', '.join(row['origins'])})")
    if not found:
        ctx.log("no collections yet (`prioris collection create NAME` makes one)")
    return EXIT_OK


def cmd_add(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().add_to_collection(args.name, **_works(args))
    done = f"{result['collection']}: {len(result['added'])} work(s) added"
    if result["added"]:
        done += f" ({_ids(result['added'])})"
    if result["already"]:
        done += f", {len(result['already'])} already in it"
    return _report(ctx, args, result, done)


def _removed_line(what: str, result: dict[str, Any]) -> str:
    done = f"{what}: {len(result['removed'])} work(s) removed"
    if result["removed"]:
        done += f" ({_ids(result['removed'])})"
    if result["absent"]:
        done += f", {len(result['absent'])} did not have it"
    return done


def cmd_remove(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().remove_from_collection(args.name, **_works(args))
    return _report(ctx, args, result, _removed_line(result["collection"], result))


def cmd_tag_add(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().add_tag(args.tag, **_works(args))
    done = f"#{result['tag']}: {len(result['added'])} work(s) tagged"
    if result["added"]:
        done += f" ({_ids(result['added'])})"
    if result["already"]:
        done += f", {len(result['already'])} had it already"
    return _report(ctx, args, result, done)


def cmd_tag_remove(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.library().remove_tag(args.tag, **_works(args))
    return _report(ctx, args, result, _removed_line(f"#{result['tag']}", result))
