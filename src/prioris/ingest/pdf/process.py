"""The parent's side of the PDF parser process: start it, ask it, and kill it at a deadline.

:class:`PdfProcess` runs :mod:`prioris.ingest.pdf.worker` as a child process and sends it
one request at a time; every wait has a timeout (what is left of the file's parse time
limit), and when it passes, or the child dies, the child is killed and the call raises.
Starting Python and MuPDF takes a moment, so idle processes are kept for the next file
(:func:`pdf_process`); one that was killed, failed badly or grew is never reused. Each
thread gets its own process, so parallel ingests never share a MuPDF document.
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from prioris.errors import ParseError
from prioris.ingest.pdf.worker import FRAME, NO_PAYLOAD, encode_frame

START_TIMEOUT_SECONDS = 120.0  # a cold start on a loaded machine; not the file's fault
MAX_IDLE = 2
RECYCLE_RSS_BYTES = 512 << 20  # a process that kept this much after a file is replaced


class DeadlineExceeded(Exception):
    """The child did not answer in time; it has been killed."""


class WorkerFailed(ParseError):
    """The child died or answered nonsense while handling this file."""


def _python_path() -> str:
    """PYTHONPATH that lets the child import this very copy of prioris."""
    package_parent = str(Path(__file__).resolve().parents[3])
    existing = os.environ.get("PYTHONPATH")
    return package_parent + (os.pathsep + existing if existing else "")


def _millis(seconds: float) -> int:
    return max(1, int(seconds * 1000) + 1)


class PdfProcess:
    """One parser child process and the pipe to it."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = _python_path()
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
        # one thread: a thread touching new thread-local data under the memory limit makes
        # glibc abort the process instead of failing an allocation (numpy's OpenBLAS pool)
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "prioris.ingest.pdf.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                close_fds=True,
            )
        except OSError as exc:
            raise ParseError(f"could not start the PDF parser process: {exc}") from exc
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._buffer = bytearray()
        self._readable = select.poll()
        self._readable.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._writable = select.poll()
        self._writable.register(self._in, select.POLLOUT | select.POLLERR)
        self.dead = False
        try:
            self._read_reply(time.monotonic() + START_TIMEOUT_SECONDS)
        except DeadlineExceeded:
            self.kill()
            raise ParseError(
                f"the PDF parser process did not start within {START_TIMEOUT_SECONDS:g} s"
            ) from None
        except WorkerFailed as exc:
            raise ParseError(
                "the PDF parser process could not start "
                f"({exc.message.rsplit('(', 1)[-1].rstrip(')')})"
            ) from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def request(
        self, header: dict[str, Any], payload: bytes | None = None, *, timeout: float
    ) -> tuple[dict[str, Any], bytes | None]:
        """Send one request and wait at most ``timeout`` seconds for the reply.

        Raises DeadlineExceeded (the child is killed) or WorkerFailed (it died).
        """
        if self.dead:
            raise WorkerFailed("the PDF parser process is no longer running")
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            for buffer in encode_frame(header, payload):
                self._write(buffer, deadline)
            return self._read_reply(deadline)
        except BaseException:
            self.kill()  # its state is unknown: never reuse it
            raise

    def _write(self, buffer: bytes, deadline: float) -> None:
        view = memoryview(buffer)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlineExceeded
            if not self._writable.poll(_millis(remaining)):
                raise DeadlineExceeded
            try:
                written = os.write(self._in, view[: 1 << 16])
            except (BrokenPipeError, ConnectionResetError):
                raise self._died() from None
            view = view[written:]

    def _fill(self, size: int, deadline: float) -> None:
        while len(self._buffer) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlineExceeded
            if not self._readable.poll(_millis(remaining)):
                raise DeadlineExceeded
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise self._died()
            self._buffer += chunk

    def _take(self, size: int) -> bytes:
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def _read_reply(self, deadline: float) -> tuple[dict[str, Any], bytes | None]:
        import json

        self._fill(FRAME.size, deadline)
        head_size, payload_size = FRAME.unpack(self._take(FRAME.size))
        self._fill(head_size, deadline)
        try:
            header = json.loads(self._take(head_size))
        except ValueError:
            raise WorkerFailed("the PDF parser process answered garbage") from None
        payload = None
        if payload_size != NO_PAYLOAD:
            self._fill(payload_size, deadline)
            payload = self._take(payload_size)
        return header, payload

    def _died(self) -> WorkerFailed:
        self.dead = True
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return WorkerFailed(f"the PDF parser process crashed on this file ({how})")

    def stop(self) -> None:
        """End an idle child by closing its pipe (it exits normally), killing it if it lingers."""
        if self.proc.poll() is None and not self.dead:
            with suppress(OSError):
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=2)
        self.kill()

    def kill(self) -> None:
        """Stop the child at once and reap it."""
        self.dead = True
        if self.proc.poll() is None:
            with suppress(OSError):
                self.proc.kill()
        with suppress(subprocess.TimeoutExpired):  # a process immune to SIGKILL: give up
            self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            with suppress(OSError):
                if stream is not None:
                    stream.close()


_idle: list[PdfProcess] = []
_idle_lock = threading.Lock()


@contextmanager
def pdf_process() -> Iterator[PdfProcess]:
    """A parser process for one file: an idle one if any, else a new one."""
    worker: PdfProcess | None = None
    with _idle_lock:
        while _idle and worker is None:
            candidate = _idle.pop()
            if candidate.proc.poll() is None:
                worker = candidate
            else:
                candidate.kill()
    if worker is None:
        worker = PdfProcess()
    try:
        yield worker
    finally:
        _release(worker)


def _release(worker: PdfProcess) -> None:
    if not worker.dead:
        try:
            reply, _ = worker.request({"op": "close"}, timeout=30)
            rss = int((reply.get("ok") or {}).get("rss", 0))
        except Exception:
            return  # request() killed it
        if rss <= RECYCLE_RSS_BYTES:
            with _idle_lock:
                if len(_idle) < MAX_IDLE:
                    _idle.append(worker)
                    return
    worker.kill()


@atexit.register
def shutdown_idle() -> None:
    """Stop the idle parser processes (at exit, or when a caller wants them gone)."""
    with _idle_lock:
        workers, _idle[:] = list(_idle), []
    for worker in workers:
        worker.stop()
