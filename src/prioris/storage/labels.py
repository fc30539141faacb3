"""Collections and tags of works: stored per source, matched case-insensitively.

A reference manager (Zotero, a BibTeX file's ``keywords``, RIS) says which collections
a work is in and which tags it carries; each source's labels are kept apart
(``work_collections``, ``work_tags``: one row per work, source and label) so a re-sync of
one source replaces its own and never another's. A collection is its full path, the
segments joined by ``" / "`` (``"Thesis / Chapter 2"``).

Matching a filter (``--collection``, ``--tag``) is case-insensitive. It is done here, in
Python, on the few distinct paths and tags a library has (:func:`fold`: Unicode case
folding and whitespace), and the spellings that match are then looked up exactly through
the indexes. SQLite's ``lower()`` and ``NOCASE`` fold ASCII only while PostgreSQL's
``lower()`` folds Unicode, so folding in SQL would make ``--tag Ökologie`` match on one
engine and not the other.

The rules (the same for search, list, export and the web facets):

- ``--collection NAME`` matches a collection whose path is NAME or ends with NAME in whole
  segments (so the full path, or the last segment: ``Chapter 2`` finds ``Thesis / Chapter
  2``), together with its subcollections (``Thesis`` finds ``Thesis / Chapter 2`` too).
  Several collections: a work in any of them.
- ``--tag NAME``: the tag, case-insensitively. Several tags: a work carrying all of them
  (as Zotero's tag selector narrows).
- Both: a work that passes both.
- A name nothing matches gives no works (not an error; :func:`unmatched` says which).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from prioris.errors import InvalidRequestError, NotFoundError

SEPARATOR = " / "
"""Between the segments of a collection path."""
BATCH = 500  # ids per IN (...) list
MAX_NAMES = 50  # collections or tags in one filter
MAX_NAME_CHARS = 1000
_SPACE = re.compile(r"\s+")
_SLASH = re.compile(r"\s*/\s*")
_TABLES = {"collections": ("work_collections", "path"), "tags": ("work_tags", "tag")}


@functools.lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """The form two spellings of one label share: NFC, case folded, runs of whitespace
    as one space, the ends stripped."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text).casefold()).strip()


@functools.lru_cache(maxsize=65536)
def fold_path(path: str) -> str:
    """A collection path folded, its segments joined by ``" / "`` however they were
    spaced (``Thesis/Chapter 2`` and ``thesis / chapter 2`` are one path)."""
    return SEPARATOR.join(s for s in _SLASH.split(fold(path)) if s)


def _clean(values: Iterable[str]) -> list[str]:
    """Labels as given, stripped, empty ones dropped, exact repeats once."""
    out = [_SPACE.sub(" ", v).strip() for v in values if isinstance(v, str)]
    return list(dict.fromkeys(v for v in out if v))


def _first_spellings(values: Iterable[str], key: Any = fold) -> list[str]:
    """Sorted case-insensitively, one spelling per folded form (the first in that order)."""
    kept: dict[str, str] = {}
    for value in sorted(values, key=lambda v: (key(v), v)):
        kept.setdefault(key(value), value)
    return list(kept.values())


def filter_names(values: str | Sequence[str] | None, what: str) -> tuple[str, ...]:
    """A filter's collection or tag names as every interface gives them (None, one name,
    or several) made a tuple; blank names are dropped, too many or too long ones are
    invalid_request (``what``: "collection" or "tag", for the message)."""
    if values is None:
        return ()
    items = [values] if isinstance(values, str) else list(values)
    if any(not isinstance(v, str) for v in items):
        raise InvalidRequestError(f"each {what} must be a string")
    names = tuple(_clean(items))
    if len(names) > MAX_NAMES:
        raise InvalidRequestError(f"at most {MAX_NAMES} {what}s in one filter, got {len(names)}")
    for name in names:
        if len(name) > MAX_NAME_CHARS:
            raise InvalidRequestError(
                f"a {what} name is at most {MAX_NAME_CHARS} characters, got {len(name)}"
            )
    return names


