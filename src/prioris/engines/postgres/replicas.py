"""Read replicas: which hot standby answers a read now, or the primary.

A library on PostgreSQL may name hot standbys of its server (``PRIORIS_MCP_DB_REPLICAS``,
streaming replication set up as docs/deploy.md "Past one machine" shows). Searches,
reads, exports and the loads of the in-process copies go to one of them; writes always go
to the primary (:class:`~prioris.engines.router.Router`). :class:`ReplicaSet` keeps, for
one process:

- **its own writes**: after each write the primary's ``pg_current_wal_lsn()``; a replica
  whose ``pg_last_wal_replay_lsn()`` has not reached it does not answer this process's
  reads (the primary does, until the replica catches up), so a process reads what it
  has just written;
- **each replica's health**, read at most every ``RECHECK_SECONDS`` (and at once when a
  write of this process is newer than what was seen replayed): down (no connection),
  lagging past ``max_lag_s`` (the time since the last transaction it replayed, while it
  has WAL left to replay), or not a standby (promoted, or not one at all) -- each is
  skipped with a warning when it starts and a note when it ends;
- whether the **primary** is reachable, so that with the primary down reads are still
  answered by a replica while a write fails with one clear line, nothing written.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prioris.engines.postgres.connection import connect_raw, redact

log = logging.getLogger("prioris.replicas")

RECHECK_SECONDS = 1.0  # a replica's health is read again after this long
DOWN_RECHECK_SECONDS = 5.0  # ... and a replica found down is tried again after this long
STATUS_CONNECT_TIMEOUT = 3  # seconds: a replica that does not answer by then is down
STATUS_SQL = (
    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
    "CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() "
    "THEN 0 ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0) "
    "END"
)


def parse_lsn(text: str | None) -> int:
    """``'16/B374D848'`` as the byte position it names (0 for None)."""
    if not text:
        return 0
    high, _, low = str(text).partition("/")
    return (int(high, 16) << 32) | int(low or "0", 16)


@dataclass
class Health:
    """What was last seen of one replica."""

    checked: float = -1e9
    up: bool = False
    standby: bool = True
    replay_lsn: int = 0
    lag_s: float | None = None
    problem: str | None = None  # its state when last chosen (a change is warned)


class ReplicaSet:
    """The replicas of one library in one process, and this process's last write."""

    def __init__(
        self,
        urls: tuple[str, ...],
        *,
        max_lag_s: float,
        statement_timeout_ms: int,
        connect: Callable[..., Any] = connect_raw,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.urls = urls
        self.max_lag_s = float(max_lag_s)
        self.statement_timeout_ms = statement_timeout_ms
        self._connect = connect
        self._clock = clock
        self._lock = threading.Lock()
        self._health = {url: Health() for url in urls}
        self._status_conns: dict[str, Any] = {}
        self.written_lsn = 0  # the primary's WAL position after this process's last write
        self.primary_down = False
        self.reads = {url: 0 for url in urls}  # reads each replica answered (bench, tests)
        self.primary_reads = 0

    # -- this process's writes ---------------------------------------------------------
    def note_write(self, primary_raw: Any) -> None:
        """Remember the primary's WAL position after a write (read-your-writes)."""
        row = primary_raw.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        with self._lock:
            self.written_lsn = max(self.written_lsn, parse_lsn(row[0]))

    # -- choosing ----------------------------------------------------------------------
    def choose(self) -> str | None:
        """The replica to read from now, or None for the primary."""
        for url in self.urls:
            if self._usable(url):
                with self._lock:
                    self.reads[url] += 1
                return url
        with self._lock:
            self.primary_reads += 1
        return None

    def _usable(self, url: str) -> bool:
        health = self._health[url]
        now = self._clock()
        wait = DOWN_RECHECK_SECONDS if not health.up else RECHECK_SECONDS
        behind = health.up and health.replay_lsn < self.written_lsn
        if now - health.checked >= wait or behind:
            health = self._check(url)
        state, why = self._state(health)
        # waiting for this process's own write is routine: no warning for "behind"
        was = "serving" if health.problem in (None, "behind") else health.problem
        now_state = "serving" if state == "behind" else state
        if now_state != was:
            if now_state != "serving":
                log.warning("replica %s skipped: %s", redact(url), why)
            else:
                log.warning("replica %s serves reads again", redact(url))
        health.problem = state
        return state == "serving"

    def _state(self, health: Health) -> tuple[str, str]:
        """``(state, why)``: serving, down, not a standby, lagging, or behind this
        process's last write; why in words for the warning (empty when serving)."""
        if not health.up:
            return "down", "down (no connection)"
        if not health.standby:
            return "not a standby", "not a standby (promoted, or not a replica at all)"
        if health.lag_s is not None and health.lag_s > self.max_lag_s:
            return "lagging", (
                f"{health.lag_s:.1f} s behind the primary, more than "
                f"PRIORIS_MCP_DB_REPLICA_MAX_LAG_SECONDS={self.max_lag_s:g}"
            )
        if health.replay_lsn < self.written_lsn:
            return "behind", "behind this process's last write (the primary answers)"
        return "serving", ""

    def _check(self, url: str) -> Health:
        """Read one replica's health now (on a connection kept for it)."""
        health = self._health[url]
        health.checked = self._clock()
        try:
            raw = self._status_conns.get(url)
            if raw is None or raw.closed:
                raw = self._connect(
                    url,
                    connect_timeout=STATUS_CONNECT_TIMEOUT,
                    statement_timeout_ms=self.statement_timeout_ms,
                )
                self._status_conns[url] = raw
            in_recovery, replay, lag = raw.execute(STATUS_SQL).fetchone()
        except Exception as exc:  # unreachable, refused, dropped: down until rechecked
            log.debug("replica %s: %s", redact(url), exc)
            self._forget(url)
            health.up, health.lag_s = False, None
            return health
        health.up, health.standby = True, bool(in_recovery)
        health.replay_lsn, health.lag_s = parse_lsn(replay), float(lag or 0.0)
        return health

    def mark_down(self, url: str) -> None:
        """A read on ``url`` failed for want of its server: skip it until rechecked."""
        self._forget(url)
        health = self._health[url]
        health.up, health.lag_s, health.checked = False, None, self._clock()

    def _forget(self, url: str) -> None:
        raw = self._status_conns.pop(url, None)
        if raw is not None:
            with contextlib.suppress(Exception):  # closing a broken connection
                raw.close()

    # -- status ------------------------------------------------------------------------
    def describe(self) -> list[dict[str, Any]]:
        """Each replica for ``prioris status --json``: ``{"url", "lag_s", "state"}``, the
        URL without its password, the lag in seconds (None when down)."""
        out = []
        for url in self.urls:
            health = self._check(url)
            state, _ = self._state(health)
            lag = None if not health.up else round(health.lag_s or 0.0, 3)
            out.append({"url": redact(url), "lag_s": lag, "state": state})
        return out

    def close(self) -> None:
        for url in list(self._status_conns):
            self._forget(url)
