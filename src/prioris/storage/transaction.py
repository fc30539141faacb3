"""One write transaction: ``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception.

``IMMEDIATE`` takes SQLite's write lock at the start, so a transaction never fails half
way for another writer (PostgreSQL's connection wrapper treats it as ``BEGIN``). A
Ctrl-C inside rolls back too: what was stored stays whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def immediate(conn: Any) -> Iterator[None]:
    """The caller's statements as one write transaction on ``conn``."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
