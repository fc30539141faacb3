"""What a batch of files or records is made of, and what it did.

Kept apart from the Library so the CLI, the MCP server and Python callers share one
definition of "the PDFs under these paths", "the records of this JSONL file" and the
summary shape that ``ingest --json`` and ``import --json`` print.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prioris.errors import InvalidRequestError, NotFoundError, PriorisError
from prioris.ingest.pipeline import IngestResult

FileStage = Callable[[str, str, int, int], None]  # (path, stage, done, total); see StepProgress
FileDone = Callable[[Path, IngestResult | None, PriorisError | None], None]


@dataclass
class IngestSummary:
    """What a batch did: the ``--json`` shape of ``ingest`` and ``import``."""

    ingested: list[IngestResult] = field(default_factory=list)
    skipped: list[IngestResult] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)

    def add(self, result: IngestResult) -> None:
        (self.skipped if result.status == "skipped" else self.ingested).append(result)

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

    Named files are passed on whatever their extension: their magic bytes decide."""
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.lower().endswith(".pdf"):
                        yield Path(root) / name
        else:
            yield path


def read_jsonl(path: Path) -> Iterator[dict[str, Any] | PriorisError]:
    """Records of a JSONL file; a bad line becomes an error item, not an exception."""
    if not path.is_file():
        raise NotFoundError(f"no such file: {path}")
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                yield InvalidRequestError(f"{path}:{number}: not JSON ({exc.msg})")
                continue
            if not isinstance(value, dict):
                yield InvalidRequestError(f"{path}:{number}: a record must be a JSON object")
                continue
            yield value
