"""The HNSW build's memory follows the rows it indexes; the build after a copy runs unlimited."""

from __future__ import annotations

from prioris.engines.postgres.index import HNSW_MEMORY_CEILING_MB, hnsw_build_memory


def test_a_small_build_gets_the_floor() -> None:
    assert hnsw_build_memory(0) == "256MB"
    assert hnsw_build_memory(50_000) == "256MB"


def test_a_million_vectors_get_room_for_the_whole_graph() -> None:
    # 2.5 KB a row: about 2.4 GB for a million, so pgvector never spills the graph
    assert hnsw_build_memory(1_000_000) == "2505MB"


def test_the_ceiling_holds_for_any_size() -> None:
    assert hnsw_build_memory(10**9) == f"{HNSW_MEMORY_CEILING_MB}MB"


def test_the_graph_built_after_a_copy_has_no_statement_time_limit(pg_url: str) -> None:
    """A million vectors take longer to index than a query may run: the copy's last step
    builds the graph with the time limit lifted (and its memory raised) for that
    transaction only, and the session's limit holds again after it."""
    from typing import Any

    from prioris.config import load_settings
    from prioris.engines.postgres.index import POSTGRES_INDEX, hnsw_index_sql
    from prioris.engines.postgres.storage import PostgresStorage

    settings = load_settings({"PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS": "7"})
    storage = PostgresStorage(pg_url, settings)
    conn = storage.connect()
    try:
        POSTGRES_INDEX.ensure_vector_index(conn, "test-model", 4)
        seen: dict[str, Any] = {}

        class Watching:  # the real connection, reporting the limits the build ran under
            def execute(self, sql: str, params: Any = None) -> Any:
                if sql == hnsw_index_sql():
                    seen["timeout"] = conn.execute("SHOW statement_timeout").fetchone()[0]
                    seen["memory"] = conn.execute("SHOW maintenance_work_mem").fetchone()[0]
                return conn.execute(sql, params)

        conn.execute("BEGIN IMMEDIATE")
        POSTGRES_INDEX.before_copy(conn)
        POSTGRES_INDEX.after_copy(Watching())
        conn.execute("COMMIT")
        assert seen == {"timeout": "0", "memory": "256MB"}
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "7s"
        indexes = conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE indexdef ILIKE '%USING hnsw%'"
            " AND schemaname = current_schema()"
        ).fetchone()[0]
        assert indexes == 1
    finally:
        conn.close()
        storage.close()
