"""Collections and tags made in Prioris, beside the ones a reference manager gave.

Each label row carries its origin (the ``source`` column of ``work_collections`` and
``work_tags``, :mod:`prioris.storage.labels`): ``user`` for what these functions write,
``import`` for a JSONL import's, a reference manager's name (``zotero``, ``bibtex``,
``ris``) for a sync's. A sync replaces only the rows of its own source, so what the user
added survives every re-sync. A collection made here may hold no work yet: its path (and
its parents') is kept in ``user_collections``.

What the user may change here is what no sync owns (:data:`EDITABLE`: the user's and a
JSONL import's labels). Removing a work from a collection or a tag takes those rows away
and says which works keep the label through a reference manager (its next sync would give
it back: change it there). A collection holding a reference manager's works is renamed or
deleted in that manager, not here. Names are matched as the filters match them
(case-insensitively, a collection by its full path or its last segments); a name that
fits two collections is refused rather than guessed. Every function runs inside the
caller's transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.storage.labels import BATCH, MAX_NAME_CHARS, SEPARATOR, fold, fold_path

USER = "user"
IMPORT = "import"
EDITABLE = (USER, IMPORT)
"""The origins Prioris's own commands may change (no sync gives them back or takes them)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SPACE = re.compile(r"\s+")
_SLASH = re.compile(r"\s*/\s*")


# -- names -----------------------------------------------------------------------------
def clean_name(name: Any, what: str) -> str:
    """A tag or collection segment as stored: whitespace runs as one space, the ends
    stripped; empty, over-long or control characters are invalid_request."""
    if not isinstance(name, str):
        raise InvalidRequestError(f"a {what} name must be a string")
    text = _SPACE.sub(" ", name).strip()
    if not text:
        raise InvalidRequestError(f"a {what} name must not be empty")
    if len(text) > MAX_NAME_CHARS:
        raise InvalidRequestError(f"a {what} name is at most {MAX_NAME_CHARS} characters")
    if _CONTROL.search(text):
        raise InvalidRequestError(f"a {what} name must not hold control characters")
    return text


def clean_path(name: Any) -> str:
    """A collection path as stored: each segment cleaned, joined by ``" / "``."""
    if not isinstance(name, str):
        raise InvalidRequestError("a collection name must be a string")
    segments = [s for s in (_SPACE.sub(" ", x).strip() for x in _SLASH.split(name)) if s]
    if not segments:
        raise InvalidRequestError("a collection name must not be empty")
    path = SEPARATOR.join(clean_name(s, "collection") for s in segments)
    if len(path) > MAX_NAME_CHARS:
        raise InvalidRequestError(f"a collection path is at most {MAX_NAME_CHARS} characters")
    return path


def _parents(path: str) -> list[str]:
    """``a / b / c`` -> ``a``, ``a / b`` (the parents, outermost first)."""
    segments = path.split(SEPARATOR)
    return [SEPARATOR.join(segments[:n]) for n in range(1, len(segments))]


def _spelt(stored: str) -> str:
    """A stored path with its segments spaced as :func:`clean_path` spaces them (never
    raising: a reference manager's names are kept as they came)."""
    segments = [s for s in (_SPACE.sub(" ", x).strip() for x in _SLASH.split(stored)) if s]
    return SEPARATOR.join(segments) or stored


def _under(folded: str, top: str) -> bool:
    """Whether folded path ``folded`` is ``top`` or below it."""
    return folded == top or folded.startswith(top + SEPARATOR)


# -- what exists -----------------------------------------------------------------------
def _paths(conn: Any) -> dict[str, str]:
    """Every collection, ``{folded path: spelling}``: the ones made here and those the
    stored works are in, with their parents (a parent is a collection too)."""
    spelt: dict[str, str] = {}
    rows = [r[0] for r in conn.execute("SELECT path FROM user_collections")]
    rows += [r[0] for r in conn.execute("SELECT DISTINCT path FROM work_collections")]
    for stored in rows:
        path = _spelt(stored)
        for each in [*_parents(path), path]:
            key = fold_path(each)
            if key not in spelt or each < spelt[key]:
                spelt[key] = each
    return spelt


