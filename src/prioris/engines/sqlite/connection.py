"""Opening the library file: SQLite driver choice, sqlite-vec, pragmas and migrations.

The stdlib ``sqlite3`` of some Python builds cannot load extensions; we then fall back to
``pysqlite3`` (which bundles a recent SQLite). Migrations are numbered SQL files
(the top-level ``migrations/sqlite/``, shipped in the wheel) applied in order, each in one
transaction, and recorded in ``schema_migrations``.
"""

from __future__ import annotations

import sqlite3 as _stdlib_sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

from prioris.engines.sqlite import textpack
from prioris.engines.sqlite.index import SQLITE_INDEX
from prioris.errors import ConfigurationError
from prioris.storage.migrations import available_migrations, check_applied, migrations_dir

MIGRATIONS_DIR = migrations_dir("sqlite")
MMAP_BYTES = 1 << 36


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


class SqliteConnection(sqlite3.Connection):  # type: ignore[misc,name-defined]
    """A connection of the chosen module that carries its chunk index (``dialect``), so
    the engine-neutral repositories (:func:`prioris.storage.backend.index_of`) reach FTS5
    and ``vec0`` without importing this engine."""

    dialect = SQLITE_INDEX


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
    one document is one ``BEGIN IMMEDIATE ... COMMIT``. A path that is a folder, not an
    SQLite file, another program's database, or cannot be created raises
    ConfigurationError naming the file.
    """
    path = Path(path)
    if str(path) != ":memory:":
        if path.is_dir():
            raise ConfigurationError(
                f"the library file {path} is a folder; give a file such as "
                f"{path / 'library.sqlite'} (--data-dir or --db)"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = (exc.strerror or type(exc).__name__).lower()
            if isinstance(exc, FileExistsError | NotADirectoryError):
                reason = f"{exc.filename or path.parent} is not a folder"
            raise ConfigurationError(
                f"cannot create the folder of the library file {path}: {reason} "
                "(--data-dir or --db)"
            ) from None
    try:
        return _open(path, migrate, migrations_dir)
    except sqlite3.DatabaseError as exc:
        raise ConfigurationError(_open_failure(path, exc)) from exc


def _open_failure(path: Path, exc: Exception) -> str:
    text = str(exc)
    if "not a database" in text:
        return f"{path} is not a Prioris library: {text} (--data-dir or --db)"
    if "readonly" in text or "read-only" in text:
        return f"the library file {path} is read-only: {text} (--data-dir or --db)"
    return f"cannot open the library file {path}: {text} (--data-dir or --db)"


def _open(path: Path, migrate: bool, migrations_dir: Path | None) -> Any:
    conn = sqlite3.connect(
        str(path),
        isolation_level=None,
        check_same_thread=False,
        timeout=30,
        factory=SqliteConnection,
    )
    try:
        _configure(conn)
        if migrate:
            _refuse_foreign_database(conn, path)
            apply_migrations(conn, migrations_dir or MIGRATIONS_DIR, str(path))
    except BaseException:
        conn.close()
        raise
    return conn


def _refuse_foreign_database(conn: Any, path: Path) -> None:
    """Never add our tables to another program's SQLite file."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if tables and "schema_migrations" not in tables:
        raise ConfigurationError(
            f"{path} is an SQLite database of another program (tables: "
            f"{', '.join(sorted(tables)[:5])}), not a Prioris library (--data-dir or --db)"
        )


def _configure(conn: Any) -> None:
    conn.row_factory = sqlite3.Row
    _load_vec(conn)
    textpack.register(conn)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 30000")
    # reads through the page cache of the OS instead of copies: measured -20% hybrid p50 at
    # 100k chunks (docs/benchmarks.md); address space only, not private memory. The window
    # covers the whole file (it was 1 GiB): a point read of vec0 walks the overflow pages
    # of a 1.5 MB vector chunk, ~0.3 ms through read() calls past the window, a tenth of
    # that mapped (vector search's head of 32 rows at 1M: 10 -> 3.4 ms)
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")


def schema_version(conn: Any) -> int:
    """Highest applied migration number (0 for a new file)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def apply_migrations(conn: Any, migrations_dir: Path, where: str = "the library") -> list[int]:
    """Apply every migration newer than the file's version, each in its own transaction."""
    current = schema_version(conn)
    available = available_migrations(migrations_dir)
    recorded = {
        int(r[0]): str(r[1]) for r in conn.execute("SELECT version, name FROM schema_migrations")
    }
    check_applied(recorded, available, where)
    applied = []
    for version, file in available:
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
