"""The library file: driver with extensions, WAL, migrations and upgrading an old file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from prioris.engines.sqlite.connection import (
    MIGRATIONS_DIR,
    apply_migrations,
    connect,
    schema_version,
)
from prioris.errors import ConfigurationError


def test_connect_loads_sqlite_vec_and_uses_wal(tmp_path: Path) -> None:
    conn = connect(tmp_path / "lib.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert schema_version(conn) == len(list(MIGRATIONS_DIR.glob("*.sql")))


def test_migrations_are_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    connect(path).close()
    conn = connect(path)
    rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
    assert [r[0] for r in rows] == sorted({r[0] for r in rows})


def test_upgrade_keeps_data_of_an_older_schema(tmp_path: Path) -> None:
    """A file made by schema 1 gets migration 2 and keeps its works."""
    old = tmp_path / "old-migrations"
    old.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", old)
    path = tmp_path / "lib.sqlite"
    conn = connect(path, migrations_dir=old)
    conn.execute(
        "INSERT INTO works(id, title, source, created_at, updated_at) "
        "VALUES ('w1', 'Old work', 'import', 'now', 'now')"
    )
    conn.close()

    new = tmp_path / "new-migrations"
    shutil.copytree(old, new)
    (new / "0002_add_notes.sql").write_text(
        "-- a later schema change\nALTER TABLE works ADD COLUMN notes TEXT;\n"
        "CREATE INDEX works_notes ON works(notes);\n"
    )
    conn = connect(path, migrate=False)
    assert schema_version(conn) == 1
    assert apply_migrations(conn, new) == [2]
    assert schema_version(conn) == 2
    row = conn.execute("SELECT title, notes FROM works WHERE id = 'w1'").fetchone()
    assert (row[0], row[1]) == ("Old work", None)
    assert apply_migrations(conn, new) == []


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    migrations = tmp_path / "m"
    migrations.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", migrations)
    (migrations / "0002_broken.sql").write_text(
        "CREATE TABLE half_done (x INTEGER);\nTHIS IS NOT SQL;\n"
    )
    conn = connect(tmp_path / "lib.sqlite", migrate=False)
    with pytest.raises(Exception, match="syntax error"):
        apply_migrations(conn, migrations)
    assert schema_version(conn) == 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "half_done" not in tables


def test_markdown_format_is_backfilled_from_the_indexed_document(tmp_path: Path) -> None:
    """Migration 2 remembers which document each work's Markdown was parsed from."""
    old = tmp_path / "old-migrations"
    old.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", old)
    path = tmp_path / "lib.sqlite"
    conn = connect(path, migrations_dir=old)
    conn.execute("INSERT INTO blobs(sha256, size_bytes, content) VALUES ('s1', 1, x'00')")
    conn.execute(
        "INSERT INTO works(id, title, source, markdown, markdown_sha256, created_at, updated_at) "
        "VALUES ('w1', 'With a PDF', 'arxiv', 'text', 's1', 'now', 'now'), "
        "('w2', 'Abstract only', 'europepmc', 'abstract', NULL, 'now', 'now')"
    )
    conn.execute(
        "INSERT INTO documents(sha256, work_id, format, size_bytes, created_at) "
        "VALUES ('s1', 'w1', 'pdf', 1, 'now')"
    )
    conn.close()
    conn = connect(path)
    rows = dict(conn.execute("SELECT id, markdown_format FROM works ORDER BY id").fetchall())
    assert rows == {"w1": "pdf", "w2": None}


def test_a_library_from_a_newer_or_another_build_is_refused(tmp_path: Path) -> None:
    """A development build's library had its migration 2 under another name: this build
    skipped its own migration 2 and failed later on a half-known schema. Refused up front,
    as is a library from a newer Prioris."""
    path = tmp_path / "lib.sqlite"
    connect(path).close()
    conn = connect(path, migrate=False)
    conn.execute("UPDATE schema_migrations SET name = '0002_other.sql' WHERE version = 2")
    conn.close()
    with pytest.raises(ConfigurationError, match="another build of Prioris"):
        connect(path)
    conn = connect(path, migrate=False)
    conn.execute("UPDATE schema_migrations SET name = '0002_markdown_format.sql' WHERE version = 2")
    conn.execute("INSERT INTO schema_migrations VALUES (99, '0099_future.sql', datetime('now'))")
    conn.close()
    with pytest.raises(ConfigurationError, match="newer Prioris"):
        connect(path)
    conn = connect(path, migrate=False)
    conn.execute("DELETE FROM schema_migrations WHERE version = 99")
    conn.close()
    connect(path).close()
