"""The PostgreSQL chunk index of a sharded library (:mod:`.sharded`'s connection).

Its library-wide steps run on every shard: the vector table of the model (a shard that
is down is skipped with a warning: searches say it is missing, writes to it fail), the
HNSW build of a copy and the orphans a stopped copy left. New chunks get their ids from
the primary's sequence, so they stay unique across the shards. On any other connection
it is the plain PostgreSQL index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prioris.engines.postgres.index import PostgresChunkIndex
from prioris.errors import ShardUnavailableError


def _sharded(conn: Any) -> bool:
    """A :class:`~prioris.engines.postgres.sharded.ShardedConnection` (by its surface:
    that module imports this one)."""
    return hasattr(conn, "each_shard")


class ShardedChunkIndex(PostgresChunkIndex):
    """The PostgreSQL chunk index over shards (see the module text)."""

    def ensure_vector_index(self, conn: Any, model_id: str, dim: int) -> int:
        if not _sharded(conn):
            return super().ensure_vector_index(conn, model_id, dim)
        stale = super().ensure_vector_index(conn.primary, model_id, dim)
        for url in conn.shards.urls:
            try:
                shard = conn.shards.connection(url)
            except ShardUnavailableError as exc:  # down: searches say so, its writes fail
                conn.shards.warn_down(url, exc)
                continue
            stale += super().ensure_vector_index(shard, model_id, dim)
        return stale

    def insert_chunks(self, conn: Any, chunks: Sequence[Any], title: str) -> list[int]:
        if not _sharded(conn):
            return super().insert_chunks(conn, chunks, title)
        from prioris.storage.chunks import INSERT_CHUNK, chunk_row

        sql = INSERT_CHUNK.replace("chunks(", "chunks(id, ", 1).replace("VALUES (", "VALUES (?, ")
        ids = conn.chunk_ids(len(chunks))
        for chunk_id, chunk in zip(ids, chunks, strict=True):
            conn.execute(sql, (chunk_id, *chunk_row(chunk)))
        return ids

    def before_copy(self, conn: Any) -> None:
        if not _sharded(conn):
            return super().before_copy(conn)
        known = {str(r[0]) for r in conn.primary.execute("SELECT id FROM works").fetchall()}
        for url in conn.shards.urls:
            shard = conn.shard(url, write=True)
            held = [str(r[0]) for r in shard.execute("SELECT id FROM works").fetchall()]
            orphans = [w for w in held if w not in known]  # a stopped copy's, replaced
            if orphans:
                shard.execute("DELETE FROM works WHERE id = ANY(?)", (orphans,))
            super().before_copy(shard)
        return None

    def after_copy(self, conn: Any) -> None:
        if not _sharded(conn):
            return super().after_copy(conn)
        top = 0
        for url in conn.shards.urls:
            shard = conn.shard(url, write=True)
            super().after_copy(shard)
            top = max(
                top, int(shard.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])
            )
        conn.primary.execute(
            "SELECT setval(pg_get_serial_sequence('chunks', 'id'), "
            "greatest(?, coalesce((SELECT max(id) FROM chunks), 0)) + 1, false)",
            (top,),
        )
        conn.primary.execute("ANALYZE")
        return None


SHARDED_INDEX = ShardedChunkIndex()
