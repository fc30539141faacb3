"""Opening the library file: SQLite driver choice, sqlite-vec, pragmas and migrations.

The stdlib ``sqlite3`` of some Python builds cannot load extensions; we then fall back to
``pysqlite3`` (which bundles a recent SQLite). Migrations are numbered SQL files applied
in order, each in one transaction, and recorded in ``schema_migrations``.
"""

from __future__ import annotations

import re
import sqlite3 as _stdlib_sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

from prioris.errors import ConfigurationError

MIGRATIONS_DIR = Path(__file__).resolve().parents[3] / "migrations"
MMAP_BYTES = 1 << 30
_MIGRATION_NAME = re.compile(r"^(\d{4})_[\w-]+\.sql$")


def sqlite_module() -> ModuleType:
    """The DB-API module to use: stdlib when it can load extensions, else pysqlite3."""
    probe = _stdlib_sqlite3.connect(":memory:")
    try:
        if hasattr(probe, "enable_load_extension"):
            return _stdlib_sqlite3
    finally:
        probe.close()
    try:
        import pysqlite3.dbapi2 as pysqlite3  # type: ignore[import-not-found]
    except ImportError as exc:  # pragma: no cover - depends on the platform
        raise ConfigurationError(
            "this Python's sqlite3 cannot load extensions and pysqlite3-binary is not "
            "installed; run: pip install pysqlite3-binary"
        ) from exc
    return pysqlite3


sqlite3: Any = sqlite_module()
Connection = Any  # a DB-API connection of whichever module was chosen


def _load_vec(conn: Any) -> None:
    import sqlite_vec

    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)


def connect(path: Path | str, *, migrate: bool = True, migrations_dir: Path | None = None) -> Any:
    """Open (creating if needed) the library file in WAL mode with sqlite-vec loaded.

    ``isolation_level=None`` puts transactions under our explicit control: every ingest of
    one document is one ``BEGIN IMMEDIATE ... COMMIT``.
    """
    path = Path(path)
    if str(path) != ":memory:":
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30)
    conn.row_factory = sqlite3.Row
    _load_vec(conn)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 30000")
    # reads through the page cache of the OS instead of copies: measured -20% hybrid p50 at
    # 100k chunks (docs/benchmarks.md); address space only, not resident memory
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    if migrate:
        apply_migrations(conn, migrations_dir or MIGRATIONS_DIR)
    return conn


def available_migrations(migrations_dir: Path) -> list[tuple[int, Path]]:
    """Numbered SQL files in order; a badly named file is a configuration error."""
    found = []
    for file in sorted(migrations_dir.glob("*.sql")):
        match = _MIGRATION_NAME.match(file.name)
        if not match:
            raise ConfigurationError(f"migration file name not understood: {file.name}")
        found.append((int(match.group(1)), file))
    return found


def schema_version(conn: Any) -> int:
    """Highest applied migration number (0 for a new file)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def apply_migrations(conn: Any, migrations_dir: Path) -> list[int]:
    """Apply every migration newer than the file's version, each in its own transaction."""
    current = schema_version(conn)
    applied = []
    for version, file in available_migrations(migrations_dir):
        if version <= current:
            continue
        script = file.read_text(encoding="utf-8")
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split_sql(script):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) "
                "VALUES (?, ?, datetime('now'))",
                (version, file.name),
            )
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit implicitly)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--") and not buffer.strip():
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
