"""Several libraries in one database, each in its schema with ``search_path=theirs,…``:
a name missing from one library's schema resolves to the next schema on its path, and
what a library drops or tests for must be its own (a benchmark lost a million vectors of
the library in ``public`` when another library was opened beside it for the first time)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres.index import HNSW_INDEX, POSTGRES_INDEX
from prioris.engines.postgres.storage import PostgresStorage
from prioris.library import Library, migrate_library


@pytest.fixture
def schemas(pg_server: str) -> Iterator[tuple[str, str]]:
    """Two schemas: ``below`` (a library other paths fall through to, as ``public`` is
    for most) and ``above``, whose path continues into ``below``."""
    below, above = (f"t_{uuid.uuid4().hex[:12]}" for _ in range(2))
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {below}")
        conn.execute(f"CREATE SCHEMA {above}")
    yield (
        f"{pg_server}&options=-csearch_path%3D{below},public",
        f"{pg_server}&options=-csearch_path%3D{above},{below},public",
    )
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {above} CASCADE")
        conn.execute(f"DROP SCHEMA {below} CASCADE")


def _vectors(url: str) -> tuple[int, int]:
    storage = PostgresStorage(url)
    conn = storage.connect(migrate=False)
    try:
        return (
            int(conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]),
            int(
                conn.execute(
                    "SELECT count(*) FROM chunks WHERE embedding_model IS NOT NULL"
                ).fetchone()[0]
            ),
        )
    finally:
        conn.close()
        storage.close()


def _open(url: str) -> Library:
    return Library.open(load_settings().with_library(url), embedder=FakeEmbedder())


RECORDS = [{"_id": f"w{i}", "title": f"Reef {i}", "text": f"coral {i}"} for i in range(5)]


def test_opening_a_new_library_keeps_the_vectors_of_the_one_below(
    schemas: tuple[str, str],
) -> None:
    below, above = schemas
    with _open(below) as library:
        library.import_records(RECORDS)
    assert _vectors(below) == (5, 5)
    with _open(above) as library:  # first open: its own vector table is made
        assert library.search("coral", mode="vector").hits == []
        library.import_records(RECORDS[:2])
    assert _vectors(above) == (2, 2)
    assert _vectors(below) == (5, 5)  # untouched
    with _open(below) as library:  # and still searchable by vector
        assert len(library.search("coral", mode="vector", k=10).hits) == 5


def test_a_copy_into_a_new_library_keeps_the_one_below(
    schemas: tuple[str, str], tmp_path: object, data_dir: object
) -> None:
    """``migrate-to`` into an empty schema drops only its own HNSW index before the copy."""
    below, above = schemas
    with _open(below) as library:
        library.import_records(RECORDS)
    settings = load_settings()
    with Library.open(settings, embedder=FakeEmbedder()) as source:
        source.import_records(RECORDS[:3])
    migrate_library(settings, above)
    assert _vectors(above) == (3, 3)
    assert _vectors(below) == (5, 5)
    storage = PostgresStorage(below)
    conn = storage.connect(migrate=False)
    try:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        held = conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = ? AND indexname = ?",
            (schema, HNSW_INDEX),
        ).fetchone()[0]
        assert held == 1  # its HNSW index was not the one dropped
    finally:
        conn.close()
        storage.close()


def test_the_vector_table_test_sees_only_the_own_schema(schemas: tuple[str, str]) -> None:
    below, above = schemas
    with _open(below):
        pass
    storage = PostgresStorage(above)
    conn = storage.connect()  # migrated: tables of its own, but no vector table yet
    try:
        assert conn.execute("SELECT to_regclass('chunk_vectors')").fetchone()[0] is not None
        from prioris.engines.postgres.index import has_vector_table

        assert not has_vector_table(conn)  # the one found on the path is not its own
        assert POSTGRES_INDEX.ensure_vector_index(conn, "fake/x", 8) == 0
        assert has_vector_table(conn)
    finally:
        conn.close()
        storage.close()
    assert _vectors(below) == (0, 0)  # exists, empty, and not recreated with 8 dimensions
    storage = PostgresStorage(below)
    conn = storage.connect(migrate=False)
    try:
        dim = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunk_vectors'::regclass "
            "AND attname = 'embedding'"
        ).fetchone()[0]
        assert dim == FakeEmbedder().dim
    finally:
        conn.close()
        storage.close()
