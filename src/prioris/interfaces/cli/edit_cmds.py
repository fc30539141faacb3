"""``prioris edit``: correct a work's record, see its history, undo an edit.

The options build one patch ``{field: value}`` (``--patch -`` reads it as JSON from
stdin, ``null`` clearing a field) and hand it to :meth:`Library.edit_work`; the checks
(unknown field, bad year, empty title, an id another work holds) are the Library's, so
the CLI, MCP and web refuse the same things with the same messages.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag
from prioris.provenance import FIELDS

# option -> field, for the options that take one value
_OPTIONS = {
    "title": "title",
    "year": "year",
    "date": "published",
    "venue": "venue",
    "volume": "volume",
    "issue": "issue",
    "pages": "pages",
    "publisher": "publisher",
    "type": "type",
    "doi": "doi",
    "arxiv": "arxiv",
    "pmid": "pmid",
    "pmcid": "pmcid",
    "openalex": "openalex",
    "abstract": "abstract",
}
_CLEARABLE = (*FIELDS, "date")
_VALUE_OPTIONS = (
    ("title", "TEXT", "the title"),
    ("year", "YYYY", "the year of publication"),
    ("date", "YYYY[-MM[-DD]]", "the publication date"),
    ("venue", "TEXT", "journal, proceedings or series"),
    ("volume", "TEXT", "volume"),
    ("issue", "TEXT", "issue or number"),
    ("pages", "TEXT", "pages, e.g. 101-117 or e1234"),
    ("publisher", "TEXT", "publisher"),
    ("type", "TYPE", "entry type: article, proceedings-article, book, dissertation, report, ..."),
    ("doi", "DOI", "the DOI (other works' DOIs are refused)"),
    ("arxiv", "ID", "the arXiv id, with or without version"),
    ("pmid", "ID", "the PubMed id"),
    ("pmcid", "PMCID", "the PubMed Central id"),
    ("openalex", "W…", "the OpenAlex id"),
    ("abstract", "TEXT", "the abstract"),
)


def add_edit(sub: Any) -> None:
    p = sub.add_parser(
        "edit",
        help="correct a work's record (title, authors, year, ...); undo; history",
        description="Correct fields of a work. Your values win over what the PDF printed, "
        "its embedded metadata and every provider, and survive re-ingest, --force, enrich, "
        "reindex and migrate-to. Each edit can be undone (newest first).",
    )
    p.add_argument("id", metavar="ID", help="a work id or any alias (DOI, arXiv id, PMCID, ...)")
    for option, metavar, what in _VALUE_OPTIONS:
        p.add_argument(f"--{option}", metavar=metavar, help=f"{what} (default: unchanged)")
    p.add_argument(
        "--author",
        action="append",
        metavar="NAME",
        help="an author; repeat in order for all of them, the list replaces the stored one "
        "(default: unchanged)",
    )
    p.add_argument(
        "--keyword",
        action="append",
        metavar="WORD",
        help="a keyword; repeat for several, the list replaces the stored one (default: unchanged)",
    )
    p.add_argument(
        "--clear",
        action="append",
        metavar="FIELD",
        choices=_CLEARABLE,
        help="empty a field (repeatable); it stays empty whatever a source says (default: none)",
    )
    p.add_argument(
        "--patch",
        metavar="-",
        help="read the changes as a JSON object from stdin ('-'): "
        '{"title": "...", "authors": ["..."], "year": null}; null clears a field; options '
        "given beside it win (default: no patch)",
    )
    p.add_argument("--undo", action="store_true", help="take back the newest edit")
    p.add_argument("--history", action="store_true", help="list the edits, newest first")
    add_json_flag(p)
    p.set_defaults(func=cmd_edit)


def _patch(args: argparse.Namespace) -> dict[str, Any]:
    """The changes the options name (stdin's JSON first, the options over it)."""
    patch: dict[str, Any] = {}
    if args.patch is not None:
        if args.patch != "-":
            raise InvalidRequestError("--patch reads from stdin: give --patch -")
        try:
            data = json.loads(sys.stdin.read())
        except json.JSONDecodeError as exc:
            raise InvalidRequestError(f"--patch: stdin is not JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise InvalidRequestError("--patch: stdin must hold a JSON object {field: value}")
        patch.update(data)
    for option, name in _OPTIONS.items():
        value = getattr(args, option)
        if value is not None:
            patch[name] = value
    if args.author is not None:
        patch["authors"] = args.author
    if args.keyword is not None:
        patch["keywords"] = args.keyword
    for name in args.clear or []:
        name = "published" if name == "date" else name
        if name in patch:
            raise InvalidRequestError(f"--clear {name} and a value for {name}: give one")
        patch[name] = None
    return patch


def cmd_edit(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    patch = _patch(args)
    if sum(bool(x) for x in (args.undo, args.history, patch)) > 1:
        raise InvalidRequestError("give changes, --undo or --history, one at a time")
    if args.history:
        history = library.edit_history(args.id)
        if args.json:
            ctx.print_json(history)
        elif not history:
            ctx.log(f"{library.resolve_work_id(args.id)} has no edits")
        for edit in [] if args.json else history:
            changes = ", ".join(
                f"{name}: {_shown(edit['previous'].get(name))} -> {_shown(value)}"
                for name, value in edit["changes"].items()
            )
            ctx.print_line(f"{edit['edited_at']}  {changes}")
        return EXIT_OK
    if args.undo:
        work = library.undo_edit(args.id)
        ctx.log(f"undid the newest edit of {work.id}")
    elif patch:
        work = library.edit_work(args.id, patch)
    else:
        work = library.get_work(args.id)  # no changes: show the record with its origins
    view = library.work_fields(work.id)
    if args.json:
        ctx.print_json(view)
    else:
        for line in record_lines(view):
            ctx.print_line(line)
    return EXIT_OK


def _shown(value: Any) -> str:
    if value is None or value == []:
        return "(empty)"
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def record_lines(view: dict[str, Any]) -> list[str]:
    """A record as aligned ``field  value  [origin]`` lines (``show`` and ``edit``)."""
    lines = [f"{'id':<10} {view['id']}"]
    for name in FIELDS:
        value = view.get(name)
        if value is None or value == []:
            continue
        origin = view["origins"].get(name)
        lines.append(f"{name:<10} {_shown(value)}" + (f"  [{origin}]" if origin else ""))
    return lines
