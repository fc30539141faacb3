"""Commands that add works to the library: ``ingest`` (PDFs), ``import`` (JSONL records)
and ``fetch`` (by identifier from arXiv, Europe PMC, OpenAlex). Each handler calls the
Library with a progress bar and prints a line per item, or the summary as JSON.

``add_<command>(sub)`` adds one command's parser: :mod:`.library_cmds` calls them in the
order ``prioris --help`` lists them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from prioris.errors import NotFoundError, PriorisError
from prioris.interfaces.cli.context import (
    EXIT_ITEM_FAILED,
    EXIT_OK,
    CliContext,
    add_cluster_option,
    add_json_flag,
    use_cluster,
)
from prioris.interfaces.cli.progress import IngestBars, bar, wants_progress
from prioris.interfaces.cli.render import plural
from prioris.interfaces.cli.terminal import terminal_safe


def add_ingest(sub: Any) -> None:
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
    add_cluster_option(p)
    add_json_flag(p)
    p.set_defaults(func=cmd_ingest)


def add_import(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help="import a BibTeX or RIS file (with the PDFs it links) or JSONL records",
        description="Import references: a BibTeX (.bib) or RIS (.ris) file, whose entries' "
        "file links (Zotero, JabRef, Mendeley, Better BibTeX forms) are ingested, or JSONL "
        'records ({"_id"|"id", "title", "text"} per line, the BEIR corpus format). The '
        "format comes from the extension, else from the content. Import the same file "
        "again after editing it: unchanged entries are skipped, changed ones updated.",
    )
    p.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="FILE.bib, FILE.ris or FILE.jsonl",
    )
    add_cluster_option(p)
    add_json_flag(p)
    p.set_defaults(func=cmd_import)


def add_fetch(sub: Any) -> None:
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
    add_json_flag(p)
    p.set_defaults(func=cmd_fetch)


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
    from prioris.library import Library

    show = wants_progress(args.json)
    files = list(Library.collect_pdfs(args.paths))
    if not files:  # a folder without PDFs is said, not a silent "0 ingested"
        where = ", ".join(str(p) for p in args.paths)
        raise NotFoundError(
            f"no PDF files in {where} (ingest takes PDFs and folders of them; "
            "`prioris import` takes JSONL records)"
        )
    use_cluster(args, ctx)
    library = ctx.library()  # only now: nothing to ingest starts no library
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
    from prioris.interfaces.cli.refman_cmds import cmd_import_references, import_format

    use_cluster(args, ctx)
    if import_format(args.file) != "jsonl":
        return cmd_import_references(args, ctx)
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
        if show:  # tqdm's write bypasses print_line, which makes lines terminal-safe
            progress.write(terminal_safe(line))
        else:
            ctx.print_line(line)

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
