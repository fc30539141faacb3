"""The library file: driver with extensions, WAL, migrations and upgrading an old file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from prioris.storage.db import MIGRATIONS_DIR, apply_migrations, connect, schema_version


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
