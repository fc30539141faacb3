"""Which server a connection goes to: the one place that knows a library's servers.

A library lives on its *primary* (an SQLite file or a ``postgresql://`` URL), where every
write goes. A PostgreSQL library may also name read replicas (``PRIORIS_MCP_DB_REPLICAS``:
hot standbys; which one answers a read now -- up, not lagging, past this process's last
write -- is :class:`prioris.engines.postgres.replicas.ReplicaSet`'s call, as it needs the
servers' WAL positions) -- and shards (``PRIORIS_MCP_DB_SHARDS``: a work's passages,
vectors and pages live on the server a stable hash of its id picks,
:meth:`Router.shard_of`; :mod:`prioris.engines.postgres.sharded` routes the statements
by it). Those choices belong here and
nowhere else: the engines' storage asks the router where to open a writer
(:meth:`Router.for_write`) and where to open a reader (:meth:`Router.for_read`), and
nothing above the engines ever sees it (a contract in ``pyproject.toml`` forbids
``storage/``, ``services/``, the features, ``library`` and the interfaces to import this
module). Keep it small: a Citus coordinator or a search
cluster should be able to sit behind the same few questions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Location = Path | str
"""Where a server is: an SQLite file's path or a ``postgresql://`` URL."""


@dataclass(frozen=True)
class Router:
    """A library's servers: its primary, its read replicas, its shards.

    ``primary`` is the location the library was opened at; ``replicas`` and ``shards`` are
    further locations (``postgresql://`` URLs), empty until settings name them."""

    primary: Location
    replicas: tuple[str, ...] = ()
    shards: tuple[str, ...] = ()

    def for_write(self) -> Location:
        """Where writes go: always the primary (one transactional writer)."""
        return self.primary

    def for_read(self) -> Location:
        """Where a reader connects when no replica serves: the primary. With replicas the
        PostgreSQL engine asks its ReplicaSet first, per read."""
        return self.primary

    def shard_of(self, work_id: int | str) -> Location:
        """The server a work lives on: the primary while there are no shards, else the
        shard that the SHA-256 of the work's id picks (the same in every process and on
        every machine, unlike :func:`hash`)."""
        if not self.shards:
            return self.primary
        digest = hashlib.sha256(str(work_id).encode("utf-8")).digest()
        return self.shards[int.from_bytes(digest, "big") % len(self.shards)]

    def locations(self) -> dict[str, Any]:
        """Every server, for ``status``: ``{"primary", "replicas", "shards"}``. The raw
        locations, passwords included: show them through
        :func:`prioris.engines.display_location`."""
        return {
            "primary": str(self.primary),
            "replicas": list(self.replicas),
            "shards": list(self.shards),
        }
