"""Argument parsing, the one place that turns PriorisError into ``error [code]: message``.

Commands live in sibling modules; each exposes ``register(subparsers)`` and sets
``func(args, ctx) -> int`` on its parser. Data goes to stdout, progress and logs to stderr.
Exit codes: 0 success, 1 some item failed, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prioris.config import Settings, load_settings
from prioris.errors import ConfigurationError, InvalidRequestError, PriorisError

if TYPE_CHECKING:
    from prioris.library import Library

EXIT_OK = 0
EXIT_ITEM_FAILED = 1
EXIT_USAGE = 2


class CliContext:
    """What a command needs: settings, a lazily opened Library, output helpers."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._library: Library | None = None

    def library(self) -> Library:
        """Open the library on first use, so ``--help`` and usage errors stay instant."""
        if self._library is None:
            from prioris.library import Library

            self._library = Library.open(self.settings)
            if self._library.stale_on_open:
                self.log(
                    f"note: the embedding model is now {self._library.embedder.model_id}; "
                    f"{self._library.stale_on_open} chunks are stale until `prioris reindex`"
                )
        return self._library

    def close(self) -> None:
        if self._library is not None:
            self._library.close()
            self._library = None

    @staticmethod
    def print_json(data: Any) -> None:
        """One JSON document on stdout."""
        sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()

    @staticmethod
    def print_line(text: str = "") -> None:
        sys.stdout.write(text + "\n")

    @staticmethod
    def log(text: str) -> None:
        """A message for the person at the terminal (stderr)."""
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors share one exit path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InvalidRequestError(f"{self.prog}: {message}")


def _database_errors() -> tuple[type[Exception], ...]:
    from prioris.storage.db import sqlite3

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the postgres extra is not installed
        return errors
    return (*errors, psycopg.Error)


def _shown_location(settings: Any) -> str:
    """The library named in an error (a URL without its password)."""
    from prioris.storage.postgres.connection import redact

    return redact(settings.db_url) if settings.db_url else str(settings.db_path)


def _command_modules() -> list[Callable[[Any], None]]:
    from prioris.interfaces.cli import library_cmds

    registrars = [library_cmds.register]
    for name in (
        "remote_cmds",
        "discover_cmds",
        "serve_cmds",
        "enrich_cmds",
        "ui_cmds",
        "migrate_cmds",
    ):
        try:
            module = __import__(f"prioris.interfaces.cli.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:  # a command group not built yet
            if exc.name != f"prioris.interfaces.cli.{name}":
                raise
            continue
        registrars.append(module.register)
    return registrars


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; every subcommand has help text."""
    parser = _Parser(
        prog="prioris",
        description="Prioris: a local knowledge base for research literature.",
    )
    parser.add_argument(
        "--db",
        help="library: an SQLite file or a postgresql:// URL (env PRIORIS_MCP_DB)",
    )
    parser.add_argument("--data-dir", type=Path, help="library folder (env PRIORIS_MCP_DATA_DIR)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for register in _command_modules():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; never lets a traceback reach the user for an expected failure."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ctx: CliContext | None = None
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 must not crash
        if hasattr(stream, "reconfigure"):  # the printing of its line
            stream.reconfigure(errors="backslashreplace")
    try:
        parser = build_parser()
        if not argv:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        settings = load_settings()
        if args.data_dir:
            settings = settings.with_overrides(
                data_dir=args.data_dir, db_path=args.data_dir / "library.sqlite", db_url=None
            )
        if args.db:
            settings = settings.with_library(args.db)
        ctx = CliContext(settings)
        return int(args.func(args, ctx))
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except (InvalidRequestError, ConfigurationError) as exc:
        sys.stderr.write(f"error [{exc.code}]: {exc.message}\n")
        return EXIT_USAGE
    except PriorisError as exc:
        sys.stderr.write(f"error [{exc.code}]: {exc.message}\n")
        return EXIT_ITEM_FAILED
    except _database_errors() as exc:  # read-only, locked past the timeout, disk full...
        db = _shown_location(ctx.settings) if ctx is not None else "the library file"
        sys.stderr.write(f"error [configuration_error]: {db}: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    finally:
        if ctx is not None:
            ctx.close()
