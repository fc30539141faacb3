"""Works and their identifier aliases: insert, merge, resolve, list, delete.

An alias (``doi:…``, ``arxiv:…``, ``europepmc:…``, ``pmid:…``, ``openalex:…``) points to
exactly one work, so the same paper met through two providers is merged into one record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.models import Work
from prioris.storage.passage_counts import LIST_COUNTS, passages_apart, row_counts

SQLITE_MAX_INT = 2**63 - 1  # "no limit" that both backends take in LIMIT
_UNVERSIONED_ARXIV = re.compile(r"^arxiv:.+(?<!v\d)(?<!v\d\d)$")
_JSON_FIELDS = ("authors", "concepts", "extra", "keywords", "origins")
_OBJECT_FIELDS = ("extra", "origins")
_BOOL_FIELDS = ("is_oa", "is_preprint")
_COLUMNS = (
    "title",
    "authors",
    "year",
    "venue",
    "abstract",
    "source",
    "published",
    "type",
    "is_oa",
    "oa_status",
    "pdf_url",
    "cited_by_count",
    "concepts",
    "is_preprint",
    "extra",
    "volume",
    "issue",
    "pages",
    "publisher",
    "keywords",
    "origins",
)


def _to_row(work: Work) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for name in _COLUMNS:
        value = getattr(work, name)
        if name in _JSON_FIELDS:
            value = json.dumps(value, ensure_ascii=False)
        elif name in _BOOL_FIELDS and value is not None:
            value = int(bool(value))
        row[name] = value
    return row


def _from_row(row: Any, aliases: list[str]) -> Work:
    data = {name: row[name] for name in _COLUMNS}
    for name in _JSON_FIELDS:
        data[name] = json.loads(data[name] or ("{}" if name in _OBJECT_FIELDS else "[]"))
    for name in _BOOL_FIELDS:
        data[name] = None if data[name] is None else bool(data[name])
    return Work(
        id=row["id"],
        aliases=aliases,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        **data,
    )


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def find_work_id(conn: Any, candidates: Iterable[str]) -> str | None:
    """The stored work that any of these ids or aliases belongs to."""
    for candidate in candidates:
        row = conn.execute("SELECT id FROM works WHERE id = ?", (candidate,)).fetchone()
        if row:
            return str(row[0])
        row = conn.execute("SELECT work_id FROM aliases WHERE alias = ?", (candidate,)).fetchone()
        if row:
            return str(row[0])
    return None


def find_by_alias_prefix(conn: Any, prefix: str) -> str | None:
    """Latest-version match for an unversioned arXiv id (``arxiv:2401.01234`` -> ``…v3``)."""
    bounds = (prefix + "v", prefix + "w")
    rows = conn.execute(
        "SELECT alias, work_id FROM aliases WHERE alias >= ? AND alias < ? "
        "UNION ALL SELECT id, id FROM works WHERE id >= ? AND id < ?",
        bounds + bounds,
    ).fetchall()
    best: tuple[int, str] | None = None
    for alias, work_id in rows:
        suffix = alias[len(prefix) + 1 :]
        if suffix.isdigit() and (best is None or int(suffix) > best[0]):
            best = (int(suffix), work_id)
    return best[1] if best else None


def upsert_work(conn: Any, work: Work, now: str) -> str:
    """Store a work or merge it into the one that shares an id or alias; returns its id.

    Merging keeps stored values and fills only what was missing, except counts and OA data
    that a provider refreshes. Must run inside the caller's transaction.
    """
    existing_id = find_work_id(conn, [work.id, *work.aliases])
    if existing_id is None:
        row = _to_row(work)
        names = ", ".join(["id", *row, "created_at", "updated_at"])
        marks = ", ".join("?" for _ in range(len(row) + 3))
        conn.execute(
            f"INSERT INTO works ({names}) VALUES ({marks})",
            (work.id, *row.values(), now, now),
        )
        work_id = work.id
    else:
        work_id = existing_id
        stored = get_work(conn, work_id)
        assert stored is not None
        updates: dict[str, Any] = {}
        for name in _COLUMNS:
            new, old = getattr(work, name), getattr(stored, name)
            if name in _OBJECT_FIELDS:
                merged = {**new, **old}
                if merged != old:
                    updates[name] = merged
            elif name in ("cited_by_count", "is_oa", "oa_status", "pdf_url"):
                if not _is_empty(new) and new != old:
                    updates[name] = new
            elif _is_empty(old) and not _is_empty(new):
                updates[name] = new
        if updates:
            merged_work = Work(
                id=work_id, **{**{n: getattr(stored, n) for n in _COLUMNS}, **updates}
            )
            row = _to_row(merged_work)
            assignments = ", ".join(f"{name} = ?" for name in updates)
            conn.execute(
                f"UPDATE works SET {assignments}, updated_at = ? WHERE id = ?",
                (*[row[name] for name in updates], now, work_id),
            )
    add_aliases(conn, work_id, [work.id, *work.aliases])
    return work_id


def replace_fields(conn: Any, work: Work, now: str) -> None:
    """Overwrite a stored work's bibliographic columns with ``work``'s (a provider's
    record merged in wins over what was stored) and add its aliases."""
    row = _to_row(work)
    assignments = ", ".join(f"{name} = ?" for name in row)
    conn.execute(
        f"UPDATE works SET {assignments}, updated_at = ? WHERE id = ?",
        (*row.values(), now, work.id),
    )
    add_aliases(conn, work.id, work.aliases)


def add_aliases(conn: Any, work_id: str, aliases: Iterable[str]) -> None:
    """Point new aliases at ``work_id``. An alias already owned by a work keeps its owner,
    and another work's own id never becomes an alias: a provider's reply that names
    another stored paper's identifier must not make that paper findable as this one (once
    it was deleted, importing it again would merge it into this work)."""
    conn.executemany(
        "INSERT INTO aliases(alias, work_id) SELECT ?, ? "
        "WHERE NOT EXISTS (SELECT 1 FROM works WHERE id = ?) ON CONFLICT DO NOTHING",
        [(alias, work_id, alias) for alias in dict.fromkeys(aliases) if alias and alias != work_id],
    )


def alias_conflicts(conn: Any, work_id: str, aliases: Iterable[str]) -> list[dict[str, str]]:
    """The aliases among ``aliases`` that belong to another work (as its id or alias):
    ``[{"alias", "owner"}]``, for reports. :func:`add_aliases` leaves them with it."""
    found = []
    for alias in dict.fromkeys(aliases):
        if not alias or alias == work_id:
            continue
        owner = find_work_id(conn, [alias])
        if owner is not None and owner != work_id:
            found.append({"alias": alias, "owner": owner})
    return found


def aliases_of(conn: Any, work_id: str) -> list[str]:
    rows = conn.execute(
        "SELECT alias FROM aliases WHERE work_id = ? ORDER BY alias", (work_id,)
    ).fetchall()
    return [r[0] for r in rows]


def get_work(conn: Any, work_id: str) -> Work | None:
    row = conn.execute("SELECT * FROM works WHERE id = ?", (work_id,)).fetchone()
    return _from_row(row, aliases_of(conn, work_id)) if row else None


def key_fields_of_year(conn: Any, year: int | None) -> list[tuple[str, str, list[str]]]:
    """``(id, title, authors)`` of the works of one year (None: without a year), in id
    order: what a generated citation key is made of, without reading whole works."""
    if year is None:
        rows = conn.execute("SELECT id, title, authors FROM works WHERE year IS NULL ORDER BY id")
    else:
        rows = conn.execute(
            "SELECT id, title, authors FROM works WHERE year = ? ORDER BY id", (year,)
        )
    return [(r[0], r[1] or "", json.loads(r[2] or "[]")) for r in rows]


def get_works(conn: Any, work_ids: Sequence[str]) -> dict[str, Work]:
    """Several works at once (aliases omitted: search hits do not need them)."""
    found: dict[str, Work] = {}
    for start in range(0, len(work_ids), 500):
        batch = list(work_ids[start : start + 500])
        marks = ", ".join("?" for _ in batch)
        for row in conn.execute(f"SELECT * FROM works WHERE id IN ({marks})", batch):
            found[row["id"]] = _from_row(row, [])
    return found


def list_works(
    conn: Any,
    *,
    limit: int | None = None,
    offset: int = 0,
    where: tuple[str, list[Any]] | None = None,
) -> list[dict[str, Any]]:
    """Works newest first, with document and chunk counts for the listing commands.
    ``where``: an SQL condition on ``w`` and its parameters (a collection or tag filter,
    :func:`prioris.storage.labels.label_condition`)."""
    clause, params = (f"WHERE {where[0]} ", list(where[1])) if where else ("", [])
    rows = conn.execute(
        "SELECT w.id, w.title, w.authors, w.year, w.source, w.created_at, "
        "(SELECT count(*) FROM documents d WHERE d.work_id = w.id) AS documents"
        f"{'' if passages_apart(conn) else LIST_COUNTS} "
        f"FROM works w {clause}ORDER BY w.created_at DESC, w.id LIMIT ? OFFSET ?",
        (*params, SQLITE_MAX_INT if limit is None else limit, offset),
    ).fetchall()
    counts = row_counts(conn, rows)
    return [
        {
            "id": r["id"],
            "title": r["title"],
            "authors": json.loads(r["authors"]),
            "year": r["year"],
            "source": r["source"],
            "documents": r["documents"],
            "chunks": counts.get(r["id"], {}).get("chunks", 0),
            "pages": counts.get(r["id"], {}).get("last_page") or 0,
            "added": r["created_at"],
        }
        for r in rows
    ]


BUILT_IN_SOURCES = ("arxiv", "europepmc", "openalex", "file", "import", "zotero", "bibtex", "ris")
"""Where works come from (``works.source``); imported records may name others."""


def check_source(conn: Any, source: str) -> None:
    """Refuse a source filter no work can match (a typo would otherwise find nothing,
    silently): a built-in source or one a stored work has is fine."""
    if source in BUILT_IN_SOURCES:
        return
    if conn.execute("SELECT 1 FROM works WHERE source = ? LIMIT 1", (source,)).fetchone():
        return
    stored = [r[0] for r in conn.execute("SELECT DISTINCT source FROM works ORDER BY source")]
    known = list(dict.fromkeys([*BUILT_IN_SOURCES, *stored]))
    raise InvalidRequestError(f"unknown source {source!r}; known sources: {', '.join(known)}")


def known_aliases(conn: Any, aliases: Sequence[str]) -> set[str]:
    """Which of these ids/aliases already belong to a stored work."""
    known: set[str] = set()
    for alias in dict.fromkeys(aliases):
        if find_work_id(conn, [alias]) is not None:
            known.add(alias)
        elif _UNVERSIONED_ARXIV.match(alias) and find_by_alias_prefix(conn, alias):
            known.add(alias)  # any stored version of an unversioned arXiv id counts
    return known


def set_markdown(conn: Any, work_id: str, markdown: str, sha256: str | None, now: str) -> None:
    """Make ``markdown`` the work's text, parsed from the stored document ``sha256`` (whose
    format is remembered with it) or from metadata only (``sha256`` None)."""
    conn.execute(
        "UPDATE works SET markdown = ?, markdown_sha256 = ?, updated_at = ?, "
        "markdown_format = (SELECT format FROM documents WHERE sha256 = ?) WHERE id = ?",
        (markdown, sha256, now, sha256, work_id),
    )


def delete_work(conn: Any, work_id: str) -> None:
    """Remove a work from every table and index (inside the caller's transaction)."""
    from prioris.storage.chunks import delete_chunks_of

    delete_chunks_of(conn, work_id)
    shas = [
        r[0] for r in conn.execute("SELECT sha256 FROM documents WHERE work_id = ?", (work_id,))
    ]
    conn.execute("DELETE FROM documents WHERE work_id = ?", (work_id,))
    for sha in shas:
        conn.execute(
            "DELETE FROM blobs WHERE sha256 = ? AND NOT EXISTS "
            "(SELECT 1 FROM documents WHERE sha256 = ?)",
            (sha, sha),
        )
    conn.execute("DELETE FROM pages WHERE work_id = ?", (work_id,))
    conn.execute("DELETE FROM aliases WHERE work_id = ?", (work_id,))
    conn.execute("DELETE FROM work_records WHERE work_id = ?", (work_id,))
    conn.execute("DELETE FROM work_edits WHERE work_id = ?", (work_id,))
    conn.execute("DELETE FROM work_collections WHERE work_id = ?", (work_id,))
    conn.execute("DELETE FROM work_tags WHERE work_id = ?", (work_id,))
    conn.execute("DELETE FROM works WHERE id = ?", (work_id,))


def library_counts(conn: Any) -> dict[str, int]:
    """Works, documents, chunks, pages, OCR'd pages and chunks awaiting vectors."""
    from prioris.storage.chunks import count_stale

    one = conn.execute
    pages, ocr_pages = one("SELECT count(*), coalesce(sum(ocr), 0) FROM pages").fetchone()
    return {
        "works": one("SELECT count(*) FROM works").fetchone()[0],
        "documents": one("SELECT count(*) FROM documents").fetchone()[0],
        "chunks": one("SELECT count(*) FROM chunks").fetchone()[0],
        "pages": pages,
        "ocr_pages": ocr_pages,
        "stale_chunks": count_stale(conn),
        **incomplete_counts(conn),
    }


def incomplete_counts(conn: Any) -> dict[str, int]:
    """Works a citation would name ``anon`` or ``n.d.``: without any author, without a
    year, and either (what ``prioris status`` suggests ``enrich`` for)."""
    no_authors = "(authors IS NULL OR authors = '' OR authors = '[]')"
    row = conn.execute(
        f"SELECT coalesce(sum(CASE WHEN {no_authors} THEN 1 ELSE 0 END), 0), "
        "coalesce(sum(CASE WHEN year IS NULL THEN 1 ELSE 0 END), 0), "
        f"coalesce(sum(CASE WHEN {no_authors} OR year IS NULL THEN 1 ELSE 0 END), 0) "
        "FROM works"
    ).fetchone()
    return {
        "works_without_authors": int(row[0]),
        "works_without_year": int(row[1]),
        "works_incomplete": int(row[2]),
    }
