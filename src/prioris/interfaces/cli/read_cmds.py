"""Commands that read the library: ``search``, ``list`` and ``show``. Each handler calls
the Library and renders text or JSON; it decides nothing.

``add_<command>(sub)`` adds one command's parser: :mod:`.library_cmds` calls them in the
order ``prioris --help`` lists them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError, PriorisError
from prioris.interfaces.cli.context import (
    EXIT_ITEM_FAILED,
    EXIT_OK,
    CliContext,
    add_json_flag,
    add_label_flags,
    log_unmatched_labels,
)
from prioris.interfaces.cli.render import plural, render_hits, search_summary
from prioris.models import display_title


def add_search(sub: Any) -> None:
    p = sub.add_parser("search", help="search the library (fts, vector or hybrid)")
    p.add_argument("query", nargs="?", help="what to look for (plain words by default)")
    p.add_argument(
        "--queries",
        type=Path,
        metavar="FILE.jsonl",
        help="run every query {_id|id, text} of a JSONL file, one JSON line out per query "
        "(default: the single QUERY)",
    )
    p.add_argument(
        "--mode",
        choices=("fts", "vector", "hybrid"),
        default="hybrid",
        help="fts (BM25 words), vector (meaning) or hybrid (both fused; default hybrid)",
    )
    p.add_argument("-k", type=int, default=10, metavar="N", help="number of hits (default 10)")
    p.add_argument("--chunks", action="store_true", help="return passages, not works")
    add_filter_flags(p)
    p.add_argument(
        "--syntax",
        choices=("plain", "fts5"),
        default="plain",
        help="plain words (default) or a raw FTS5 expression (fts mode)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_search)


def add_filter_flags(p: argparse.ArgumentParser) -> None:
    """The filters a search takes (source, years, ids, collections, tags): also evidence's."""
    p.add_argument(
        "--source",
        metavar="SOURCE",
        help="only works from this source: arxiv, europepmc, openalex, file, import "
        "(default: every source)",
    )
    p.add_argument(
        "--from-year",
        type=int,
        metavar="Y",
        help="only works published in Y or later (default: no lower bound)",
    )
    p.add_argument(
        "--to-year",
        type=int,
        metavar="Y",
        help="only works published in Y or earlier (default: no upper bound)",
    )
    p.add_argument(
        "--include-undated",
        action="store_true",
        help="with --from-year/--to-year, keep works without a year (default: left out, "
        "and counted)",
    )
    p.add_argument(
        "--id",
        action="append",
        dest="ids",
        metavar="ID",
        help="only this work; repeat for several (default: the whole library)",
    )
    add_label_flags(p)


def add_list(sub: Any) -> None:
    p = sub.add_parser("list", help="list the works in the library")
    p.add_argument(
        "--limit", type=int, metavar="N", help="list at most N works (default: all of them)"
    )
    p.add_argument(
        "--offset", type=int, default=0, metavar="N", help="skip the first N works (default 0)"
    )
    add_label_flags(p)
    add_json_flag(p)
    p.set_defaults(func=cmd_list)


