"""Chunked uploads of large files: bounded sessions that assemble bytes in temp files.

An MCP client cannot send a 50 MB PDF in one tool call, so it opens a session, sends
base64 chunks with a strictly sequential ``index`` (0, 1, 2, ...) and finalizes. This
module owns the rules, independent of any transport:

* every chunk is bounded (``max_chunk_bytes``), checked on the *encoded* length before
  decoding so an oversized chunk never allocates its decoded bytes;
* a session's total is bounded (``max_total_bytes``, the PDF size limit): exceeding it
  discards the session with ``file_too_large``;
* at most ``max_sessions`` are open at once; a session idle for longer than
  ``idle_timeout`` seconds expires and its temp file is removed. When every slot is taken
  and someone else wants one, a session idle for more than ``contended_idle_timeout``
  seconds (much shorter) is reclaimed for them: one client cannot hold every slot for
  the whole idle timeout by opening sessions and walking away;
* the temp files live in ``uploads/`` beside the library file (:func:`upload_directory`),
  not in the user's data folder. Parts left by a server that was killed (SIGKILL, power
  loss) are removed when sessions are next created and every few minutes after: any
  ``upload-*.part`` not written to for ``idle_timeout`` seconds belongs to no live session
  of any server, since every chunk appended touches its file;
* an out-of-order or repeated index is ``invalid_request`` (the client learns the index
  expected next), so bytes are never silently reordered or duplicated.

The assembled bytes are handed back by :meth:`UploadSessions.finalize`; what they are (a
PDF, by magic bytes) is the ingest pipeline's decision, so identical bytes get the same
work id whether they arrived in one call or in many chunks.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError

DEFAULT_MAX_CHUNK_BYTES = 2 * 1024 * 1024  # base64 of it fits the HTTP transport's 4 MiB body
DEFAULT_MAX_SESSIONS = 16  # as many as PriorisMCP allows, so its clients never hit a lower cap
DEFAULT_IDLE_TIMEOUT = 900.0  # seconds
DEFAULT_CONTENDED_IDLE_TIMEOUT = 60.0  # seconds idle after which a full table reclaims a slot
SWEEP_INTERVAL = 300.0  # seconds between two sweeps of stale part files
PART_GLOB = "upload-*.part"


def upload_directory(db_path: Path) -> Path:
    """Where upload parts go: ``uploads/`` beside the library file (``--db`` included)."""
    return Path(db_path).expanduser().parent / "uploads"


def base64_decoded_size(encoded: str) -> int:
    """Upper bound of the decoded size of ``encoded``, computed without decoding it."""
    return (len(encoded) * 3) // 4


def decode_base64_checked(encoded: str, max_bytes: int, *, what: str = "content") -> bytes:
    """Decode strict base64 after checking the size it would decode to.

    Oversize input is ``file_too_large`` before any allocation; malformed base64 is
    ``invalid_request``. Whitespace (line-wrapped base64) is tolerated.
    """
    if not isinstance(encoded, str) or not encoded.strip():
        raise InvalidRequestError(f"{what} is empty; send the bytes as base64")
    estimated = base64_decoded_size(encoded.strip())
    if estimated > max_bytes + 2:  # padding makes the estimate up to 2 bytes high
        raise FileTooLargeError(
            f"{what} decodes to about {estimated} bytes, over the {max_bytes}-byte limit"
        )
    compact = "".join(encoded.split())
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidRequestError(f"{what} is not valid base64 ({exc})") from exc
    if len(data) > max_bytes:
        raise FileTooLargeError(f"{what} is {len(data)} bytes, over the {max_bytes}-byte limit")
    return data


@dataclass
class UploadInfo:
    """What the client needs to send the chunks (returned by :meth:`UploadSessions.begin`)."""

    session_id: str
    filename: str | None
    next_index: int
    received_bytes: int
    max_chunk_bytes: int
    max_total_bytes: int
    idle_timeout_seconds: float


@dataclass
class FinishedUpload:
    """The assembled bytes of a finalized session."""

    filename: str | None
    data: bytes
    chunks: int
    sha256: str


@dataclass
class _Session:
    session_id: str
    filename: str | None
    path: Path
    last_used: float
    next_index: int = 0
    received: int = 0
    hasher: Any = field(default_factory=hashlib.sha256)


class UploadSessions:
    """Open upload sessions, their temp files under ``directory``, and the limits.

    Thread-safe: the MCP server calls it from worker threads. ``clock`` returns seconds
    (monotonic by default) and is the test seam for idle expiry.
    """

    def __init__(
        self,
        directory: Path,
        *,
        max_total_bytes: int,
        max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        contended_idle_timeout: float = DEFAULT_CONTENDED_IDLE_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        if max_chunk_bytes < 1 or max_total_bytes < 1 or max_sessions < 1 or idle_timeout <= 0:
            raise ValueError("upload limits must be positive")
        self.directory = Path(directory)
        self.max_total_bytes = max_total_bytes
        self.max_chunk_bytes = min(max_chunk_bytes, max_total_bytes)
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.contended_idle_timeout = min(max(0.0, contended_idle_timeout), idle_timeout)
        self.clock = clock
        self.wall_clock = wall_clock
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self._last_sweep = clock()
        self.sweep_stale_parts()

    # -- lifecycle ---------------------------------------------------------------------
    def begin(self, filename: str | None = None, expected_bytes: int | None = None) -> UploadInfo:
        """Open a session; too many open sessions or a declared size over the limit refuse."""
        if expected_bytes is not None and expected_bytes > self.max_total_bytes:
            raise FileTooLargeError(
                f"the file is {expected_bytes} bytes, over the {self.max_total_bytes}-byte "
                "limit (PRIORIS_MCP_MAX_FILE_BYTES)"
            )
        with self._lock:
            self._expire_locked()
            if len(self._sessions) >= self.max_sessions and not self._reclaim_locked():
                wait = self._seconds_until_reclaim_locked()
                raise InvalidRequestError(
                    f"too many open upload sessions ({self.max_sessions}); finalize one, or "
                    f"retry in {wait:.0f} s, when a session idle for "
                    f"{self.contended_idle_timeout:g} s can be reclaimed"
                )
            self.directory.mkdir(parents=True, exist_ok=True)
            session_id = secrets.token_hex(16)
            path = self.directory / f"upload-{session_id}.part"
            path.write_bytes(b"")
            session = _Session(session_id, _clean_name(filename), path, self.clock())
            self._sessions[session_id] = session
            return self._info(session)

    def append_base64(self, session_id: str, index: int, chunk_base64: str) -> UploadInfo:
        """Decode one chunk (size checked on the encoded length first) and append it."""
        data = decode_base64_checked(chunk_base64, self.max_chunk_bytes, what=f"chunk {index}")
        return self.append(session_id, index, data)

    def append(self, session_id: str, index: int, data: bytes) -> UploadInfo:
        """Append chunk ``index``; it must be exactly the next one expected."""
        if len(data) > self.max_chunk_bytes:
            raise FileTooLargeError(
                f"chunk {index} is {len(data)} bytes, over the {self.max_chunk_bytes}-byte "
                "chunk limit"
            )
        if not data:
            raise InvalidRequestError(f"chunk {index} is empty")
        with self._lock:
            session = self._get_locked(session_id)
            if index != session.next_index:
                raise InvalidRequestError(
                    f"chunk index {index} is out of order for session {session_id}; "
                    f"expected index {session.next_index} (indexes start at 0 and go up by 1)"
                )
            if session.received + len(data) > self.max_total_bytes:
                self._discard_locked(session_id)
                raise FileTooLargeError(
                    f"the upload exceeds the {self.max_total_bytes}-byte limit "
                    "(PRIORIS_MCP_MAX_FILE_BYTES); the session was discarded"
                )
            with session.path.open("ab") as handle:
                handle.write(data)
            session.hasher.update(data)
            session.received += len(data)
            session.next_index += 1
            session.last_used = self.clock()
            return self._info(session)

    def finalize(self, session_id: str) -> FinishedUpload:
        """Close the session and return its bytes; the temp file is removed either way."""
        with self._lock:
            session = self._get_locked(session_id)
            if session.next_index == 0:
                raise InvalidRequestError(
                    f"session {session_id} has received no chunks; send chunk 0 first"
                )
            del self._sessions[session_id]
        try:
            data = session.path.read_bytes()
        finally:
            session.path.unlink(missing_ok=True)
        return FinishedUpload(
            filename=session.filename,
            data=data,
            chunks=session.next_index,
            sha256=session.hasher.hexdigest(),
        )

    def discard(self, session_id: str) -> None:
        """Drop a session and its temp file (unknown ids are ignored)."""
        with self._lock:
            self._discard_locked(session_id)

    def expire(self) -> list[str]:
        """Remove sessions idle for longer than ``idle_timeout``; returns their ids."""
        with self._lock:
            return self._expire_locked()

    def open_sessions(self) -> int:
        with self._lock:
            self._expire_locked()
            return len(self._sessions)

    def sweep_stale_parts(self) -> list[Path]:
        """Remove ``upload-*.part`` files of no open session, untouched for ``idle_timeout``.

        Another server on the same library may have live sessions in this folder: their
        files are fresh (each chunk touches them), so only abandoned ones are old enough.
        """
        with self._lock:
            return self._sweep_locked()

    def _sweep_locked(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        ours = {session.path.name for session in self._sessions.values()}
        cutoff = self.wall_clock() - self.idle_timeout
        removed: list[Path] = []
        for path in self.directory.glob(PART_GLOB):
            if path.name in ours:
                continue
            with contextlib.suppress(OSError):  # gone already, or not ours to remove
                if path.is_file() and path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed.append(path)
        return removed

    def close(self) -> None:
        """Remove every session and temp file (server shutdown)."""
        with self._lock:
            for session_id in list(self._sessions):
                self._discard_locked(session_id)
        with contextlib.suppress(OSError):
            self.directory.rmdir()  # only when empty: other files there are not ours

    # -- internals ---------------------------------------------------------------------
    def _info(self, session: _Session) -> UploadInfo:
        return UploadInfo(
            session_id=session.session_id,
            filename=session.filename,
            next_index=session.next_index,
            received_bytes=session.received,
            max_chunk_bytes=self.max_chunk_bytes,
            max_total_bytes=self.max_total_bytes,
            idle_timeout_seconds=self.idle_timeout,
        )

    def _get_locked(self, session_id: str) -> _Session:
        self._expire_locked()
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFoundError(
                f"no open upload session {session_id!r} (unknown, finalized, or expired "
                f"after {self.idle_timeout:g} s idle); begin a new upload"
            )
        return session

    def _discard_locked(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            session.path.unlink(missing_ok=True)

    def _expire_locked(self) -> list[str]:
        now = self.clock()
        stale = [sid for sid, s in self._sessions.items() if now - s.last_used > self.idle_timeout]
        for session_id in stale:
            self._discard_locked(session_id)
        if now - self._last_sweep >= SWEEP_INTERVAL:
            self._last_sweep = now
            self._sweep_locked()
        return stale

    def _reclaim_locked(self) -> bool:
        """Free the slot of the longest-idle session if it idled past the contended timeout."""
        now = self.clock()
        session = min(self._sessions.values(), key=lambda s: s.last_used, default=None)
        if session is None or now - session.last_used <= self.contended_idle_timeout:
            return False
        self._discard_locked(session.session_id)
        return True

    def _seconds_until_reclaim_locked(self) -> float:
        oldest = min(s.last_used for s in self._sessions.values())
        return max(1.0, self.contended_idle_timeout - (self.clock() - oldest))


def _clean_name(filename: str | None) -> str | None:
    """Keep only a base name for display (a client's path is never used on disk)."""
    if not filename:
        return None
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name[:255] or None
