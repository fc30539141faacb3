"""The collection and tag filter as the catalog applies it to its listings.

Listing, browsing and exporting stored works all take the same ``collections`` and
``tags`` filter and show each work's labels; the names are checked and the SQL built in
:mod:`prioris.storage.labels`. This is the catalog's glue over it, one place for the three
callers, kept apart so :mod:`prioris.services.catalog` holds the flows over works and not
the filter's plumbing. The caller holds the library's lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prioris.storage import labels as label_store


def filter_names(
    collections: str | Sequence[str] | None, tags: str | Sequence[str] | None
) -> dict[str, tuple[str, ...]]:
    """A filter's collection and tag names, checked: ``{"collections", "tags"}``, the
    keyword arguments of :mod:`prioris.storage.labels`' queries."""
    return {
        "collections": label_store.filter_names(collections, "collection"),
        "tags": label_store.filter_names(tags, "tag"),
    }


def label_condition(
    conn: Any, collections: str | Sequence[str] | None, tags: str | Sequence[str] | None
) -> tuple[str, list[Any]] | None:
    """The collection and tag filter as SQL on ``w.id`` (the caller holds the lock)."""
    return label_store.label_condition(conn, **filter_names(collections, tags))


def with_labels(conn: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Listing rows with each work's collections and tags (one read for them all)."""
    labels = label_store.labels_of_many(conn, [row["id"] for row in rows])
    return [{**row, **labels[row["id"]]} for row in rows]
