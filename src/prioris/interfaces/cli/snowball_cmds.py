"""CLI commands ``snowball`` and ``graph``: parse, call Library, render.

``snowball`` lists works the seeds cite or that cite them, ranked with the reasons in
words and the fetch route of each (it never fetches); ``dismiss`` hides a candidate for
good. ``graph`` writes the library's citation graph as GraphML (Gephi, Cytoscape) or JSON.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from prioris.interfaces.cli.context import add_json_flag

DIRECTIONS = ("backward", "forward", "both")
GRAPH_FORMATS = ("graphml", "json")


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= 500:
        raise argparse.ArgumentTypeError(f"must be from 1 to 500: {text!r}")
    return value


def register(subparsers: Any) -> None:
    """Add ``snowball``, ``dismiss`` and ``graph`` to the command tree."""
    snowball = subparsers.add_parser(
        "snowball",
        help="works your papers cite or that cite them, not in the library (ranked, explained)",
        description=(
            "Follow citations from seed works: the works they cite (backward) and the works "
            "citing them (forward), left out when already in the library or dismissed. Each "
            "candidate is scored by how many seeds it is tied to, its similarity to the "
            "seeds, its recency and its citation count, and says why and how its full text "
            "could be fetched. Nothing is fetched. Offline (or without an OpenAlex key) the "
            "reference lists read from your PDFs are the only graph."
        ),
    )
    snowball.add_argument("ids", nargs="*", metavar="ID", help="seed works (ids or aliases)")
    snowball.add_argument("--all", action="store_true", help="every work of the library as a seed")
    snowball.add_argument(
        "--collection",
        metavar="NAME",
        help="the works of this collection as seeds (default: the ids given, or --all)",
    )
    snowball.add_argument(
        "--direction",
        choices=DIRECTIONS,
        default="both",
        help="backward: works the seeds cite; forward: works citing them (default both)",
    )
    snowball.add_argument(
        "--limit", type=_limit, default=25, metavar="N", help="candidates shown, 1-500 (default 25)"
    )
    snowball.add_argument(
        "--offline", action="store_true", help="the local citation graph only: no OpenAlex request"
    )
    add_json_flag(snowball)
    snowball.set_defaults(func=run_snowball)

    dismiss = subparsers.add_parser(
        "dismiss",
        help="hide a snowball candidate for good (its key, as `snowball --json` gives it)",
        description="Remember a snowball candidate as not wanted, so no snowball shows it "
        "again; --undo shows it again.",
    )
    dismiss.add_argument("key", metavar="KEY", help="the candidate's key (doi:…, arxiv:…, …)")
    dismiss.add_argument("--undo", action="store_true", help="show the candidate again")
    add_json_flag(dismiss)
    dismiss.set_defaults(func=run_dismiss)

    graph = subparsers.add_parser(
        "graph",
        help="the library's citation graph as GraphML or JSON (Gephi, Cytoscape, notebooks)",
        description="Write the library's works (title, year, authors) and who cites whom "
        "among them; --candidates adds a whole-library snowball's top candidates, tied to "
        "the seeds they are cited by or cite.",
    )
    graph.add_argument(
        "--format", choices=GRAPH_FORMATS, default="graphml", help="output format (default graphml)"
    )
    graph.add_argument("--candidates", action="store_true", help="add snowball candidates as nodes")
    graph.add_argument(
        "--limit", type=_limit, default=50, metavar="N", help="candidates added (default 50)"
    )
    graph.add_argument(
        "--offline", action="store_true", help="candidates from the local graph only"
    )
    graph.set_defaults(func=run_graph)


def _clip(text: str, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def route_words(route: dict[str, Any]) -> str:
    """A fetch route in words (what to do to get the full text)."""
    if route.get("provider"):
        return f"fetch {route.get('identifier')}"
    if route.get("pdf_url"):
        return f"open-access PDF {route['pdf_url']} (download it, then ingest it)"
    return "upload the PDF yourself"


def run_snowball(args: argparse.Namespace, ctx: Any) -> int:
    result = ctx.library().snowball(
        args.ids,
        all=args.all,
        collection=args.collection,
        direction=args.direction,
        limit=args.limit,
        offline=args.offline,
    )
    if args.json:
        ctx.print_json(result)
        return 0
    for message in result["messages"]:
        ctx.log(message)
    width = max(60, shutil.get_terminal_size((100, 20)).columns)
    for rank, cand in enumerate(result["candidates"], start=1):
        head = f"{rank:>3}. {cand['score']:.3f} {cand['year'] or '----'} "
        raw = "" if cand.get("title_parsed", True) else "[as printed] "
        ctx.print_line(head + _clip(raw + cand["title"], width - len(head)))
        ctx.print_line(" " * 7 + _clip(cand["why"]["summary"], width - 7))
        ctx.print_line(
            " " * 7 + _clip(f"{route_words(cand['fetch_route'])}  key: {cand['key']}", width - 7)
        )
    seeds = len(result["seeds"])
    shown = len(result["candidates"])
    where = (
        "the local graph only"
        if result["offline"]
        else (f"{result['requests']} OpenAlex request(s), {result['budget_left']} left today")
    )
    ctx.print_line(
        f"{shown} of {result['total']} candidate(s) from {seeds} seed(s); {where}"
        + ("; `prioris dismiss KEY` hides one" if shown else "")
    )
    return 0


def run_dismiss(args: argparse.Namespace, ctx: Any) -> int:
    library = ctx.library()
    if args.undo:
        result = library.undismiss_candidate(args.key)
        text = "shown again" if result["found"] else "was not dismissed"
    else:
        result = library.dismiss_candidate(args.key)
        text = "dismissed: no snowball shows it again"
    if args.json:
        ctx.print_json(result)
    else:
        ctx.print_line(f"{args.key}: {text}")
    return 0


def graphml(graph: dict[str, Any]) -> str:
    """GraphML of :meth:`Library.citation_graph` (a directed graph; every text escaped;
    authors joined with ``; ``; the candidates' score where known)."""
    keys = [
        ("kind", "string"),
        ("title", "string"),
        ("year", "int"),
        ("authors", "string"),
        ("score", "double"),
    ]
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ]
    for name, kind in keys:
        lines.append(f'  <key id="{name}" for="node" attr.name="{name}" attr.type="{kind}"/>')
    lines.append('  <key id="relation" for="edge" attr.name="relation" attr.type="string"/>')
    lines.append('  <graph id="citations" edgedefault="directed">')
    known = set()
    for node in graph["nodes"]:
        known.add(node["id"])
        lines.append(f"    <node id={quoteattr(_xml_text(node['id']))}>")
        lines.append(f'      <data key="kind">{escape(node.get("kind", "work"))}</data>')
        lines.append(f'      <data key="title">{escape(_xml_text(node.get("title") or ""))}</data>')
        if isinstance(node.get("year"), int):
            lines.append(f'      <data key="year">{node["year"]}</data>')
        authors = "; ".join(node.get("authors") or [])
        lines.append(f'      <data key="authors">{escape(_xml_text(authors))}</data>')
        if isinstance(node.get("score"), int | float):
            lines.append(f'      <data key="score">{float(node["score"])}</data>')
        lines.append("    </node>")
    for number, edge in enumerate(graph["edges"]):
        if edge["source"] not in known or edge["target"] not in known:
            continue
        lines.append(
            f'    <edge id="e{number}" source={quoteattr(_xml_text(edge["source"]))} '
            f"target={quoteattr(_xml_text(edge['target']))}>"
            f'<data key="relation">{escape(edge.get("kind", "cites"))}</data></edge>'
        )
    lines += ["  </graph>", "</graphml>", ""]
    return "\n".join(lines)


def _xml_text(text: str) -> str:
    """Characters XML 1.0 cannot hold (control characters) dropped."""
    return "".join(
        ch
        for ch in str(text)
        if ch in "\t\n\r"
        or (" " <= ch <= "\ud7ff")
        or ("\ue000" <= ch <= "\ufffd")
        or ch >= "\U00010000"
    )


def run_graph(args: argparse.Namespace, ctx: Any) -> int:
    graph = ctx.library().citation_graph(args.candidates, limit=args.limit, offline=args.offline)
    for message in (graph.get("snowball") or {}).get("messages", []):
        ctx.log(message)
    if args.format == "json" or getattr(args, "json", False):
        sys.stdout.write(json.dumps(graph, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(graphml(graph))
    sys.stdout.flush()
    return 0
