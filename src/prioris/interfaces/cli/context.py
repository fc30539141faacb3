"""What every command shares: :class:`CliContext`, the exit codes and the ``--json`` flag.

A module of its own so that :mod:`.app`, which builds the parser from the command modules,
and the command modules, which need the context, import it without importing each other.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prioris.config import Settings
from prioris.errors import ConfigurationError
from prioris.interfaces.cli.terminal import terminal_safe

if TYPE_CHECKING:
    from prioris.library import Library

EXIT_OK = 0
EXIT_ITEM_FAILED = 1
EXIT_USAGE = 2
log = logging.getLogger("prioris.cli")


class CliContext:
    """What a command needs: settings, a lazily opened Library, output helpers."""

    def __init__(self, settings: Settings, *, may_create: bool = True) -> None:
        self.settings = settings
        self.may_create = may_create  # False: the library must exist already
        self._library: Library | None = None

    def library(self) -> Library:
        """Open the library on first use, so ``--help`` and usage errors stay instant."""
        if self._library is None:
            from prioris.library import Library

            location = self.settings.library_location
            if not self.may_create and isinstance(location, Path) and not location.exists():
                raise ConfigurationError(
                    f"there is no library at {location}: nothing has been added there yet "
                    "(`prioris ingest` or `prioris import` starts one); check --data-dir, "
                    "--db or PRIORIS_MCP_DATA_DIR"
                )

            self._library = Library.open(self.settings)
            if self._library.stale_on_open:
                stale = self._library.stale_on_open
                log.warning(
                    f"the embedding model is now {self._library.embedder.model_id}; "
                    f"{stale} {'chunk is' if stale == 1 else 'chunks are'} stale until "
                    "`prioris reindex`"
                )
            elif self._library.work_vectors_pending:
                log.warning(
                    "this library was made before works had vectors of their own (title + "
                    "abstract); vector search scores them by their passages alone until "
                    "`prioris reindex`"
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
        """One line of text output, its control characters made visible."""
        sys.stdout.write(terminal_safe(text) + "\n")

    @staticmethod
    def log(text: str) -> None:
        """A message for the person at the terminal (stderr; hidden by ``-q``)."""
        log.info(text)

    @staticmethod
    def error(text: str) -> None:
        """An item that failed (stderr, shown even with ``-q``)."""
        log.error(text)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """``--json`` on a command that prints data (:mod:`.app` keeps it when given first)."""
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def add_cluster_option(parser: argparse.ArgumentParser) -> None:
    """``--cluster`` on the commands whose reading, OCR and embedding can run as Dask tasks
    (ingest, import, reindex); :func:`use_cluster` applies it before the library opens."""
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run reading, OCR and embedding as Dask tasks: local:N (N worker processes "
        "on this machine) or tcp://HOST:PORT (a running dask scheduler); the writes stay "
        "in this process (default: PRIORIS_MCP_CLUSTER, else in this process)",
    )


def use_cluster(args: argparse.Namespace, ctx: CliContext) -> None:
    """``--cluster`` over the ``cluster`` setting (a bad address: a usage error, exit 2)."""
    if getattr(args, "cluster", None):
        from prioris.config.cluster import check_cluster

        ctx.settings = ctx.settings.with_overrides(cluster=check_cluster(args.cluster, "--cluster"))


def add_label_flags(parser: argparse.ArgumentParser) -> None:
    """``--collection`` and ``--tag`` (repeatable) on the commands that filter works by
    the collections and tags a reference manager gave them (search, list, export)."""
    parser.add_argument(
        "--collection",
        action="append",
        dest="collections",
        metavar="NAME",
        help="only works in this collection or its subcollections (its path 'A / B' or "
        "its last name, any case); repeat for any of several (default: every collection)",
    )
    parser.add_argument(
        "--tag",
        action="append",
        dest="tags",
        metavar="NAME",
        help="only works with this tag (any case); repeat to require all of them "
        "(default: any tags)",
    )


def log_unmatched_labels(args: argparse.Namespace, ctx: Any) -> None:
    """A note on stderr for each --collection or --tag that no stored label matches (a
    filter that finds nothing is no error; this says why, with close names)."""
    if getattr(args, "collections", None) or getattr(args, "tags", None):
        for note in ctx.library().unmatched_labels(args.collections, args.tags):
            ctx.log(note)
