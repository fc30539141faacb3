"""Collections and tags the user makes in Prioris: the flows every interface calls.

The works are named by ids (any form :meth:`Catalog.resolve_work_id` takes: an id, a DOI,
an arXiv id, ...) or picked by a search (its top ``k`` works). Every id is resolved before
anything is written, so a typo changes nothing; each change is one transaction. The rules
(which origins the user may change, how a name finds its collection) are
:mod:`prioris.storage.user_labels`'s; a reference manager's labels are never touched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.storage import user_labels
from prioris.storage.transaction import immediate

MAX_WORKS = 10_000
"""Works one change may name (ids or a search's ``k``)."""


class Labelling:
    """Making collections and tags, putting works in them and taking them out."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        resolve: Callable[[str], str],
        search: Callable[..., Any],
        now: Callable[[], str],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.resolve = resolve
        self.search = search  # Library.search's signature: (query, mode=, k=) -> response
        self.now = now

    # -- which works ------------------------------------------------------------------
    def pick_works(
        self,
        ids: Sequence[str] | None = None,
        *,
        search: str | None = None,
        k: int = 10,
        mode: str = "hybrid",
    ) -> list[str]:
        """The stored works named by ``ids`` or found by ``search`` (its ``k`` best works,
        in ``mode``); exactly one of the two. Any id not in the library is not_found."""
        if isinstance(ids, str):
            ids = [ids]
        given = [i for i in (ids or []) if isinstance(i, str) and i.strip()]
        if ids is not None and len(given) != len(ids):
            raise InvalidRequestError("each id must be a non-empty string")
        if bool(given) == bool(search and search.strip()):
            raise InvalidRequestError("name the works by ids or by a search, one of the two")
        if given:
            if len(given) > MAX_WORKS:
                raise InvalidRequestError(f"at most {MAX_WORKS} works at once, got {len(given)}")
            return list(dict.fromkeys(self.resolve(i) for i in given))
        if not 1 <= k <= MAX_WORKS:
            raise InvalidRequestError(f"k must be between 1 and {MAX_WORKS}, got {k}")
        assert search is not None
        response = self.search(search, mode=mode, k=k)
        return list(dict.fromkeys(hit.id for hit in response.hits))

    def _change(
        self,
        change: Callable[[Any, str, list[str]], dict[str, Any]],
        label: str,
        ids: Sequence[str] | None,
        search: str | None,
        k: int,
        mode: str,
    ) -> dict[str, Any]:
        """One label change (put in or take out of a collection, tag or untag) on the works
        ``ids`` or a search picks, in one write transaction."""
        works = self.pick_works(ids, search=search, k=k, mode=mode)
        with self.lock, immediate(self.conn):
            return change(self.conn, label, works)

    # -- collections ------------------------------------------------------------------
    def list_collections(self) -> list[dict[str, Any]]:
        """Every collection, in path order: ``{"path", "works", "origins", "made_here"}``
        (origins: ``user``, ``import`` or the reference manager that gave it)."""
        with self.lock:
            return user_labels.collection_list(self.conn)

    def create_collection(self, name: str, *, parent: str | None = None) -> dict[str, Any]:
        """Make a collection, under ``parent`` when given (``name`` may be a path
        ``"A / B"``); one that exists already is invalid_request."""
        with self.lock, immediate(self.conn):
            path = user_labels.create_collection(self.conn, name, self.now(), parent)
        return {"collection": path, "created": True}

    def rename_collection(self, old: str, new: str) -> dict[str, Any]:
        """Rename a collection (``new``: its new name, or with ``/`` its new full path);
        its subcollections and works follow."""
        with self.lock, immediate(self.conn):
            return user_labels.rename_collection(self.conn, old, new, self.now())

    def delete_collection(self, name: str) -> dict[str, Any]:
        """Delete a collection and its subcollections; the works stay in the library."""
        with self.lock, immediate(self.conn):
            return user_labels.delete_collection(self.conn, name)

    def add_to_collection(
        self,
        name: str,
        ids: Sequence[str] | None = None,
        *,
        search: str | None = None,
        k: int = 10,
        mode: str = "hybrid",
    ) -> dict[str, Any]:
        """Put works (by ids or a search) in collection ``name``, which must exist:
        ``{"collection", "added", "already"}``."""
        return self._change(user_labels.add_to_collection, name, ids, search, k, mode)

    def remove_from_collection(
        self,
        name: str,
        ids: Sequence[str] | None = None,
        *,
        search: str | None = None,
        k: int = 10,
        mode: str = "hybrid",
    ) -> dict[str, Any]:
        """Take works out of collection ``name``: ``{"collection", "removed", "kept"`` (in
        it through a reference manager, with its name: change it there), ``"absent"}``."""
        return self._change(user_labels.remove_from_collection, name, ids, search, k, mode)

    # -- tags -------------------------------------------------------------------------
    def add_tag(
        self,
        tag: str,
        ids: Sequence[str] | None = None,
        *,
        search: str | None = None,
        k: int = 10,
        mode: str = "hybrid",
    ) -> dict[str, Any]:
        """Tag works (by ids or a search): ``{"tag", "added", "already"}``."""
        return self._change(user_labels.add_tag, tag, ids, search, k, mode)

    def remove_tag(
        self,
        tag: str,
        ids: Sequence[str] | None = None,
        *,
        search: str | None = None,
        k: int = 10,
        mode: str = "hybrid",
    ) -> dict[str, Any]:
        """Untag works: ``{"tag", "removed", "kept"`` (a reference manager's), ``"absent"}``."""
        return self._change(user_labels.remove_tag, tag, ids, search, k, mode)