def add_show(sub: Any) -> None:
    p = sub.add_parser(
        "show", help="show a work's record (each field's origin) and Markdown by page or offset"
    )
    p.add_argument("id", metavar="ID", help="a work id or any alias (DOI, arXiv id, PMCID, ...)")
    p.add_argument(
        "--page", type=int, metavar="N", help="only page N, from 1 (default: the whole work)"
    )
    p.add_argument(
        "--offset",
        type=int,
        metavar="CHARS",
        help="start this many characters in, e.g. a search hit's offset; counted within the "
        "page with --page (default 0)",
    )
    p.add_argument(
        "--limit",
        type=int,
        metavar="CHARS",
        help="at most this many characters (default: to the end of the work or page)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_show)


def filter_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The Library's filter arguments from :func:`add_filter_flags`' options."""
    return {
        "source": args.source,
        "from_year": args.from_year,
        "to_year": args.to_year,
        "ids": args.ids,
        "include_undated": args.include_undated,
        "collections": args.collections,
        "tags": args.tags,
    }


def _search_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "mode": args.mode,
        "k": args.k,
        "chunks": args.chunks,
        "syntax": args.syntax,
        **filter_kwargs(args),
    }


def cmd_search(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    if args.queries:
        if args.query:
            raise InvalidRequestError("give either QUERY or --queries, not both")
        failed = 0
        for line in library.read_jsonl(args.queries):
            item = line.value
            if isinstance(item, PriorisError):
                ctx.error(f"error [{item.code}]: {line.where}: {item.message}")
                failed += 1
                continue
            query_id = item.get("_id", item.get("id"))
            text = item.get("text", "")
            if not isinstance(text, str):
                ctx.error(f"error [invalid_request]: {line.where}: 'text' must be a string")
                failed += 1
                continue
            try:
                response = library.search(text, **_search_kwargs(args))
            except PriorisError as exc:
                ctx.error(f"error [{exc.code}]: query {query_id}: {exc.message}")
                failed += 1
                continue
            sys.stdout.write(
                json.dumps(
                    {
                        "query_id": query_id,
                        "took_ms": round(response.took_ms, 2),
                        "hits": [h.to_dict() for h in response.hits],
                        **(
                            {"left_out_no_year": response.left_out_no_year}
                            if response.left_out_no_year is not None
                            else {}
                        ),
                        **(
                            {"missing_shards": response.missing_shards}
                            if response.missing_shards
                            else {}
                        ),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        return EXIT_ITEM_FAILED if failed else EXIT_OK
    if not args.query:
        raise InvalidRequestError("search needs QUERY or --queries FILE.jsonl")
    response = library.search(args.query, **_search_kwargs(args))
    if response.missing_shards:  # a partial answer is never silent (stderr, even with -q)
        ctx.error(
            "warning: shards missing, their works are left out of these hits: "
            + ", ".join(response.missing_shards)
        )
    if args.json:
        ctx.print_json(response.to_dict())
        return EXIT_OK
    if not response.hits:
        ctx.print_line("no hits")
        log_unmatched_labels(args, ctx)
    paginated = library.paginated_works([hit.id for hit in response.hits])
    for line in render_hits(response.hits, paginated):
        ctx.print_line(line)
    ctx.log(search_summary(len(response.hits), response.took_ms, response.mode))
    if response.left_out_no_year:
        n = response.left_out_no_year
        ctx.log(
            f"{plural(n, 'work')} without a year left out by the year filter "
            "(--include-undated keeps them)"
        )
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    works = ctx.library().list_works(
        limit=args.limit, offset=args.offset, collections=args.collections, tags=args.tags
    )
    if args.json:
        ctx.print_json({"works": works, "count": len(works)})
        return EXIT_OK
    if not works:
        log_unmatched_labels(args, ctx)
    for work in works:
        authors = ", ".join(work["authors"][:2]) + (" et al." if len(work["authors"]) > 2 else "")
        ctx.print_line(
            f"{work['id']:<28} {work['year'] or ''!s:<4}  {display_title(work['title'])[:70]}"
            + (f"  — {authors}" if authors else "")
        )
    ctx.log(plural(len(works), "work"))
    return EXIT_OK


def note_lines(notes: list[dict[str, Any]]) -> list[str]:
    """The researcher's notes and highlights, one block each, under a heading."""
    if not notes:
        return []
    lines = ["", f"Your notes and highlights ({len(notes)}):"]
    for note in notes:
        where = note["page_label"] or (str(note["page"]) if note["page"] else "")
        label = "highlight" if note["section"] == "highlight" else note["kind"]
        head = f"  [{label}{', p. ' + where if where else ''}]"
        text = " ".join(str(note["text"]).split())
        lines.append(f"{head} {text}" if text else head)
        if note["comment"]:
            lines.append(f"      comment: {' '.join(str(note['comment']).split())}")
    return lines


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    from prioris.interfaces.cli.citation_cmds import reference_lines
    from prioris.interfaces.cli.edit_cmds import record_lines

    library = ctx.library()
    view = library.show(args.id, page=args.page, offset=args.offset, limit=args.limit)
    record = library.work_fields(view["id"])  # each field with its origin
    notes = library.notes(view["id"])
    labels = library.labels(view["id"])  # its collections and tags, every source's
    references = library.references(view["id"])  # read from its text, linked ones marked
    if args.json:
        ctx.print_json(
            {
                **view,
                "record": record,
                "origins": record["origins"],
                **labels,
                "notes": notes,
                "references": references,
            }
        )
    else:
        if args.page is None and args.offset is None and args.limit is None:
            for line in record_lines(record):  # the whole work: its record first
                ctx.print_line(line)
            for name, values in labels.items():
                if values:
                    ctx.print_line(f"{name}: {'; '.join(values)}")
            for line in note_lines(notes):
                ctx.print_line(line)
            for line in reference_lines(references):
                ctx.print_line(line)
            ctx.print_line()
        ctx.print_line(view["markdown"])
        if view["has_more"]:
            ctx.log(f"… more from --offset {view['next_offset']} (of {view['total_length']})")
    return EXIT_OK
