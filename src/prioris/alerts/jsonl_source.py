"""A JSONL file of candidates as an alert source: one JSON object a line,
``{"_id" | "id", "title", "text" | "abstract", "published"?, "doi"?, "arxiv"?, "pmid"?,
"openalex"?}`` (the form ``prioris alerts rank --candidates FILE`` reads too, and the
form BEIR corpora such as NFCorpus are written in).

Bounded like the other sources: the file is refused past ``max_bytes`` before it is
read, and at most ``max_results`` records (those dated since ``since``, or undated) are
returned. A line that is not a JSON object, or a record without an id or a title and
text, is invalid_request naming the line: a file that is half wrong is not half read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prioris.alerts.protocols import Candidate
from prioris.alerts.source_kit import (
    DEFAULT_MAX_RESULTS,
    canonical_identifiers,
    check_max,
    distinct,
    failing_as,
    read_local_file,
)
from prioris.alerts.when import check_since, is_new, normalise_date
from prioris.errors import InvalidRequestError

DEFAULT_MAX_JSONL_BYTES = 256 * 1024 * 1024
"""Largest candidates file read (NFCorpus's whole corpus, 3,600 abstracts, is 6 MB)."""
_ID_FIELDS = (("doi", "doi"), ("arxiv", "arxiv"), ("pmid", "pmid"), ("openalex", "openalex"))


def _scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    return str(value).strip() if isinstance(value, str | int | float) else ""


def record_candidate(record: Any, source: str, where: str) -> Candidate:
    """One JSONL record as a candidate; invalid_request naming ``where`` when it is no
    object, has no id, or has neither title nor text."""
    if not isinstance(record, dict):
        raise InvalidRequestError(f"{where} is not a JSON object")
    rid = _scalar(record.get("_id")) or _scalar(record.get("id"))
    if not rid:
        raise InvalidRequestError(f'{where} has no "_id" or "id"')
    title = _scalar(record.get("title"))
    text = _scalar(record.get("text")) or _scalar(record.get("abstract"))
    if not title and not text:
        raise InvalidRequestError(f'{where} ({rid}) has neither "title" nor "text"')
    given: list[str] = []
    for key, scheme in _ID_FIELDS:  # "10.1/x", "doi:10.1/x" or a doi.org URL: all read
        value = _scalar(record.get(key))
        given.extend([value, f"{scheme}:{value}"] if value else [])
    published = _scalar(record.get("published"))
    extra = {k: _scalar(record.get(k)) for k in ("venue", "url") if _scalar(record.get(k))}
    return Candidate(
        id=rid,
        title=" ".join(title.split()),
        text=" ".join(text.split()),
        source=source,
        published=normalise_date(published) if published else None,
        identifiers=canonical_identifiers([rid, *given]),
        extra=extra,
    )


def parse_jsonl(data: bytes, source: str) -> list[Candidate]:
    """Every record of a JSONL text (blank lines skipped), in order."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidRequestError(f"{source}: the file is not UTF-8 ({exc.reason})") from exc
    out: list[Candidate] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise InvalidRequestError(f"{source}: line {number} is not JSON ({exc})") from exc
        out.append(record_candidate(record, source, f"{source}: line {number}"))
    return out


class JsonlSource:
    """The records of a JSONL file (see the module docstring); no request."""

    def __init__(
        self,
        path: str | Path,
        *,
        max_results: int = DEFAULT_MAX_RESULTS,
        max_bytes: int = DEFAULT_MAX_JSONL_BYTES,
        name: str | None = None,
    ) -> None:
        if not str(path).strip():
            raise InvalidRequestError("a JSONL alert source needs a file")
        self.path = Path(str(path).strip()).expanduser()
        self.name = name or f"jsonl:{path}"
        self.max_results = check_max(max_results, self.name)
        self.max_bytes = max(1, int(max_bytes))
        self.notes: list[str] = []

    def candidates(self, since: str | None) -> list[Candidate]:
        """The file's records dated since ``since`` (undated ones kept), up to the bound."""
        self.notes = []
        with failing_as(self.name):
            since = check_since(since)
            data = read_local_file(self.path, self.max_bytes, "the JSONL file")
            found = [c for c in parse_jsonl(data, self.name) if is_new(c.published, since)]
            return distinct(found)[: self.max_results]
