"""CLI commands ``arxiv search`` and ``europepmc search``: remote keyword search, nothing stored.

``--json`` prints ``{"total", "results": [{"id", "title", "authors", "year", ...}], "next"}``
where ``next`` is the next ``--start`` (arXiv) or ``--cursor`` (Europe PMC), or null on the
last page. Without ``--json`` a readable table goes to stdout. ``openalex search`` belongs
to the discovery commands.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prioris.interfaces.cli.render import plural
from prioris.models import Work
from prioris.sources.arxiv_feed import MAX_RESULTS, MAX_WINDOW, SORT_BY, SORT_ORDER


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def register(subparsers: Any) -> None:
    """Add ``arxiv search`` and ``europepmc search`` to the command tree."""
    arxiv = subparsers.add_parser("arxiv", help="arXiv keyword search (nothing is stored)")
    arxiv_sub = arxiv.add_subparsers(dest="arxiv_command", metavar="COMMAND")
    search = arxiv_sub.add_parser(
        "search",
        help="search arXiv",
        description=(
            "Search arXiv. Plain words are matched in all fields; arXiv query syntax "
            "(ti:, au:, abs:, cat:, AND, OR, ANDNOT) is passed through."
        ),
    )
    search.add_argument("query", metavar="QUERY", help="words or an arXiv query")
    search.add_argument(
        "--start", type=_count, default=0, help="offset of the first result (default 0)"
    )
    search.add_argument(
        "--max-results",
        type=_count,
        default=10,
        help=f"results per page, 1-{MAX_RESULTS}, start + max <= {MAX_WINDOW} (default 10)",
    )
    search.add_argument(
        "--sort", choices=SORT_BY, default="relevance", help="sort field (default relevance)"
    )
    search.add_argument(
        "--order", choices=SORT_ORDER, default="descending", help="sort order (default descending)"
    )
    search.add_argument("--json", action="store_true", help="print JSON instead of a table")
    search.set_defaults(func=run_arxiv_search)

    epmc = subparsers.add_parser("europepmc", help="Europe PMC keyword search (nothing is stored)")
    epmc_sub = epmc.add_subparsers(dest="europepmc_command", metavar="COMMAND")
    search = epmc_sub.add_parser(
        "search",
        help="search Europe PMC",
        description=(
            "Search Europe PMC (articles and preprints) with its query syntax; "
            "page on with --cursor set to the previous 'next'."
        ),
    )
    search.add_argument("query", metavar="QUERY", help="words or a Europe PMC query")
    search.add_argument(
        "--page-size", type=_count, default=25, help="results per page, 1-1000 (default 25)"
    )
    search.add_argument("--cursor", default="*", help="cursorMark of the page (default '*')")
    search.add_argument("--json", action="store_true", help="print JSON instead of a table")
    search.set_defaults(func=run_europepmc_search)


@contextmanager
def _remote(ctx: Any) -> Iterator[Any]:
    """The Library's RemoteSources when it exposes one, else a private one closed after use."""
    from prioris.library import Library

    if isinstance(getattr(Library, "remote", None), property):
        yield ctx.library().remote
        return
    from prioris.sources.remote import RemoteSources

    remote = RemoteSources(ctx.settings)
    try:
        yield remote
    finally:
        remote.close()


def _doi(work: Work) -> str | None:
    return next((a[4:] for a in work.aliases if a.startswith("doi:")), None)


def _item(work: Work) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": work.id,
        "title": work.title,
        "authors": work.authors,
        "year": work.year,
        "venue": work.venue,
        "doi": _doi(work),
        "abstract": work.abstract,
        "is_preprint": work.is_preprint,
        "is_oa": work.is_oa,
        "pdf_url": work.pdf_url,
        "published": work.published,
    }
    if work.source == "arxiv":
        item["primary_category"] = work.extra.get("primary_category")
        item["categories"] = work.extra.get("categories", [])
    else:
        for key in ("pmid", "pmcid", "peer_reviewed", "in_epmc"):
            item[key] = work.extra.get(key)
        item["cited_by_count"] = work.cited_by_count
        item["type"] = work.type
    return item


def _clip(text: str, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _table(ctx: Any, works: list[Work], first: int) -> None:
    width = max(60, shutil.get_terminal_size((100, 20)).columns)
    for number, work in enumerate(works, start=first):
        flag = " [preprint]" if work.is_preprint and work.source != "arxiv" else ""
        head = f"{number:>4}. {work.year or '----'} "
        ctx.print_line(head + _clip(work.title + flag, width - len(head)))
        authors = ", ".join(work.authors[:3]) + (" et al." if len(work.authors) > 3 else "")
        ctx.print_line(" " * 6 + _clip(f"{work.id}  {authors}", width - 6))


def run_arxiv_search(args: argparse.Namespace, ctx: Any) -> int:
    with _remote(ctx) as remote:
        feed = remote.arxiv.search(
            args.query,
            start=args.start,
            max_results=args.max_results,
            sort_by=args.sort,
            sort_order=args.order,
        )
    end = feed.start + len(feed.works)
    following = end if feed.works and end < min(feed.total, MAX_WINDOW) else None
    if args.json:
        ctx.print_json(
            {
                "total": feed.total,
                "start": feed.start,
                "results": [_item(w) for w in feed.works],
                "next": following,
            }
        )
        return 0
    _table(ctx, feed.works, feed.start + 1)
    more = f"next page: --start {following}" if following is not None else "no more pages"
    ctx.print_line(f"{len(feed.works)} shown of {plural(feed.total, 'match', 'matches')}; {more}")
    return 0


def run_europepmc_search(args: argparse.Namespace, ctx: Any) -> int:
    with _remote(ctx) as remote:
        page = remote.europepmc.search(args.query, page_size=args.page_size, cursor=args.cursor)
    if args.json:
        ctx.print_json(
            {
                "total": page.total,
                "results": [_item(w) for w in page.works],
                "next": page.next_cursor,
            }
        )
        return 0
    _table(ctx, page.works, 1)
    more = f"next page: --cursor '{page.next_cursor}'" if page.next_cursor else "no more pages"
    ctx.print_line(f"{len(page.works)} shown of {plural(page.total, 'match', 'matches')}; {more}")
    return 0
