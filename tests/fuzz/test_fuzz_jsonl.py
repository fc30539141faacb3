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

_files = itertools.count()


_NO_DATE = {"n.d.", "n.d", "nd", "s.d.", "no date", "unknown", "n/a"}
_TEXT_FIELDS = ("title", "text", "abstract", "venue", "source")


def _year_ok(value: object) -> bool:
    """The year rule of docs/import.md, written out: absent, blank or a "no date" marker,
    or a whole number 1..9999 (an integer, an integral float, or 1 to 4 ASCII digits)."""
    if value is None:
        return True
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        text = value.strip()
        if not text or text.lower() in _NO_DATE:
            return True
        if not (1 <= len(text) <= 4 and all(c in "0123456789" for c in text)):
            return False
        value = int(text)
    if isinstance(value, float):
        if not value.is_integer():
            return False
        value = int(value)
    return isinstance(value, int) and 1 <= value <= 9999


def _expected_id(value: object) -> str | None:
    """The id a good record is stored under, None for a record that must fail: computed
    here from the record rules, not with the importer's own validation."""
    if not isinstance(value, dict):
        return None
    key = "_id" if "_id" in value else "id" if "id" in value else None
    if key is None:
        return None
    raw = value[key]
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None
    work_id = str(raw).strip()
    if not work_id:
        return None
    if any(value.get(f) is not None and not isinstance(value[f], str) for f in _TEXT_FIELDS):
        return None
    authors = value.get("authors")  # absent, "A; B", or a list of names
    names_ok = isinstance(authors, list) and all(isinstance(a, str) for a in authors)
    if not (authors is None or isinstance(authors, str) or names_ok):
        return None
    if value.get("metadata") is not None and not isinstance(value["metadata"], dict):
        return None
    if not _year_ok(value.get("year")):
        return None
    title = value.get("title") or ""
    body = value.get("text") or value.get("abstract") or ""  # text first, abstract if none
    if not title.strip() and not body.strip():
        return None
    return work_id


def _valid_id(raw: bytes, max_bytes: int) -> str | None:
    """The id the importer must store for this line, or None if the line must fail."""
    if len(raw) + 1 > max_bytes:
        return None
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return _expected_id(value)


@given(lines=st.lists(LINE, min_size=1, max_size=30))
def test_every_good_record_is_stored_and_every_bad_line_fails_alone(
    library, tmp_path: Path, lines: list[bytes]
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / f"corpus-{next(_files)}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    limit = library.settings.max_record_bytes
    ids = {number: _valid_id(raw, limit) for number, raw in enumerate(lines, 1) if raw.strip()}
    expected = set(ids.values()) - {None}
    bad_lines = {number for number, work_id in ids.items() if work_id is None}
    try:
        summary = library.import_records(library.read_jsonl(path))
    except PriorisError as exc:  # the whole file refused: only when nothing in it was good
        assert exc.code == "invalid_request"
        assert not expected, exc.message
        return
    for failure in summary.failed:
        assert failure["path"].startswith(f"{path}:"), failure
        assert failure["error"]["code"] in ("invalid_request", "parse_error"), failure
    failed_lines = {int(f["path"].rsplit(":", 1)[1]) for f in summary.failed}
    assert failed_lines == bad_lines  # exactly the lines the rules refuse, no good one
    for work_id in expected:  # stored, or an alias of the work with the same text
        library.resolve_work_id(work_id)
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
