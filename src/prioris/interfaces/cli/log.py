"""Messages for the person at the terminal through stdlib ``logging``, on stderr.

The CLI's own messages (summaries, notes, ``error [code]: message``) are INFO/ERROR records
of the ``prioris`` logger printed as plain lines; ``-v`` adds the library's DEBUG records
(timings of parsing, OCR, embedding, commits) and ``-vv`` the HTTP requests httpx logs;
``-q`` keeps only warnings and errors. Records are written through tqdm while a progress
bar is live so the bar is redrawn below them instead of being torn.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from prioris.interfaces.cli.terminal import terminal_safe

LOGGER_NAME = "prioris"


class _StderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is at emit time (tests swap it per test)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            tqdm_module = sys.modules.get("tqdm")
            live = getattr(getattr(tqdm_module, "tqdm", None), "_instances", None)
            if live:
                tqdm_module.tqdm.write(text, file=sys.stderr)  # type: ignore[union-attr]
            else:
                sys.stderr.write(text + "\n")
                sys.stderr.flush()
        except Exception:  # logging must never raise into the command
            self.handleError(record)


class _Formatter(logging.Formatter):
    """Plain lines for the CLI's messages; logger name and time for debug records."""

    def format(self, record: logging.LogRecord) -> str:
        message = terminal_safe(record.getMessage())
        if record.levelno >= logging.ERROR or record.levelno == logging.INFO:
            return message
        if record.levelno >= logging.WARNING:
            return f"warning: {message}"
        return f"[{record.relativeCreated / 1000:7.2f}s {record.name}] {message}"


class CliLogging:
    """The handler of one CLI run; the level is set once the options are parsed."""

    def __init__(self) -> None:
        self.handler = _StderrHandler()
        self.handler.setFormatter(_Formatter())
        self._saved: list[tuple[logging.Logger, int, bool]] = []
        self.set_verbosity(0)

    def _attach(self, logger: logging.Logger, level: int) -> None:
        if logger not in (saved[0] for saved in self._saved):
            self._saved.append((logger, logger.level, logger.propagate))
            logger.addHandler(self.handler)
            logger.propagate = False  # printed once, here, not again by a root handler
        logger.setLevel(level)

    def set_verbosity(self, verbosity: int) -> None:
        """-1 quiet (warnings and errors), 0 messages, 1 library debug, 2 also HTTP."""
        level = {-1: logging.WARNING, 0: logging.INFO}.get(verbosity, logging.DEBUG)
        self._attach(logging.getLogger(LOGGER_NAME), level)
        if verbosity >= 2:
            self._attach(logging.getLogger("httpx"), logging.DEBUG)

    def close(self) -> None:
        for logger, level, propagate in self._saved:
            logger.removeHandler(self.handler)
            logger.setLevel(level)
            logger.propagate = propagate
        self._saved.clear()


@contextmanager
def cli_logging() -> Iterator[CliLogging]:
    """Route ``prioris`` records to stderr for one command, undone afterwards."""
    setup = CliLogging()
    try:
        yield setup
    finally:
        setup.close()