# -- writing ---------------------------------------------------------------------------
def set_labels(
    conn: Any,
    work_id: str,
    source: str,
    *,
    collections: Sequence[str] | None,
    tags: Sequence[str] | None,
) -> bool:
    """Replace ``source``'s collections and tags of a work (other sources' stay; a kind
    given as None stays as it is); returns whether anything changed. Runs inside the
    caller's transaction; labels for an unknown work are not_found. An unchanged work costs
    one read (a re-sync of a large library changes few), a changed one a read per row added
    or removed besides."""
    stored: dict[str, set[str]] = {"collections": set(), "tags": set()}
    for kind, value in conn.execute(
        "SELECT 'collections', path FROM work_collections WHERE work_id = ? AND source = ? "
        "UNION ALL SELECT 'tags', tag FROM work_tags WHERE work_id = ? AND source = ?",
        (work_id, source, work_id, source),
    ):
        stored[kind].add(value)
    wanted = {
        kind: sorted(stored[kind]) if given is None else _clean(given)
        for kind, given in (("collections", collections), ("tags", tags))
    }
    new = {kind: [v for v in wanted[kind] if v not in stored[kind]] for kind in _TABLES}
    gone = {kind: stored[kind] - set(wanted[kind]) for kind in _TABLES}
    if (
        any(new.values())
        and not conn.execute("SELECT 1 FROM works WHERE id = ?", (work_id,)).fetchone()
    ):
        raise NotFoundError(f"no work {work_id!r} in the library")
    for kind, (table, column) in _TABLES.items():
        if gone[kind]:
            conn.executemany(
                f"DELETE FROM {table} WHERE work_id = ? AND source = ? AND {column} = ?",
                [(work_id, source, v) for v in sorted(gone[kind])],
            )
        if new[kind]:
            conn.executemany(
                f"INSERT INTO {table}(work_id, source, {column}) VALUES (?, ?, ?)",
                [(work_id, source, v) for v in new[kind]],
            )
    return any(new.values()) or any(gone.values())


def remove_labels(conn: Any, work_id: str, source: str) -> None:
    """Drop every collection and tag ``source`` gave the work (inside the caller's
    transaction); the other sources' stay."""
    for table, _ in _TABLES.values():
        conn.execute(f"DELETE FROM {table} WHERE work_id = ? AND source = ?", (work_id, source))


def delete_labels_of(conn: Any, work_id: str) -> None:
    """Every label of a work, whatever its source (a deleted work; the foreign keys'
    cascade does the same where they are enforced)."""
    for table, _ in _TABLES.values():
        conn.execute(f"DELETE FROM {table} WHERE work_id = ?", (work_id,))


# -- reading ---------------------------------------------------------------------------
def labels_of(conn: Any, work_id: str) -> dict[str, list[str]]:
    """``{"collections": [...], "tags": [...]}`` of a work: the union over sources,
    sorted, one spelling per case-insensitive form."""
    return labels_of_many(conn, [work_id])[work_id]


def labels_of_many(conn: Any, work_ids: Sequence[str]) -> dict[str, dict[str, list[str]]]:
    """:func:`labels_of` for several works at once (one query per table and 500 ids);
    every id asked for is in the answer (empty lists when it has no labels)."""
    ids = list(dict.fromkeys(work_ids))
    found: dict[str, dict[str, set[str]]] = {i: {"collections": set(), "tags": set()} for i in ids}
    for kind, (table, column) in _TABLES.items():
        for start in range(0, len(ids), BATCH):
            batch = ids[start : start + BATCH]
            marks = ", ".join("?" for _ in batch)
            for work_id, value in conn.execute(
                f"SELECT work_id, {column} FROM {table} WHERE work_id IN ({marks})", batch
            ):
                found[work_id][kind].add(value)
    return {
        i: {
            "collections": _first_spellings(labels["collections"], fold_path),
            "tags": _first_spellings(labels["tags"]),
        }
        for i, labels in found.items()
    }


