"""The works of ranked chunks are read by an index-only scan (postgres 0014)."""

from __future__ import annotations

from prioris.engines.postgres.storage import PostgresStorage


def test_a_ranked_chunks_work_is_read_from_the_index_alone(pg_url: str) -> None:
    storage = PostgresStorage(pg_url)
    conn = storage.connect()
    try:
        conn.execute("VACUUM chunks")  # the visibility map an index-only scan relies on
        conn.execute("SET enable_seqscan = off")  # a tiny table: make the planner show intent
        conn.execute("SET enable_bitmapscan = off")
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT c.id, c.work_id FROM chunks c WHERE c.id = ANY(?)", ([1, 2, 3],)
            ).fetchall()
        )
        assert "Index Only Scan using chunks_id_work" in plan
    finally:
        conn.close()
        storage.close()
