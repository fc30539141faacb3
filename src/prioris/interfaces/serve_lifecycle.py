"""Stopping ``prioris serve`` cleanly: SIGTERM, and a stdin that never blocks shutdown.

Two things stood between a SIGTERM and a clean exit (upload parts removed, Library
closed):

* the default action of SIGTERM kills the process on the spot, and uvicorn, which
  catches it while serving, raises it again once it has shut down; :func:`sigterm_exits`
  turns it into ``SystemExit(0)`` so every ``finally`` runs;
* over stdio, the SDK reads stdin in an anyio worker thread that a cancellation must wait
  for, so shutting down hung until the client sent one more line or closed the pipe.
  :func:`serve_stdio` reads stdin in a daemon thread instead and hands lines to the event
  loop; a cancelled read returns at once and the thread dies with the process.

While serving, fd 0 points at the null device (as the SDK does), so a child process or
a library that reads stdin cannot steal bytes of the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """Within the block SIGTERM raises ``SystemExit(0)``; a second one is ignored.

    Only the main thread may install handlers; elsewhere (tests calling ``serve`` in a
    thread) the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut cleanup
        raise SystemExit(0)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class DaemonLines:
    """Async iterator over the lines of a binary stream, read by a daemon thread.

    ``__anext__`` awaits an asyncio queue, so cancelling it never waits for a line. The
    thread decodes UTF-8 (bad bytes replaced, as the SDK does) and ends the iteration at
    end of file.
    """

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary
        self._queue: asyncio.Queue[str | None] | None = None

    def __aiter__(self) -> DaemonLines:
        return self

    async def __anext__(self) -> str:
        if self._queue is None:
            self._queue = asyncio.Queue()
            loop = asyncio.get_running_loop()
            threading.Thread(
                target=self._pump, args=(loop, self._queue), name="prioris-stdin", daemon=True
            ).start()
        line = await self._queue.get()
        if line is None:
            raise StopAsyncIteration
        return line

    def _pump(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
        try:
            for raw in iter(self._binary.readline, b""):
                if not _deliver(loop, queue, raw.decode("utf-8", errors="replace")):
                    return
        except (OSError, ValueError):
            pass  # the stream went away: same as end of file
        _deliver(loop, queue, None)


def _deliver(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any], item: Any) -> bool:
    try:
        loop.call_soon_threadsafe(queue.put_nowait, item)
    except RuntimeError:  # the loop is closed: the server is gone
        return False
    return True


@contextlib.contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The protocol's stdin as a private descriptor; fd 0 reads the null device meanwhile."""
    private = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
    finally:
        os.close(devnull)
    try:
        # closefd=False: the daemon thread may still block on it after we are done
        yield os.fdopen(private, "rb", buffering=0, closefd=False)
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)


async def serve_stdio(server: Any) -> None:
    """Run an MCPServer over stdio with a stdin that shutdown never waits for."""
    from mcp.server.stdio import stdio_server

    lowlevel = getattr(server, "_lowlevel_server", None)
    if lowlevel is None:  # an SDK without it: its own loop (shutdown may wait for stdin)
        await server.run_stdio_async()
        return
    with claimed_stdin() as stdin:
        async with stdio_server(stdin=DaemonLines(stdin)) as (read_stream, write_stream):  # type: ignore[arg-type]
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
