"""Copying a library to another engine or onto shards (``prioris migrate-to``): kept beside
:mod:`prioris.compose` because it opens two storages itself (the composition root's
privilege: :func:`prioris.engines.open_storage` is called from the compose modules only)
without building any service or model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from prioris.config import Settings
from prioris.engines import open_storage
from prioris.errors import ConfigurationError


def migrate_library(
    settings: Settings,
    target: str | Path,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    target_shards: Sequence[str] = (),
) -> dict[str, Any]:
    """Copy the library of ``settings`` to ``target`` (a ``postgresql://`` URL or an SQLite
    file; the primary of ``target_shards`` if any) with its vectors, no model needed; run
    again to resume a stopped copy. A sharded source is read as ``settings`` say."""
    from prioris.storage.copy import copy_library

    location = settings.library_location
    if isinstance(location, Path) and not location.exists():  # never create it to copy it
        raise ConfigurationError(
            f"there is no library at {location} to copy (--db, --data-dir, PRIORIS_MCP_DB)"
        )
    aimed = replace(settings, db_shards=tuple(target_shards), db_replicas=())
    destination = open_storage(str(target), aimed)
    source = open_storage(location, settings)
    try:
        report = copy_library(source, destination, on_progress=on_progress)
    finally:
        source.close()
        destination.close()
    return {"source": source.display(), "target": destination.display(), **report.to_dict()}