def resolve_collection(conn: Any, name: str) -> str:
    """The one collection ``name`` means (its full path, or its last segments), as spelt;
    not_found when none, invalid_request when it fits several."""
    wanted = fold_path(clean_path(name))
    known = _paths(conn)
    if wanted in known:
        return known[wanted]
    fits = sorted(p for k, p in known.items() if k.endswith(SEPARATOR + wanted))
    if len(fits) == 1:
        return fits[0]
    if fits:
        raise InvalidRequestError(
            f"{name!r} names {len(fits)} collections ({'; '.join(fits[:5])}): give its full path"
        )
    import difflib

    close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(known[c]) for c in close)}?" if close else ""
    raise NotFoundError(f"no collection {name!r} (create it first){hint}")


def _origins_under(conn: Any, top: str) -> dict[str, set[str]]:
    """``{stored path: {sources}}`` of the rows in collection ``top`` (folded) or below."""
    found: dict[str, set[str]] = {}
    for path, source in conn.execute("SELECT DISTINCT path, source FROM work_collections"):
        if _under(fold_path(path), top):
            found.setdefault(path, set()).add(source)
    return found


def _managed(origins: dict[str, set[str]]) -> list[str]:
    """The reference managers among the origins (what Prioris must not change)."""
    return sorted({s for sources in origins.values() for s in sources} - set(EDITABLE))


def collection_list(conn: Any) -> list[dict[str, Any]]:
    """Every collection in path order: ``{"path", "works"`` (in it or below, each once),
    ``"origins"`` (where its labels came from: user, import, zotero, ...), ``"made_here"``
    (made in Prioris, so it may be empty)``}``."""
    known = _paths(conn)
    made = {fold_path(r[0]) for r in conn.execute("SELECT path FROM user_collections")}
    members: dict[str, set[str]] = {k: set() for k in known}
    origins: dict[str, set[str]] = {k: set() for k in known}
    for work_id, path, source in conn.execute("SELECT work_id, path, source FROM work_collections"):
        key = fold_path(path)
        for each in [*_parents(key), key]:
            if each in members:
                members[each].add(work_id)
                origins[each].add(source)
    for key in made:
        origins.setdefault(key, set()).add(USER)
    return [
        {
            "path": known[key],
            "works": len(members[key]),
            "origins": sorted(origins[key]),
            "made_here": key in made,
        }
        for key in sorted(known)
    ]


# -- collections -----------------------------------------------------------------------
def _register(conn: Any, path: str, now: str) -> None:
    """Keep ``path`` and its parents as collections made here (the ones not kept yet)."""
    made = {fold_path(r[0]) for r in conn.execute("SELECT path FROM user_collections")}
    for each in [*_parents(path), path]:
        if fold_path(each) not in made:
            conn.execute(
                "INSERT INTO user_collections(path, created_at) VALUES (?, ?)", (each, now)
            )


def create_collection(conn: Any, name: str, now: str, parent: str | None = None) -> str:
    """Make a collection (``parent``'s subcollection when given; ``name`` may be a path,
    its missing parents made too); returns its path. One that exists is invalid_request."""
    path = clean_path(name)
    if parent is not None:
        path = f"{resolve_collection(conn, parent)}{SEPARATOR}{path}"
    known = _paths(conn)
    if fold_path(path) in known:
        raise InvalidRequestError(f"collection {known[fold_path(path)]!r} exists already")
    _register(conn, path, now)
    return path


