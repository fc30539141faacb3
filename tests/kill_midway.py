"""SIGKILL a child that writes a library, once it has stored some works (crash tests)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from prioris.engines.sqlite.connection import connect


def stored_works(db: Path) -> int:
    """Works committed so far; 0 while the file or its tables do not exist yet."""
    if not db.exists():
        return 0
    try:
        conn = connect(db, migrate=False)
    except Exception:
        return 0
    try:
        return int(conn.execute("SELECT count(*) FROM works").fetchone()[0])
    except Exception:
        return 0
    finally:
        conn.close()


def kill_after(process: subprocess.Popen, db: Path, works: int, *, timeout: float) -> None:
    """Wait until ``works`` are stored (or ``timeout``), then SIGKILL the still-running child."""
    deadline = time.monotonic() + timeout
    while stored_works(db) < works and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    assert process.poll() is None, "the child finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
