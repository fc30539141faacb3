"""What a batch of files or records is made of, and what it did.

Kept apart from the ingest service so the CLI, the MCP server and Python callers share
one definition of "the PDFs under these paths", "the bytes of this file", "the records of
this JSONL file" and the summary shape that ``ingest --json`` and ``import --json`` print.
Every OS error on the way in becomes this file's PriorisError, never an OSError.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError, PriorisError
from prioris.ingest.prepared import IngestResult
from prioris.regular_files import open_regular

PROBE_LINES = 20  # this many bad lines before any good one: not a JSONL file at all

FileStage = Callable[[str, str, int, int], None]  # (path, stage, done, total); see StepProgress
FileDone = Callable[[Path, IngestResult | None, PriorisError | None], None]


@dataclass
class IngestSummary:
    """What a batch did: the ``--json`` shape of ``ingest`` and ``import``.

    With ``keep_results=False`` only the counts of ingested and skipped items are kept
    (failures always are): a caller that prints counts does not hold a result per record
    (~250 bytes each: about 250 MB over a million records)."""

    ingested: list[IngestResult] = field(default_factory=list)
    skipped: list[IngestResult] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    keep_results: bool = True
    ingested_count: int = 0
    skipped_count: int = 0

    def add(self, result: IngestResult) -> None:
        if result.status == "skipped":
            self.skipped_count += 1
            if self.keep_results:
                self.skipped.append(result)
        else:
            self.ingested_count += 1
            if self.keep_results:
                self.ingested.append(result)

    def fail(self, path: str, error: PriorisError) -> None:
        self.failed.append({"path": path, "error": error.to_dict()})

    def to_dict(self) -> dict[str, Any]:
        return {
            "ingested": [r.to_dict() for r in self.ingested],
            "skipped": [r.to_dict() for r in self.skipped],
            "failed": self.failed,
        }


def collect_pdfs(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files as given, and ``*.pdf`` found recursively in directories, in sorted order.

    Named files are passed on whatever their extension: their magic bytes decide. A folder
    that cannot be listed is passed on too, so that reading it fails with its reason."""
    for raw in paths:
        path = _expand(Path(raw))
        if path.is_dir():
            unreadable: list[Path] = []

            def note(exc: OSError, unreadable: list[Path] = unreadable, top: Path = path) -> None:
                unreadable.append(Path(exc.filename) if exc.filename else top)

            for root, dirs, files in os.walk(path, onerror=note):
                yield from _drain(unreadable)
                dirs.sort()
                for name in sorted(files):
                    if name.lower().endswith(".pdf"):
                        yield Path(root) / name
            yield from _drain(unreadable)
        else:
            yield path


def check_path(path: str | Path) -> None:
    """InvalidRequestError unless the operating system can take ``path`` (no NUL
    character; text that encodes to the file system's bytes)."""
    try:
        encoded = os.fsencode(path)
    except UnicodeEncodeError:
        raise InvalidRequestError(f"not a file path: {str(path)!r} is not valid text") from None
    if b"\x00" in encoded:
        raise InvalidRequestError(f"not a file path: {str(path)!r} holds a NUL character")


