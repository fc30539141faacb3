"""Commands that bring in a researcher's reference manager: ``zotero sync`` and the BibTeX
and RIS forms of ``import`` (``ingest_cmds`` keeps JSONL records).

Both print the same report: added / updated / removed / unchanged counts, the items that
failed (each with its key and reason), the files that could not be read (the item is
stored with its metadata), the warnings (two entries naming one file or one DOI: both
kept) and the fields cut to the library's bounds. Exit 1 when an item failed, as ``ingest`` does.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.interfaces.cli.context import EXIT_ITEM_FAILED, EXIT_OK, CliContext, add_json_flag
from prioris.interfaces.cli.progress import Follower, bar, wants_progress

REFERENCE_SUFFIXES = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris"}


def register(sub: Any) -> None:
    zotero = sub.add_parser("zotero", help="bring in a Zotero library, or bring it up to date")
    zotero_sub = zotero.add_subparsers(dest="zotero_command", metavar="COMMAND")
    sync = zotero_sub.add_parser(
        "sync",
        help="sync a Zotero data directory (read only; incremental)",
        description="Make every regular item of a Zotero library a work with Zotero's "
        "metadata, its PDFs ingested (OCR where needed), its notes, highlights, collections "
        "and tags kept. Run again to pick up what changed: new, edited, moved and deleted "
        "items. Zotero's own files are never written; Zotero may be running.",
    )
    sync.add_argument(
        "--zotero-dir",
        type=Path,
        metavar="DIR",
        help="the Zotero data directory, holding zotero.sqlite (default: "
        "PRIORIS_MCP_ZOTERO_DIR, else ~/Zotero)",
    )
    sync.add_argument(
        "--base-dir",
        type=Path,
        metavar="DIR",
        help="Zotero's linked attachment base directory, for linked files stored relative to "
        "it (default: PRIORIS_MCP_ZOTERO_BASE_DIR)",
    )
    sync.add_argument(
        "--ocr",
        choices=("auto", "always", "never"),
        help="OCR mode for the PDFs (default: PRIORIS_MCP_OCR, else auto)",
    )
    add_json_flag(sync)
    sync.set_defaults(func=cmd_zotero_sync)
    zotero.set_defaults(func=lambda args, ctx: _usage(zotero))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def print_report(ctx: CliContext, report: dict[str, Any], *, json_output: bool) -> int:
    """The sync's report: JSON, or a line per problem and the counts."""
    if json_output:
        ctx.print_json(report)
    else:
        for failure in report["failed"]:
            where = f" (line {failure['line']})" if failure.get("line") else ""
            ctx.print_line(f"failed   {failure['key']}{where}  {failure['error']}")
        for missing in report["files_missing"]:
            reason = str(missing["reason"])
            if str(missing["file"]) not in reason:  # most reasons name the file already
                reason = f"{missing['file']}: {reason}"
            ctx.print_line(f"no file  {missing['key']}  {reason} (stored with its metadata)")
        for warning in report.get("warnings", []):
            ctx.print_line(f"warning  {warning['key']}  {warning['reason']}")
        for cut in report.get("cut", []):
            ctx.print_line(
                f"cut      {cut['key']}  {cut['field']} had {cut['length']} {cut['unit']}; "
                f"the first {cut['kept']} are kept"
            )
        for kept in report["kept"]:
            ctx.print_line(
                f"kept     {kept['id']}  (item {kept['key']} is gone; the work has other sources)"
            )
        ctx.print_line(
            f"{report['added']} added, {report['updated']} updated, {report['removed']} removed, "
            f"{report['unchanged']} unchanged, {len(report['failed'])} failed"
            f" ({report['files_ingested']} files ingested)"
        )
    return EXIT_ITEM_FAILED if report["failed"] else EXIT_OK


def cmd_zotero_sync(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    directory = library.zotero_dir(args.zotero_dir)
    ctx.log(f"reading the Zotero library in {directory}")
    progress = bar(None, "item", "sync", wants_progress(args.json))
    follower = Follower(progress)

    def on_progress(done: int, total: int) -> None:
        progress.total = total
        follower(done, total)

    try:
        report = library.zotero_sync(
            directory, base_dir=args.base_dir, ocr_mode=args.ocr, on_progress=on_progress
        )
    finally:
        progress.close()
    return print_report(ctx, report, json_output=args.json)


JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


def reference_format(path: Path) -> str | None:
    """``bibtex`` or ``ris`` for a reference file (by its extension, else its first
    bytes), None for anything else (JSONL records, or a file of none of the three kinds:
    :func:`import_format` tells those apart)."""
    kind = import_format(path, strict=False)
    return kind if kind in ("bibtex", "ris") else None


def import_format(path: Path, *, strict: bool = True) -> str:
    """``bibtex``, ``ris`` or ``jsonl`` for what ``prioris import`` was given: by its
    extension, else by its first bytes.

    A file that starts like none of the three (a CSV, an XML file, plain text) is refused
    in one line (InvalidRequestError) instead of reaching the JSONL reader, which would
    report every one of its lines as "not JSON". With ``strict`` off it is ``unknown``.
    """
    known = REFERENCE_SUFFIXES.get(path.suffix.lower())
    if known:
        return known
    if path.suffix.lower() in JSONL_SUFFIXES:
        return "jsonl"
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except (OSError, UnicodeError, ValueError):
        return "jsonl"  # the JSONL reader says what is wrong with the file (or its name)
    if not head or head.startswith((b"{", b"[", b"%PDF")):
        return "jsonl"  # JSON records (or a PDF, which the JSONL reader points to ingest)
    if re.search(rb"^TY  - ", head, re.MULTILINE):
        return "ris"
    if re.search(rb"^\s*@\s*[A-Za-z]+\s*[{(]", head, re.MULTILINE):
        return "bibtex"
    if not strict:
        return "unknown"
    raise InvalidRequestError(
        f"{path.name} is neither BibTeX, RIS nor JSONL records (by its name and its first "
        "lines); `prioris import` reads .bib, .ris and .jsonl files"
    )


def cmd_import_references(args: argparse.Namespace, ctx: CliContext) -> int:
    library = ctx.library()
    progress = bar(None, "entry", "import", wants_progress(args.json))
    follower = Follower(progress)

    def on_progress(done: int, total: int) -> None:
        progress.total = total
        follower(done, total)

    try:
        report = library.import_references(args.file, on_progress=on_progress)
    finally:
        progress.close()
    return print_report(ctx, report, json_output=args.json)
