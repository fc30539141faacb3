"""Candidates from a file, for the offline ``prioris alerts rank`` and ``feed``: JSONL
records (``{"_id", "title", "text"}``, as ``prioris import`` reads) or an Atom/RSS feed
(a journal's table of contents, bioRxiv's feeds), told apart by the first character.

Bounded: a file over :data:`MAX_BYTES` or with more than :data:`MAX_CANDIDATES` entries is
refused as it is read, and XML is parsed by defusedxml (no entity expansion, no external
entities). A bad JSONL line is invalid_request with its line number: a ranking of part of
a file would look complete.
"""

from __future__ import annotations

import json
import re
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from prioris.alerts.protocols import Candidate
from prioris.errors import InvalidRequestError, NotFoundError

MAX_BYTES = 64 * 1024 * 1024
MAX_CANDIDATES = 50_000
MAX_TEXT_CHARS = 20_000
_ATOM = "{http://www.w3.org/2005/Atom}"
_TAGS = re.compile(r"<[^>]+>")
_DOI = re.compile(r"(?:doi\.org/|doi:)\s*(10\.\d{4,9}/\S+)", re.IGNORECASE)
_ARXIV = re.compile(r"arxiv\.org/abs/([^\s?#]+)", re.IGNORECASE)


def read_candidates(path: str | Path) -> list[Candidate]:
    """The candidates of a JSONL or Atom/RSS file."""
    path = Path(path)
    if not path.is_file():
        raise NotFoundError(f"no candidates file at {path}")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise InvalidRequestError(f"{path} is {size} bytes; at most {MAX_BYTES} are read")
    data = path.read_bytes()[:MAX_BYTES]
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    found = _feed(text, path) if text.lstrip().startswith("<") else _jsonl(text, path)
    if len(found) > MAX_CANDIDATES:
        raise InvalidRequestError(f"{path} holds over {MAX_CANDIDATES} candidates")
    return found


def _jsonl(text: str, path: Path) -> list[Candidate]:
    out: list[Candidate] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidRequestError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise InvalidRequestError(f"{path}:{number}: a record must be a JSON object")
        out.append(_record(record, f"{path}:{number}"))
        if len(out) > MAX_CANDIDATES:
            break
    return out


def _record(record: dict[str, Any], where: str) -> Candidate:
    ident = record.get("_id", record.get("id"))
    title = record.get("title")
    body = record.get("text") or record.get("abstract") or ""
    if not isinstance(ident, str | int) or not str(ident).strip():
        raise InvalidRequestError(f'{where}: a record needs an "_id"')
    if not isinstance(title, str) or not isinstance(body, str):
        raise InvalidRequestError(f'{where}: "title" and "text" must be strings')
    ids = [record[k] for k in ("doi", "arxiv", "pmid") if isinstance(record.get(k), str)]
    published = record.get("published") or record.get("year")
    return Candidate(
        id=str(ident).strip(),
        title=" ".join(title.split()),
        text=body[:MAX_TEXT_CHARS],
        source="file",
        published=str(published) if published is not None else None,
        identifiers=tuple(ids),
    )


def _plain(value: str | None) -> str:
    return " ".join(_TAGS.sub(" ", value or "").split())


def _identifiers(*values: str) -> tuple[str, ...]:
    found: list[str] = []
    for value in values:
        found += [f"doi:{m.rstrip('.,;')}" for m in _DOI.findall(value)]
        found += [f"arxiv:{m}" for m in _ARXIV.findall(value)]
    return tuple(dict.fromkeys(found))


def _date(value: str | None) -> str | None:
    """An ISO date from Atom's (already ISO) or RSS's RFC 822 dates."""
    value = (value or "").strip()
    if not value:
        return None
    if value[:4].isdigit():
        return value[:10]
    try:
        return parsedate_to_datetime(value).date().isoformat()
    except (TypeError, ValueError):
        return None


def _feed(text: str, path: Path) -> list[Candidate]:
    from defusedxml import ElementTree
    from defusedxml.common import DefusedXmlException

    try:
        root = ElementTree.fromstring(text)
    except (ElementTree.ParseError, DefusedXmlException) as exc:
        raise InvalidRequestError(f"{path} is neither JSONL nor a readable feed: {exc}") from exc
    out: list[Candidate] = []
    for entry in root.iter(f"{_ATOM}entry"):
        link = next(
            (
                e.get("href", "")
                for e in entry.findall(f"{_ATOM}link")
                if e.get("rel", "alternate") == "alternate"
            ),
            "",
        )
        ident = (entry.findtext(f"{_ATOM}id") or link).strip()
        body = entry.findtext(f"{_ATOM}summary") or entry.findtext(f"{_ATOM}content") or ""
        out.append(
            _entry(
                ident,
                entry.findtext(f"{_ATOM}title"),
                body,
                link,
                entry.findtext(f"{_ATOM}published") or entry.findtext(f"{_ATOM}updated"),
            )
        )
    for item in root.iter("item"):  # RSS 2.0 (RSS 1.0's items are namespaced: also read)
        link = (item.findtext("link") or "").strip()
        ident = (item.findtext("guid") or link).strip()
        out.append(
            _entry(
                ident,
                item.findtext("title"),
                item.findtext("description"),
                link,
                item.findtext("pubDate"),
            )
        )
    for item in root.iter("{http://purl.org/rss/1.0/}item"):
        link = (item.findtext("{http://purl.org/rss/1.0/}link") or "").strip()
        ident = item.get("{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about") or link
        out.append(
            _entry(
                ident,
                item.findtext("{http://purl.org/rss/1.0/}title"),
                item.findtext("{http://purl.org/rss/1.0/}description"),
                link,
                item.findtext("{http://purl.org/dc/elements/1.1/}date"),
            )
        )
    return [c for c in out if c.id and c.title][: MAX_CANDIDATES + 1]


def _entry(
    ident: str, title: str | None, body: str | None, link: str, date: str | None
) -> Candidate:
    return Candidate(
        id=ident,
        title=_plain(title),
        text=_plain(body)[:MAX_TEXT_CHARS],
        source="feed",
        published=_date(date),
        identifiers=_identifiers(ident, link),
        extra={"link": link} if link else {},
    )
