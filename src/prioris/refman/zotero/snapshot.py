"""A private, consistent copy of ``zotero.sqlite``, taken without touching Zotero's files.

While Zotero runs it holds its database with an exclusive lock, and its newest changes may
still be in ``zotero.sqlite-wal`` (WAL mode) or half-written with a ``-journal`` beside
the database (rollback mode). Opening the original with SQLite would wait on that lock
(an ordinary reader, and the backup API, wait forever), and ``immutable=1`` would not wait
but reads the main file alone, missing whatever is still in the WAL: that is how another
tool came to skip new items forever. So the original is never opened with SQLite at all:

1. ``stat`` the database and its companions, copy them with plain file reads into a
   private temporary folder (each a regular file within :data:`MAX_DB_BYTES`, looked at
   before it is opened: a FIFO or a device in Zotero's folder is refused, not waited
   on), ``stat`` again; if anything changed during the copy (Zotero
   wrote or checkpointed meanwhile), the copy may be torn: retry.
2. A *hot* rollback journal (non-empty, its header not zeroed) means a write transaction
   is in progress or was cut short. Retry a few times in case it finishes; if it stays,
   the copy is taken with the journal, and SQLite rolls it back *in the copy*, exactly as
   Zotero itself would at its next start: the result is the last committed state. A
   journal of zero length or with a zeroed header (``journal_mode=TRUNCATE/PERSIST``
   leftovers, stale files committed to a repository) is not hot and is ignored.
3. Open the copy read-write (so SQLite applies the WAL and rolls back a hot journal
   there, never in Zotero's folder), then ``PRAGMA quick_check``; a damaged copy is
   retried too. ``-shm`` is never copied (SQLite rebuilds it from the WAL); ``.bak`` files
   are Zotero's backups and are not read.

Only reads of Zotero's files happen here: their bytes, and so Zotero's view of them, stay
identical. The temporary copy is removed when the :class:`ZoteroSnapshot` is closed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from prioris.errors import ConfigurationError, NotFoundError, ParseError, PriorisError
from prioris.regular_files import copy_regular, read_head

DB_NAME = "zotero.sqlite"
SQLITE_MAGIC = b"SQLite format 3\x00"
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
MAX_DB_BYTES = 16 * 1024**3
"""The largest ``zotero.sqlite`` (and ``-wal`` or ``-journal``) copied: far above any real
library (a 100,000-item library is about 1 GB), far below a device that never ends."""
ATTEMPTS = 5
DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8)
"""Seconds to wait before each retry (a Zotero write transaction is short)."""

_Stat = tuple[int, int] | None  # (size, mtime_ns), None when the file is absent


def _stat(path: Path) -> _Stat:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_size, st.st_mtime_ns)


def journal_is_hot(path: Path, max_bytes: int = MAX_DB_BYTES) -> bool:
    """Whether a rollback journal would be rolled back by SQLite (its crash recovery).

    SQLite treats a journal as hot when it exists, is not empty and its first byte is not
    zero (a committed transaction truncates it, deletes it or zeroes its header). This
    checks the whole 8-byte magic, which a journal being written always starts with.
    A journal that is no regular file (a FIFO, a device) or is past ``max_bytes`` is
    ConfigurationError: looked at, never opened (opening a FIFO would wait forever).
    """
    if not os.path.lexists(path):
        return False
    try:
        head = read_head(path, len(JOURNAL_MAGIC), max_bytes)
    except NotFoundError:
        return False
    except PriorisError as exc:
        raise ConfigurationError(f"Zotero's rollback journal is unusable: {exc.message}") from exc
    return head == JOURNAL_MAGIC


def _copy(source: Path, target: Path, max_bytes: int = MAX_DB_BYTES) -> None:
    """A plain read of ``source`` into ``target`` (no SQLite, no lock, no write to source),
    of a regular file within ``max_bytes`` only (:mod:`prioris.regular_files`)."""
    copy_regular(source, target, max_bytes)


class ZoteroSnapshot:
    """A context manager giving a sqlite3 connection on a private copy of ``zotero.sqlite``.

    ``sleep`` is injected so tests can count retries without waiting; ``attempts`` bounds
    them. Errors: ConfigurationError when there is no database or it is not SQLite;
    ParseError when every attempt gave a torn or damaged copy.
    """

    def __init__(
        self,
        data_dir: Path | str,
        *,
        attempts: int = ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
        temp_root: Path | str | None = None,
        max_bytes: int = MAX_DB_BYTES,
    ) -> None:
        data_dir = Path(data_dir)
        self.db_path = data_dir / DB_NAME if data_dir.is_dir() else data_dir
        self.attempts = max(1, attempts)
        self.sleep = sleep
        self.temp_root = temp_root
        self.max_bytes = max_bytes  # each file copied: a regular file within this
        self.conn: sqlite3.Connection | None = None
        self.copy_dir: Path | None = None
        self.retries = 0
        """How many attempts were thrown away (torn copy, hot journal, failed check)."""
        self.rolled_back_journal = False
        """Whether the snapshot was taken with a hot journal that SQLite rolled back."""

    # -- the context manager ---------------------------------------------------------
    def __enter__(self) -> sqlite3.Connection:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection and delete the private copy."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.copy_dir is not None:
            shutil.rmtree(self.copy_dir, ignore_errors=True)
            self.copy_dir = None

    # -- taking it ----------------------------------------------------------------------
    def open(self) -> sqlite3.Connection:
        """Take the snapshot (retrying as the module says) and return a connection on it."""
        self._check_source()
        self.copy_dir = Path(tempfile.mkdtemp(prefix="prioris-zotero-", dir=self.temp_root))
        problem = ""
        try:
            for attempt in range(self.attempts):
                if attempt:
                    self.retries += 1
                    self.sleep(DELAYS[min(attempt - 1, len(DELAYS) - 1)])
                last = attempt == self.attempts - 1
                problem = self._attempt(accept_hot_journal=last or attempt >= 2)
                if not problem:
                    assert self.conn is not None
                    return self.conn
        except BaseException:
            self.close()
            raise
        self.close()
        raise ParseError(
            f"could not take a consistent copy of {self.db_path} in {self.attempts} "
            f"attempts ({problem}); if Zotero is busy (importing, syncing), try again"
        )

    def _check_source(self) -> None:
        if not self.db_path.is_file():
            raise ConfigurationError(
                f"no Zotero database at {self.db_path}; give Zotero's data directory "
                "(the folder holding zotero.sqlite and storage/: Zotero Settings > "
                "Advanced > Files and Folders > Data Directory Location)"
            )
        try:
            head = read_head(self.db_path, len(SQLITE_MAGIC), self.max_bytes)
        except PriorisError as exc:
            raise ConfigurationError(f"cannot read {self.db_path}: {exc.message}") from exc
        if head != SQLITE_MAGIC:
            raise ConfigurationError(
                f"{self.db_path} is not a SQLite database, so not Zotero's (it does not "
                "start with the SQLite header)"
            )

    def _attempt(self, *, accept_hot_journal: bool) -> str:
        """One copy and check; '' when it is good (``self.conn`` is then open), else why not."""
        assert self.copy_dir is not None
        self._discard_copy()
        source = self.db_path
        wal = source.with_name(source.name + "-wal")
        journal = source.with_name(source.name + "-journal")
        hot = journal_is_hot(journal, self.max_bytes)
        if hot and not accept_hot_journal:
            return "a write transaction is in progress (hot -journal)"
        companions = [wal] + ([journal] if hot else [])
        before = [_stat(p) for p in (source, *companions)]
        target = self.copy_dir / DB_NAME
        try:
            _copy(source, target, self.max_bytes)
            for path in companions:
                if os.path.lexists(path):
                    name = DB_NAME + path.name[len(source.name) :]
                    _copy(path, target.with_name(name), self.max_bytes)
        except (FileNotFoundError, NotFoundError):
            return "a file vanished while it was copied"
        except PriorisError as exc:  # a FIFO, a device, a file past the limit: never read
            raise ConfigurationError(f"cannot copy Zotero's database: {exc.message}") from exc
        except OSError as exc:
            raise ConfigurationError(
                f"cannot copy {source} to {self.copy_dir} (unreadable, or no room for the "
                f"copy): {exc}"
            ) from exc
        after = [_stat(p) for p in (source, *companions)]
        if before != after:
            return "Zotero wrote to the database while it was copied"
        return self._verify(target, hot=hot)

    def _verify(self, target: Path, *, hot: bool) -> str:
        try:
            conn = sqlite3.connect(str(target), isolation_level=None)
        except sqlite3.Error as exc:  # pragma: no cover - connect is lazy in practice
            return f"cannot open the copy: {exc}"
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            conn.close()
            return f"the copy is damaged: {exc}"
        verdict = "; ".join(str(row[0]) for row in rows[:3])
        if verdict != "ok":
            conn.close()
            return f"the copy is damaged: quick_check says {verdict[:300]}"
        conn.execute("PRAGMA query_only = 1")
        self.conn = conn
        self.rolled_back_journal = hot
        return ""

    def _discard_copy(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.copy_dir is not None:
            for child in self.copy_dir.iterdir():
                with contextlib.suppress(OSError):  # our own temp folder
                    child.unlink()