def rename_collection(conn: Any, old: str, new: str, now: str) -> dict[str, Any]:
    """Rename collection ``old`` (its subcollections follow). ``new`` is its new name, or
    with a ``/`` its new full path (a move). Refused when a reference manager gave works
    in it (rename it there) or the new path exists."""
    path = resolve_collection(conn, old)
    top = fold_path(path)
    origins = _origins_under(conn, top)
    managers = _managed(origins)
    if managers:
        raise InvalidRequestError(
            f"collection {path!r} holds works from {', '.join(managers)}: rename it there "
            "(its next sync would bring the old name back)"
        )
    cleaned = clean_path(new)
    parents = _parents(path)
    target = cleaned if "/" in new or not parents else f"{parents[-1]}{SEPARATOR}{cleaned}"
    if _under(fold_path(target), top) and fold_path(target) != top:
        raise InvalidRequestError(f"cannot move {path!r} into its own subcollection")
    if fold_path(target) != top and fold_path(target) in _paths(conn):
        raise InvalidRequestError(f"collection {target!r} exists already")
    depth = len(path.split(SEPARATOR))

    def moved(stored: str) -> str:
        rest = _spelt(stored).split(SEPARATOR)[depth:]
        return SEPARATOR.join([target, *rest])

    for stored in sorted(origins):
        if moved(stored) == stored:
            continue
        conn.execute(  # two spellings may become one path: each row once
            "INSERT INTO work_collections(work_id, source, path) SELECT work_id, source, ? "
            "FROM work_collections WHERE path = ? ON CONFLICT DO NOTHING",
            (moved(stored), stored),
        )
        conn.execute("DELETE FROM work_collections WHERE path = ?", (stored,))
    registered = [
        r[0]
        for r in conn.execute("SELECT path FROM user_collections")
        if _under(fold_path(r[0]), top)
    ]
    for stored in registered:
        conn.execute("DELETE FROM user_collections WHERE path = ?", (stored,))
    for stored in sorted(registered, key=lambda p: p.count(SEPARATOR)):
        _register(conn, moved(stored), now)
    _register(conn, target, now)
    return {"collection": path, "renamed_to": target}


def delete_collection(conn: Any, name: str) -> dict[str, Any]:
    """Delete a collection made here and its subcollections; its works stay in the
    library. Refused when a reference manager gave works in it (delete it there)."""
    path = resolve_collection(conn, name)
    top = fold_path(path)
    origins = _origins_under(conn, top)
    managers = _managed(origins)
    if managers:
        raise InvalidRequestError(
            f"collection {path!r} holds works from {', '.join(managers)}: delete it there "
            "(its next sync would bring it back)"
        )
    works: set[str] = set()
    for stored in sorted(origins):
        works |= {
            r[0]
            for r in conn.execute("SELECT work_id FROM work_collections WHERE path = ?", (stored,))
        }
        conn.execute("DELETE FROM work_collections WHERE path = ?", (stored,))
    gone = [
        r[0]
        for r in conn.execute("SELECT path FROM user_collections")
        if _under(fold_path(r[0]), top)
    ]
    for stored in gone:
        conn.execute("DELETE FROM user_collections WHERE path = ?", (stored,))
    return {"collection": path, "works": len(works)}


# -- putting works in and taking them out ----------------------------------------------
def _holding(
    conn: Any, table: str, column: str, spellings: Sequence[str], work_ids: Sequence[str]
) -> dict[str, set[str]]:
    """``{work id: {sources}}`` of the rows giving the works one of ``spellings``."""
    found: dict[str, set[str]] = {}
    if not spellings:
        return found
    marks = ", ".join("?" for _ in spellings)
    for start in range(0, len(work_ids), BATCH):
        batch = list(work_ids[start : start + BATCH])
        ids = ", ".join("?" for _ in batch)
        for work_id, source in conn.execute(
            f"SELECT work_id, source FROM {table} WHERE {column} IN ({marks}) "
            f"AND work_id IN ({ids})",
            [*spellings, *batch],
        ):
            found.setdefault(work_id, set()).add(source)
    return found


def _spellings(conn: Any, table: str, column: str, key: Any, wanted: str) -> list[str]:
    return sorted(
        {
            r[0]
            for r in conn.execute(f"SELECT DISTINCT {column} FROM {table}")
            if key(r[0]) == wanted
        }
    )