def _distinct(conn: Any, kind: str) -> list[str]:
    table, column = _TABLES[kind]
    return [r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM {table}")]


@functools.lru_cache(maxsize=65536)
def _ancestors(folded: str) -> tuple[str, ...]:
    """A folded path and each of its parents' (``a / b / c``, ``a / b``, ``a``)."""
    segments = folded.split(SEPARATOR)
    return tuple(SEPARATOR.join(segments[:n]) for n in range(len(segments), 0, -1))


def collection_counts(conn: Any) -> list[tuple[str, int]]:
    """``[(path, works)]`` for every collection and every parent of one, in path order:
    the works in it or in any of its subcollections, each once (what filtering by that
    path finds). A parent that holds no work directly is listed too, since filtering by it
    finds its subcollections' works."""
    members: dict[str, set[str]] = {}
    spelling: dict[str, str] = {}
    named: dict[str, tuple[tuple[str, str], ...]] = {}  # path: (folded, spelt) of it and parents
    for work_id, path in conn.execute("SELECT DISTINCT work_id, path FROM work_collections"):
        pairs = named.get(path)
        if pairs is None:
            shown = _display_segments(path)
            pairs = tuple(
                (key, SEPARATOR.join(shown[: len(shown) - n]))
                for n, key in enumerate(_ancestors(fold_path(path)))
            )
            named[path] = pairs
            for key, name in pairs:
                if key not in spelling or name < spelling[key]:
                    spelling[key] = name
        for key, _ in pairs:
            members.setdefault(key, set()).add(work_id)
    return [(spelling[key], len(members[key])) for key in sorted(members)]


def _display_segments(path: str) -> list[str]:
    return [s for s in (_SPACE.sub(" ", x).strip() for x in _SLASH.split(path)) if s]


def tag_counts(conn: Any) -> list[tuple[str, int]]:
    """``[(tag, works)]``, most used first, then by name; tags that differ only in case
    are one (its first spelling). Counted in SQL per spelling; only a tag spelt several
    ways has its works counted again together (a work may carry two of the spellings)."""
    groups: dict[str, dict[str, int]] = {}
    for tag, count in conn.execute(
        "SELECT tag, count(DISTINCT work_id) FROM work_tags GROUP BY tag"
    ):
        groups.setdefault(fold(tag), {})[tag] = int(count)
    counted = []
    for spellings in groups.values():
        count = next(iter(spellings.values()))
        if len(spellings) > 1:
            names = sorted(spellings)
            marks = ", ".join("?" for _ in names)
            count = int(
                conn.execute(
                    f"SELECT count(DISTINCT work_id) FROM work_tags WHERE tag IN ({marks})", names
                ).fetchone()[0]
            )
        counted.append((min(spellings), count))
    return sorted(counted, key=lambda t: (-t[1], fold(t[0]), t[0]))


# -- filtering -------------------------------------------------------------------------
def _path_matches(stored: str, wanted: str) -> bool:
    """Whether folded path ``stored`` is the collection ``wanted`` names (its path, or
    its last segments) or one of that collection's subcollections."""
    return f"{SEPARATOR}{wanted}{SEPARATOR}" in f"{SEPARATOR}{stored}{SEPARATOR}"


def matching_paths(conn: Any, name: str) -> list[str]:
    """The stored paths (as spelt) that filtering by collection ``name`` takes in."""
    wanted = fold_path(name)
    if not wanted:
        return []
    return sorted(p for p in _distinct(conn, "collections") if _path_matches(fold_path(p), wanted))


def matching_tags(conn: Any, name: str) -> list[str]:
    """The stored spellings of tag ``name``."""
    wanted = fold(name)
    if not wanted:
        return []
    return sorted(t for t in _distinct(conn, "tags") if fold(t) == wanted)


def label_condition(
    conn: Any,
    *,
    collections: Sequence[str] = (),
    tags: Sequence[str] = (),
    id_column: str = "w.id",
) -> tuple[str, list[Any]] | None:
    """The label filter as an SQL condition on ``id_column`` (``?`` placeholders, one
    text for both engines), for listings that page in SQL; None when no filter is given.
    Its parameters are the stored spellings that match, never the work ids, so it stays
    short whatever the number of works."""
    names = _clean(collections)
    wanted_tags = _clean(tags)
    if not names and not wanted_tags:
        return None
    clauses: list[str] = []
    params: list[Any] = []
    if names:
        paths = sorted({p for name in names for p in matching_paths(conn, name)})
        if not paths:
            return "1 = 0", []
        marks = ", ".join("?" for _ in paths)
        clauses.append(
            f"{id_column} IN (SELECT work_id FROM work_collections WHERE path IN ({marks}))"
        )
        params += paths
    for tag in dict.fromkeys(fold(t) for t in wanted_tags):
        spellings = matching_tags(conn, tag)
        if not spellings:
            return "1 = 0", []
        marks = ", ".join("?" for _ in spellings)
        clauses.append(f"{id_column} IN (SELECT work_id FROM work_tags WHERE tag IN ({marks}))")
        params += spellings
    return " AND ".join(clauses), params


def works_in(
    conn: Any, *, collections: Sequence[str] = (), tags: Sequence[str] = ()
) -> set[str] | None:
    """The ids of the works the label filter keeps (the rules in the module text); None
    when no collection or tag is given (no filter), an empty set when nothing matches."""
    condition = label_condition(conn, collections=collections, tags=tags)
    if condition is None:
        return None
    where, params = condition
    return {r[0] for r in conn.execute(f"SELECT w.id FROM works w WHERE {where}", params)}


def _made_here(conn: Any, name: str) -> bool:
    """Whether ``name`` is a collection made in Prioris (one that may hold no work yet,
    so a filter by it finding nothing is no misspelling)."""
    wanted = fold_path(name)
    return any(
        _path_matches(fold_path(r[0]), wanted)
        for r in conn.execute("SELECT path FROM user_collections")
    )


def has_labels_from(conn: Any, work_id: str, source: str) -> bool:
    """Whether ``source`` gave the work any collection or tag (a sync keeps a work the
    user labelled in Prioris, as it keeps one the user edited)."""
    return (
        conn.execute(
            "SELECT 1 FROM work_collections WHERE work_id = ? AND source = ? "
            "UNION ALL SELECT 1 FROM work_tags WHERE work_id = ? AND source = ?",
            (work_id, source, work_id, source),
        ).fetchone()
        is not None
    )


def unmatched(
    conn: Any, *, collections: Sequence[str] = (), tags: Sequence[str] = ()
) -> dict[str, list[str]]:
    """The names of a filter that match no stored collection or tag, each with the
    closest known ones (``{"collections": [...], "tags": [...]}`` of messages), so an
    interface can say why a filter found nothing."""
    import difflib

    out: dict[str, list[str]] = {"collections": [], "tags": []}
    for kind, names, match in (
        ("collections", _clean(collections), matching_paths),
        ("tags", _clean(tags), matching_tags),
    ):
        known: list[str] | None = None
        for name in names:
            if match(conn, name) or (kind == "collections" and _made_here(conn, name)):
                continue
            if known is None:
                stored = _distinct(conn, kind)
                if kind == "collections":  # a collection is also named by its last part
                    stored += [s for p in stored for s in _display_segments(p)]
                known = _first_spellings(stored)
            by_fold = {fold(k): k for k in known}
            close = difflib.get_close_matches(fold(name), list(by_fold), n=3, cutoff=0.6)
            label = "collection" if kind == "collections" else "tag"
            hint = f"; did you mean {', '.join(repr(by_fold[c]) for c in close)}?" if close else ""
            out[kind].append(f"no {label} {name!r}{hint}")
    return out
