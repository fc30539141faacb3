"""Commands over the local library: ingest, import, search, list, show, delete, status,
reindex, fetch, serve and demo. Each handler parses nothing and decides nothing: it calls
the Library and renders text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError, PriorisError
from prioris.interfaces.cli.app import EXIT_ITEM_FAILED, EXIT_OK, CliContext
from prioris.interfaces.cli.progress import IngestBars, bar, wants_progress
from prioris.interfaces.cli.render import plural, render_hits, search_summary
from prioris.models import display_title


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def register(sub: Any) -> None:
    p = sub.add_parser("ingest", help="ingest PDFs and directories of PDFs (OCR where needed)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="PDF files or directories")
    p.add_argument(
        "--ocr",
        choices=("auto", "always", "never"),
        help="OCR mode: auto OCRs pages without a usable text layer (default: "
        "PRIORIS_MCP_OCR, else auto)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="parse files already stored again (say with --ocr always) and replace their "
        "stored text, pages and chunks (default: identical bytes are skipped)",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("import", help="import records from JSONL (BEIR corpus format works)")
    p.add_argument(
        "file", type=Path, metavar="FILE.jsonl", help='one {"_id"|"id", "title", "text"} per line'
    )
    _json_flag(p)
    p.set_defaults(func=cmd_import)

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
        "--id",
        action="append",
        dest="ids",
        metavar="ID",
        help="only this work; repeat for several (default: the whole library)",
    )
    p.add_argument(
        "--syntax",
        choices=("plain", "fts5"),
        default="plain",
        help="plain words (default) or a raw FTS5 expression (fts mode)",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("list", help="list the works in the library")
    p.add_argument(
        "--limit", type=int, metavar="N", help="list at most N works (default: all of them)"
    )
    p.add_argument(
        "--offset", type=int, default=0, metavar="N", help="skip the first N works (default 0)"
    )
    _json_flag(p)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="show a work's Markdown by page or offset")
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
    _json_flag(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("delete", help="remove works from the library and every index")
    p.add_argument("ids", nargs="+", metavar="ID", help="work ids or aliases to remove")
    _json_flag(p)
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("status", help="counts, model and index state")
    _json_flag(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("reindex", help="re-embed chunks made stale by a model change")
    _json_flag(p)
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("fetch", help="fetch works from arXiv / Europe PMC / OpenAlex and ingest")
    p.add_argument(
        "identifiers",
        nargs="+",
        metavar="IDENTIFIER",
        help="arXiv id, PMCID, PMID, DOI, OpenAlex id or their URLs",
    )
    p.add_argument(
        "--format",
        choices=("pdf", "html", "xml"),
        help="full-text format, arXiv: pdf or html, Europe PMC: xml (default: pdf for arXiv, "
        "xml for Europe PMC)",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("demo", help="the main job on generated PDFs (one scanned) in a temp dir")
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build the demo library in DIR and keep it, to search it afterwards with "
        "--data-dir DIR (default: a temporary folder, deleted at the end)",
    )
    p.set_defaults(func=cmd_demo)


# -- handlers ------------------------------------------------------------------------------
def _ingest_line(path: Path, result: Any, error: PriorisError | None) -> str:
    if error is not None:
        return f"failed   {path}  error [{error.code}]: {error.message}"
    if result.status == "skipped":
        return f"skipped  {path}  ({result.reason}; {result.id})"
    verb = "replaced" if result.reason == "re-extracted" else "ingested"
    ocr = f" ({result.ocr_pages} by OCR)" if result.ocr_pages else ""
    line = (
        f"{verb} {path}  {result.id}  {plural(result.pages, 'page')}{ocr}, "
        f"{plural(result.chunks, 'chunk')}"
    )
    if result.enriched:
        line += f", metadata from {result.enriched}"
    return line + "".join(f"\n  warning: {text}" for text in result.warnings)


def cmd_ingest(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    show = wants_progress(args.json)
    files = list(library.collect_pdfs(args.paths))
    bars = IngestBars(len(files), show)

    def on_done(path: Path, result: Any, error: PriorisError | None) -> None:
        bars.file_done()
        if not args.json:
            line = _ingest_line(path, result, error)
            (bars.write if show else ctx.print_line)(line)

    try:
        summary = library.ingest_paths(
            files, ocr_mode=args.ocr, on_stage=bars.step, on_file_done=on_done, force=args.force
        )
    finally:
        bars.close()
    if args.json:
        ctx.print_json(summary.to_dict())
    else:
        ctx.log(
            f"{len(summary.ingested)} ingested, {len(summary.skipped)} skipped, "
            f"{len(summary.failed)} failed"
        )
    return EXIT_ITEM_FAILED if summary.failed else EXIT_OK


def cmd_import(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    records = library.read_jsonl(args.file)
    show = wants_progress(args.json)
    total = None
    if show:  # a second read of the file only when there is a bar to size
        try:
            with args.file.open("rb") as handle:
                total = sum(1 for line in handle if line.strip())
        except OSError:
            total = None  # reading the records will say what is wrong
    progress = bar(total, "rec", "import", show)
    try:
        # only --json prints a line per record; counts need no result held per record
        summary = library.import_records(
            records, on_progress=progress.update, keep_results=args.json
        )
    finally:
        progress.close()
    if args.json:
        ctx.print_json(summary.to_dict())
    else:
        for failure in summary.failed:
            err = failure["error"]
            ctx.print_line(f"failed   {failure['path']}  error [{err['code']}]: {err['message']}")
        ctx.print_line(
            f"{summary.ingested_count} imported, {summary.skipped_count} skipped, "
            f"{len(summary.failed)} failed"
        )
    return EXIT_ITEM_FAILED if summary.failed else EXIT_OK


def _search_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "mode": args.mode,
        "k": args.k,
        "chunks": args.chunks,
        "source": args.source,
        "from_year": args.from_year,
        "to_year": args.to_year,
        "ids": args.ids,
        "syntax": args.syntax,
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
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        return EXIT_ITEM_FAILED if failed else EXIT_OK
    if not args.query:
        raise InvalidRequestError("search needs QUERY or --queries FILE.jsonl")
    response = library.search(args.query, **_search_kwargs(args))
    if args.json:
        ctx.print_json(response.to_dict())
        return EXIT_OK
    if not response.hits:
        ctx.print_line("no hits")
    paginated = library.paginated_works([hit.id for hit in response.hits])
    for line in render_hits(response.hits, paginated):
        ctx.print_line(line)
    ctx.log(search_summary(len(response.hits), response.took_ms, response.mode))
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    works = ctx.library().list_works(limit=args.limit, offset=args.offset)
    if args.json:
        ctx.print_json({"works": works, "count": len(works)})
        return EXIT_OK
    for work in works:
        authors = ", ".join(work["authors"][:2]) + (" et al." if len(work["authors"]) > 2 else "")
        ctx.print_line(
            f"{work['id']:<28} {work['year'] or ''!s:<4}  {display_title(work['title'])[:70]}"
            + (f"  — {authors}" if authors else "")
        )
    ctx.log(plural(len(works), "work"))
    return EXIT_OK


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    view = ctx.library().show(args.id, page=args.page, offset=args.offset, limit=args.limit)
    if args.json:
        ctx.print_json(view)
    else:
        ctx.print_line(view["markdown"])
        if view["has_more"]:
            ctx.log(f"… more from --offset {view['next_offset']} (of {view['total_length']})")
    return EXIT_OK


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


def cmd_fetch(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    show = wants_progress(args.json)
    progress = bar(len(args.identifiers), "work", "fetch", show)

    def on_done(identifier: str, result: Any, error: PriorisError | None) -> None:
        progress.update(1)
        if args.json:
            return
        if error is not None:
            line = f"failed   {identifier}  error [{error.code}]: {error.message}"
        elif result.status == "skipped":
            line = f"skipped  {identifier}  ({result.reason}: {result.id})"
        else:
            line = (
                f"fetched  {identifier}  {result.id}  {plural(result.pages, 'page')}, "
                f"{plural(result.chunks, 'chunk')}"
            )
        (progress.write if show else ctx.print_line)(line)

    try:
        summary = library.fetch(args.identifiers, format=args.format, on_done=on_done)
    finally:
        progress.close()
    if args.json:
        data = summary.to_dict()
        ctx.print_json(
            {
                "fetched": data["ingested"],
                "skipped": data["skipped"],
                "failed": [{"identifier": f["path"], "error": f["error"]} for f in summary.failed],
            }
        )
    return EXIT_ITEM_FAILED if summary.failed else EXIT_OK


def cmd_demo(args: argparse.Namespace, ctx: CliContext) -> int:
    from prioris.interfaces.cli.demo import run_demo

    return run_demo(ctx, keep=args.keep)