def read_file(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of the file ``path`` names, each refusal with its reason: a path the OS
    cannot take or a folder (invalid_request), a missing file (not_found), over
    ``max_bytes`` (file_too_large)."""
    check_path(path)
    path = Path(path)
    if not path.exists():
        raise NotFoundError(f"no such file: {path}")
    if path.is_dir():
        try:
            os.listdir(path)
        except OSError as exc:
            raise InvalidRequestError(f"cannot read folder {path}: {os_reason(exc)}") from None
        raise InvalidRequestError(f"not a file: {path} is a folder")
    if not path.is_file():
        raise InvalidRequestError(f"not a file: {path}")
    return read_file_checked(path, max_bytes)


def read_file_checked(path: Path, max_bytes: int) -> bytes:
    """Read a file after checking its size against the cap (no huge read for nothing).

    Any OS error (permission denied, a directory, an I/O error) is this file's failure:
    NotFoundError or InvalidRequestError with the reason, never an OSError.
    """
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise FileTooLargeError(
                f"{path} is {size} bytes, over the limit of {max_bytes} "
                "(PRIORIS_MCP_MAX_FILE_BYTES)"
            )
        # opened without waiting and looked at again through the descriptor: a file
        # swapped for a FIFO or a device since it was checked is refused, not read
        with open_regular(path, max_bytes + 1) as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {path}") from None
    except OSError as exc:
        raise InvalidRequestError(f"cannot read {path}: {os_reason(exc)}") from None
    if len(data) > max_bytes:  # it grew since stat
        raise FileTooLargeError(
            f"{path} is over the limit of {max_bytes} bytes (PRIORIS_MCP_MAX_FILE_BYTES)"
        )
    return data


def os_reason(exc: OSError) -> str:
    """An OSError as a short reason (``permission denied``), without the path twice."""
    return (exc.strerror or type(exc).__name__).lower()


def _expand(path: Path) -> Path:
    """``~`` and ``~user`` expanded; an unknown user leaves the path as typed (not found)."""
    try:
        return path.expanduser()
    except RuntimeError:
        return path


def _drain(items: list[Path]) -> Iterator[Path]:
    while items:
        yield items.pop(0)


@dataclass
class JsonlLine:
    """One line of a JSONL file: where it is (``file:line``) and its record or its error."""

    where: str
    value: dict[str, Any] | PriorisError


def placed(
    records: Iterable[dict[str, Any] | PriorisError | JsonlLine],
) -> Iterator[tuple[str, dict[str, Any] | PriorisError]]:
    """Each record with where it is for the summary: a JSONL line's ``file:line``, else
    ``record N``. A failure of the file itself (not one line) is raised by ``next``, so the
    caller can keep what it read before."""
    for number, item in enumerate(records, start=1):
        if isinstance(item, JsonlLine):
            yield item.where, item.value
        else:
            yield f"record {number}", item


def read_jsonl(path: Path, *, max_line_bytes: int = 4_194_304) -> Iterator[JsonlLine]:
    """Lines of a JSONL file; a bad line becomes an error item, not an exception.

    Each line is read with a bound (``max_line_bytes``, PRIORIS_MCP_MAX_RECORD_BYTES) and
    decoded on its own, so one line of binary junk, bad UTF-8 or absurd length fails alone.
    A PDF, or a file whose first lines are all unreadable, is refused as not JSONL.
    """
    check_path(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {path}") from None
    except OSError as exc:
        raise InvalidRequestError(f"cannot read {path}: {os_reason(exc)}") from None
    with handle:
        try:
            yield from _jsonl_lines(path, handle, max_line_bytes)
        except OSError as exc:
            raise InvalidRequestError(f"cannot read {path}: {os_reason(exc)}") from None


def _jsonl_lines(path: Path, handle: BinaryIO, max_line_bytes: int) -> Iterator[JsonlLine]:
    """Until a line parses, errors are held back: a file that is not JSONL at all (a PDF,
    binary junk) is refused with one error instead of one per line. A file that starts
    like a PDF is called one only when none of its lines parses: a ``%PDF-`` line before
    good records fails alone, like any other bad line (the fuzz suite found this)."""
    good = 0
    held: list[JsonlLine] = []
    looks_pdf = False
    for number, raw in enumerate(_bounded_lines(handle, max_line_bytes), start=1):
        if raw is None:
            item: dict[str, Any] | PriorisError = InvalidRequestError(
                f"the line is longer than {max_line_bytes} bytes (PRIORIS_MCP_MAX_RECORD_BYTES)"
            )
        elif not raw.strip():
            continue
        else:
            looks_pdf = looks_pdf or (not good and not held and raw.startswith(b"%PDF-"))
            item = _parse_line(raw)
        line = JsonlLine(f"{path}:{number}", item)
        if good:
            yield line
        elif isinstance(item, PriorisError):
            held.append(line)
            if len(held) >= PROBE_LINES:
                raise _not_jsonl(
                    path, looks_pdf, [f"line {h.where.rsplit(':', 1)[1]}: {h.value}" for h in held]
                )
        else:
            good += 1
            yield from held
            held.clear()
            yield line
    if held and looks_pdf and not good:  # a PDF: no line of it parsed
        raise _not_jsonl(path, looks_pdf, [])
    yield from held  # a short file of bad lines: each fails alone


def _not_jsonl(path: Path, looks_pdf: bool, errors: list[str]) -> InvalidRequestError:
    """One error for a whole file that is not JSONL."""
    if looks_pdf:
        return InvalidRequestError(
            f"{path} is a PDF, not a JSONL file of records; ingest it with `prioris ingest`"
        )
    return InvalidRequestError(
        f"{path} does not look like JSONL: its first {len(errors)} records are unreadable "
        f"({errors[0]})"
    )


def _parse_line(raw: bytes) -> dict[str, Any] | PriorisError:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return InvalidRequestError(f"not UTF-8 text (byte {exc.start + 1} of the line)")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return InvalidRequestError(f"not JSON ({exc.msg} at column {exc.colno})")
    except RecursionError:
        return InvalidRequestError("not JSON this parser can read (nested too deeply)")
    if not isinstance(value, dict):
        return InvalidRequestError("a record must be a JSON object")
    return value


def _bounded_lines(handle: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """Lines of a binary file; a line over ``limit`` bytes is skipped and yields None."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the long line
                line = handle.readline(1 << 20)
            yield None
            continue
        yield line
