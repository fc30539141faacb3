"""The JSONL importer on arbitrary lines: every line is a record stored or one error with its
``file:line``; every good record is stored (its id resolves: a record whose text another
already has becomes an alias of that work), whatever the lines around it; the library
file stays intact."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fuzz.strategies import LINE
from prioris.errors import PriorisError
from prioris.ingest.records import validate_record

_files = itertools.count()


def _valid_id(raw: bytes, max_bytes: int) -> str | None:
    """The id the importer must store for this line, or None if the line must fail."""
    if len(raw) + 1 > max_bytes:
        return None
    try:
        value = json.loads(raw.decode("utf-8"))
        return validate_record(value).id
    except (ValueError, RecursionError, PriorisError):
        return None


@given(lines=st.lists(LINE, min_size=1, max_size=30))
def test_every_good_record_is_stored_and_every_bad_line_fails_alone(
    library, tmp_path: Path, lines: list[bytes]
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / f"corpus-{next(_files)}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    limit = library.settings.max_record_bytes
    expected = {_valid_id(raw, limit) for raw in lines if raw.strip()} - {None}
    try:
        summary = library.import_records(library.read_jsonl(path))
    except PriorisError as exc:  # the whole file refused: only when nothing in it was good
        assert exc.code == "invalid_request"
        assert not expected, exc.message
        return
    for failure in summary.failed:
        assert failure["path"].startswith(f"{path}:"), failure
        assert failure["error"]["code"] in ("invalid_request", "parse_error"), failure
    for work_id in expected:  # stored, or an alias of the work with the same text
        library.resolve_work_id(work_id)
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
