"""Commands over the local library: ingest, import, search, list, show, delete, status,
reindex, fetch, serve and demo. Each handler parses nothing and decides nothing: it calls
the Library and renders text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError, PriorisError
from prioris.interfaces.cli.app import EXIT_ITEM_FAILED, EXIT_OK, CliContext
from prioris.interfaces.cli.progress import bar, wants_progress


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def register(sub: Any) -> None:
    p = sub.add_parser("ingest", help="ingest PDFs and directories of PDFs (OCR where needed)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="PDF files or directories")
    p.add_argument(
        "--ocr", choices=("auto", "always", "never"), help="OCR mode (env PRIORIS_MCP_OCR)"
    )
    _json_flag(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("import", help="import records from JSONL (BEIR corpus format works)")
    p.add_argument("file", type=Path, metavar="FILE.jsonl")
    _json_flag(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("search", help="search the library (fts, vector or hybrid)")
    p.add_argument("query", nargs="?", help="what to look for")
    p.add_argument("--queries", type=Path, help="JSONL file of queries {_id|id, text}")
    p.add_argument("--mode", choices=("fts", "vector", "hybrid"), default="hybrid")
    p.add_argument("-k", type=int, default=10, help="number of hits (default 10)")
    p.add_argument("--chunks", action="store_true", help="return passages, not works")
    p.add_argument("--source", help="only works from this source (arxiv, europepmc, file, ...)")
    p.add_argument("--from-year", type=int)
    p.add_argument("--to-year", type=int)
    p.add_argument("--id", action="append", dest="ids", metavar="ID", help="restrict to works")
    p.add_argument(
        "--syntax",
        choices=("plain", "fts5"),
        default="plain",
        help="plain words (default) or a raw FTS5 expression (fts mode)",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("list", help="list the works in the library")
    p.add_argument("--limit", type=int)
    p.add_argument("--offset", type=int, default=0)
    _json_flag(p)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="show a work's Markdown by page or offset")
    p.add_argument("id", metavar="ID")
    p.add_argument("--page", type=int)
    p.add_argument("--offset", type=int)
    p.add_argument("--limit", type=int)
    _json_flag(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("delete", help="remove works from the library and every index")
    p.add_argument("ids", nargs="+", metavar="ID")
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
        help="full-text format (arXiv: pdf or html; Europe PMC: xml)",
    )
    _json_flag(p)
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("demo", help="the main job on generated PDFs (one scanned) in a temp dir")
    p.add_argument("--keep", type=Path, help="keep the demo library in this folder")
    p.set_defaults(func=cmd_demo)


# -- handlers ------------------------------------------------------------------------------
def cmd_ingest(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    show = wants_progress(args.json)
    files = list(library.collect_pdfs(args.paths))
    progress = bar(len(files), "file", "ingest", show)
    pages_done = 0
    started = time.monotonic()

    def on_pages(path: str, done: int, total: int) -> None:
        elapsed = max(time.monotonic() - started, 1e-6)
        progress.set_postfix_str(
            f"{Path(path).name[:30]} p{done}/{total} · {(pages_done + done) / elapsed:.1f} pages/s"
        )

    def on_done(path: Path, result: Any, error: PriorisError | None) -> None:
        nonlocal pages_done
        progress.update(1)
        if result is not None:
            pages_done += result.pages
        if not args.json:
            if error is not None:
                line = f"failed   {path}  error [{error.code}]: {error.message}"
            elif result.status == "skipped":
                line = f"skipped  {path}  ({result.reason}; {result.id})"
            else:
                ocr = f", {result.ocr_pages} OCR" if result.ocr_pages else ""
                line = (
                    f"ingested {path}  {result.id}  {result.pages} pages{ocr}, "
                    f"{result.chunks} chunks"
                )
                if result.enriched:
                    line += f", metadata from {result.enriched}"
                line += "".join(f"\n  warning: {text}" for text in result.warnings)
            if show:
                progress.write(line)
            else:
                ctx.print_line(line)

    try:
        summary = library.ingest_paths(
            files, ocr_mode=args.ocr, on_pages=on_pages, on_file_done=on_done
        )
    finally:
        progress.close()
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
        summary = library.import_records(records, on_progress=progress.update)
    finally:
        progress.close()
    if args.json:
        ctx.print_json(summary.to_dict())
    else:
        for failure in summary.failed:
            err = failure["error"]
            ctx.print_line(f"failed   {failure['path']}  error [{err['code']}]: {err['message']}")
        ctx.print_line(
            f"{len(summary.ingested)} imported, {len(summary.skipped)} skipped, "
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
                ctx.log(f"error [{item.code}]: {line.where}: {item.message}")
                failed += 1
                continue
            query_id = item.get("_id", item.get("id"))
            text = item.get("text", "")
            if not isinstance(text, str):
                ctx.log(f"error [invalid_request]: {line.where}: 'text' must be a string")
                failed += 1
                continue
            try:
                response = library.search(text, **_search_kwargs(args))
            except PriorisError as exc:
                ctx.log(f"error [{exc.code}]: query {query_id}: {exc.message}")
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
    for number, hit in enumerate(response.hits, start=1):
        authors = ", ".join(hit.authors[:3]) + (" et al." if len(hit.authors) > 3 else "")
        pages = f"p. {hit.page_start}" + (
            f"-{hit.page_end}" if hit.page_end and hit.page_end != hit.page_start else ""
        )
        ctx.print_line(f"{number:>2}. {hit.title}  [{hit.id}]")
        meta = " · ".join(x for x in (authors, str(hit.year or ""), pages) if x)
        ctx.print_line(f"    {meta} · score {hit.score:.4g} · offset {hit.offset}")
        ctx.print_line(f"    {hit.snippet}")
    ctx.log(f"{len(response.hits)} hits in {response.took_ms:.1f} ms ({response.mode})")
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    works = ctx.library().list_works(limit=args.limit, offset=args.offset)
    if args.json:
        ctx.print_json({"works": works, "count": len(works)})
        return EXIT_OK
    for work in works:
        authors = ", ".join(work["authors"][:2]) + (" et al." if len(work["authors"]) > 2 else "")
        ctx.print_line(
            f"{work['id']:<28} {work['year'] or ''!s:<4}  {work['title'][:70]}"
            + (f"  — {authors}" if authors else "")
        )
    ctx.log(f"{len(works)} works")
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
    deleted = ctx.library().delete(args.ids)
    if args.json:
        ctx.print_json({"deleted": deleted})
    else:
        for work_id in deleted:
            ctx.print_line(f"deleted {work_id}")
    return EXIT_OK


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
    total = library.status()["stale_chunks"]
    progress = bar(total, "chunk", "reindex", wants_progress(args.json))
    last = 0

    def on_progress(done: int, _total: int) -> None:
        nonlocal last
        progress.update(done - last)
        last = done

    try:
        done = library.reindex(on_progress=on_progress)
    finally:
        progress.close()
    if args.json:
        ctx.print_json({"reindexed": done, "model": library.embedder.model_id})
    else:
        ctx.print_line(f"re-embedded {done} chunks with {library.embedder.model_id}")
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
                f"fetched  {identifier}  {result.id}  {result.pages} pages, {result.chunks} chunks"
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
    from prioris.demo import run_demo

    return run_demo(ctx, keep=args.keep)