def _add(conn: Any, table: str, column: str, value: str, work_ids: Sequence[str]) -> list[str]:
    """Give the works ``value`` as the user's label; returns the ids that did not have it
    (from any origin) before."""
    key = fold_path if table == "work_collections" else fold
    had = _holding(conn, table, column, _spellings(conn, table, column, key, key(value)), work_ids)
    mine = _holding(conn, table, column, [value], work_ids)
    conn.executemany(
        f"INSERT INTO {table}(work_id, source, {column}) VALUES (?, ?, ?)",
        [(w, USER, value) for w in work_ids if USER not in mine.get(w, set())],
    )
    return [w for w in work_ids if w not in had]


def _remove(
    conn: Any, table: str, column: str, value: str, work_ids: Sequence[str]
) -> dict[str, Any]:
    """Take the label from the works (the rows :data:`EDITABLE` origins gave them): the
    ids it was removed from, and those that keep it through a reference manager."""
    key = fold_path if table == "work_collections" else fold
    spellings = _spellings(conn, table, column, key, key(value))
    had = _holding(conn, table, column, spellings, work_ids)
    marks = ", ".join("?" for _ in spellings)
    origins = ", ".join("?" for _ in EDITABLE)
    for work_id in work_ids:
        if had.get(work_id, set()) & set(EDITABLE):
            conn.execute(
                f"DELETE FROM {table} WHERE work_id = ? AND source IN ({origins}) "
                f"AND {column} IN ({marks})",
                [work_id, *EDITABLE, *spellings],
            )
    removed = [w for w in work_ids if had.get(w, set()) & set(EDITABLE)]
    kept = [
        {"id": w, "origins": sorted(had[w] - set(EDITABLE))}
        for w in work_ids
        if had.get(w, set()) - set(EDITABLE)
    ]
    return {"removed": removed, "kept": kept, "absent": [w for w in work_ids if w not in had]}


def add_to_collection(conn: Any, name: str, work_ids: Sequence[str]) -> dict[str, Any]:
    """Put the works in collection ``name`` (which must exist)."""
    path = resolve_collection(conn, name)
    added = _add(conn, "work_collections", "path", path, _unique(work_ids))
    return {"collection": path, "added": added, "already": _others(work_ids, added)}


def remove_from_collection(conn: Any, name: str, work_ids: Sequence[str]) -> dict[str, Any]:
    """Take the works out of collection ``name`` itself (not its subcollections)."""
    path = resolve_collection(conn, name)
    return {
        "collection": path,
        **_remove(conn, "work_collections", "path", path, _unique(work_ids)),
    }


def _tag_spelling(conn: Any, tag: str) -> str:
    """The tag as stored: the spelling the library already has for it, else as given."""
    spellings = _spellings(conn, "work_tags", "tag", fold, fold(tag))
    return spellings[0] if spellings else tag


def add_tag(conn: Any, tag: str, work_ids: Sequence[str]) -> dict[str, Any]:
    """Give the works tag ``tag`` (spelt as the library already spells it, if it does)."""
    value = _tag_spelling(conn, clean_name(tag, "tag"))
    added = _add(conn, "work_tags", "tag", value, _unique(work_ids))
    return {"tag": value, "added": added, "already": _others(work_ids, added)}


def remove_tag(conn: Any, tag: str, work_ids: Sequence[str]) -> dict[str, Any]:
    """Take tag ``tag`` (any case) from the works."""
    value = _tag_spelling(conn, clean_name(tag, "tag"))
    return {"tag": value, **_remove(conn, "work_tags", "tag", value, _unique(work_ids))}


def _unique(work_ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(work_ids))


def _others(work_ids: Iterable[str], added: Sequence[str]) -> list[str]:
    return [w for w in _unique(work_ids) if w not in set(added)]


def copy_rows(src: Any, dst: Any) -> None:
    """The collections made here, into another library (``migrate-to``; inside the
    caller's transaction, a resumed copy adding none twice)."""
    rows = [tuple(r) for r in src.execute("SELECT path, created_at FROM user_collections")]
    dst.executemany(
        "INSERT INTO user_collections(path, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
        rows,
    )
