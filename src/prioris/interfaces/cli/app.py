"""Argument parsing, the one place that turns PriorisError into ``error [code]: message``.

Commands live in sibling modules; each exposes ``register(subparsers)`` and sets
``func(args, ctx) -> int`` on its parser, ``ctx`` being :class:`.context.CliContext`: a
module of its own, which the commands import instead of this one (``completion`` is handed
the parser built here, so no command module imports this one). Data goes to stdout,
progress bars and log messages (stdlib ``logging``, see :mod:`.log`) to stderr. Global
options are accepted before or after the command. Exit codes: 0 success, 1 some item
failed, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prioris.config import Settings, load_settings
from prioris.errors import ConfigurationError, InvalidRequestError, PriorisError
from prioris.interfaces.cli import (
    account_cmds,
    alerts_cmds,
    citation_cmds,
    completion,
    discover_cmds,
    enrich_cmds,
    label_cmds,
    library_cmds,
    migrate_cmds,
    refman_cmds,
    remote_cmds,
    serve_cmds,
    snowball_cmds,
    ui_cmds,
    watch_cmds,
)
from prioris.interfaces.cli.completion import iter_parsers
from prioris.interfaces.cli.context import EXIT_ITEM_FAILED, EXIT_USAGE, CliContext
from prioris.interfaces.cli.log import CliLogging, cli_logging

log = logging.getLogger("prioris.cli")


class _Version(argparse.Action):
    """``--version``: the installed version, read from the package's metadata only when
    asked for (``importlib.metadata`` costs every other command ~20 ms of start-up)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from prioris import __version__

        print(f"{parser.prog} {__version__}")  # on stdout, as argparse's own action
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors share one exit path."""

    words: Sequence[str] = ()  # what this parser was given: where a suggestion comes from

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InvalidRequestError(f"{self.prog}: {message}{_did_you_mean(self, message)}")


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")
_UNRECOGNIZED = re.compile(r"unrecognized arguments: (\S+)")


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every option of a parser and of its commands (an unknown option is reported by
    the top-level parser, whichever command it was given to)."""
    found = set(parser._option_string_actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _option_strings(sub)
    return found


def _command_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser | None:
    """The parser of the command the words given to ``parser`` name (``users add``), or
    None when they name none."""
    current, found = parser, False
    for word in getattr(parser, "words", ()):
        subparsers = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if not subparsers:
            break
        if word in subparsers[0].choices:
            current, found = subparsers[0].choices[word], True
    return current if found else None


def _did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """``; did you mean 'status'?`` for a mistyped command, choice or option.

    An unknown option is matched against the options of the command it was given to (the
    top-level parser reports it, so every command's options would otherwise be candidates):
    ``show --mode`` must not suggest ``--mode``, an option of ``search`` that ``show``
    just refused. The refused word itself is never suggested.
    """
    choice = _INVALID_CHOICE.search(message)
    if choice:
        word, options = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
    else:
        unknown = _UNRECOGNIZED.search(message)
        if not unknown or not unknown.group(1).startswith("-"):
            return ""
        command = _command_parser(parser)
        scope = (
            set(command._option_string_actions) | set(parser._option_string_actions)
            if command is not None
            else _option_strings(parser)
        )
        word, options = unknown.group(1).split("=", 1)[0], sorted(scope)
    # compared without their dashes, which every option shares ("--mode" is no "--db")
    names = {option.lstrip("-"): option for option in options if option != word}
    close = difflib.get_close_matches(word.lstrip("-"), list(names), n=1, cutoff=0.6)
    return f"; did you mean {names[close[0]]!r}?" if close else ""


def _shown_location(settings: Any) -> str:
    """The library named in an error (a URL without its password)."""
    from prioris.library import display_location

    return display_location(settings.db_url or settings.db_path)


def _database_errors() -> tuple[type[Exception], ...]:
    """The database drivers' errors, asked for only when an error reaches ``_run`` (an
    ``except`` clause's expression is evaluated then): ``--version`` and ``--help`` never
    import the library."""
    from prioris.library import database_errors

    return database_errors()


def _command_modules() -> list[Callable[[Any], None]]:
    """Each command group's ``register``, in the order ``prioris --help`` lists them."""
    return [
        library_cmds.register,
        label_cmds.register,
        refman_cmds.register,
        watch_cmds.register,
        remote_cmds.register,
        discover_cmds.register,
        snowball_cmds.register,
        alerts_cmds.register,
        serve_cmds.register,
        enrich_cmds.register,
        ui_cmds.register,
        completion.register,
        migrate_cmds.register,
        citation_cmds.register,
        account_cmds.register,
    ]


def _add_global_options(parser: argparse.ArgumentParser) -> None:
    """Options every command accepts, before or after its name.

    Their defaults are SUPPRESS so that a command's parser, which argparse runs on a fresh
    namespace and then copies over the top-level one, never resets a value given before
    the command."""
    group = parser.add_argument_group("global options")
    group.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="FILE|URL",
        help="library: an SQLite file or a postgresql:// URL (default: "
        "DATA_DIR/library.sqlite; env PRIORIS_MCP_DB)",
    )
    group.add_argument(
        "--data-dir",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="library folder (default: $XDG_DATA_HOME/prioris, else ~/.local/share/prioris; "
        "env PRIORIS_MCP_DATA_DIR)",
    )
    group.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=argparse.SUPPRESS,
        help="more messages on stderr: -v timings and steps, -vv also HTTP requests "
        "(default: summaries only)",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=argparse.SUPPRESS,
        help="only warnings and errors on stderr (default: off)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; every command and option has help text."""
    parser = _Parser(
        prog="prioris",
        description="Prioris: a local knowledge base for research literature.",
        epilog="Global options may also follow the command (prioris status --db FILE). "
        "Settings: CLI options > PRIORIS_MCP_* variables > $XDG_CONFIG_HOME/prioris/"
        "config.toml > defaults (docs/configuration.md).",
    )
    parser.add_argument(
        "--version", action=_Version, nargs=0, default=argparse.SUPPRESS, help="print the version"
    )
    _add_global_options(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="JSON on stdout, for commands that print data (default: readable text)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for register in _command_modules():
        register(sub)
    # the completion command prints the whole tree: it is handed the tree, so completion.py
    # needs nothing of this module
    sub.choices["completion"].set_defaults(command_tree=parser)
    for _path, command in iter_parsers(parser):
        _add_global_options(command)
        for action in command._actions:
            if action.dest == "json":  # given before the command, it must survive
                action.default = argparse.SUPPRESS
                command.set_defaults(json_capable=True)
    return parser


def bash_script() -> str:
    """The bash completion script of the whole command tree (also used by zsh)."""
    return completion.bash_script(build_parser())


def zsh_script() -> str:
    """The zsh completion script of the whole command tree."""
    return completion.zsh_script(build_parser())


def fish_script() -> str:
    """The fish completion script of the whole command tree."""
    return completion.fish_script(build_parser())


def _settings_for(args: argparse.Namespace) -> Settings:
    """Settings from the config file and environment, with the CLI's options on top."""
    settings = load_settings()
    data_dir = getattr(args, "data_dir", None)
    db = getattr(args, "db", None)
    if data_dir or db:  # a NUL or unencodable character: invalid_request, not a traceback
        from prioris.ingest.batch import check_path

        for path in (data_dir, db):
            if path:
                check_path(path)
    if data_dir:
        settings = settings.with_overrides(
            data_dir=data_dir, db_path=data_dir / "library.sqlite", db_url=None
        )
    if db:
        settings = settings.with_library(db)
    return settings


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; never lets a traceback reach the user for an expected failure."""
    argv = list(sys.argv[1:] if argv is None else argv)
    with cli_logging() as logs:
        return _run(argv, logs)


# commands that read or change what a library holds: on a location without one they say
# so (exit 2) instead of showing an empty library and leaving a new file behind, which is
# what a mistyped --data-dir or --db would otherwise do. The others (ingest, import,
# fetch, serve, ui, the provider searches) start a library where none is.
NEEDS_A_LIBRARY = frozenset(
    {"search", "list", "show", "delete", "status", "reindex", "export", "enrich", "edit"}
    | {"evidence", "cite-check"}
    | {"snowball", "graph", "dismiss", "tag"}
)


def _run(argv: list[str], logs: CliLogging) -> int:
    ctx: CliContext | None = None
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 must not crash
        if hasattr(stream, "reconfigure"):  # the printing of its line
            stream.reconfigure(errors="backslashreplace")
    try:
        parser = build_parser()
        for position, arg in enumerate(argv, 1):  # every path and value, checked once here
            if "\x00" in arg:
                raise InvalidRequestError(
                    f"argument {position} holds a NUL byte, which no path or value may contain"
                )
        if not argv:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args = parser.parse_args(argv)
        logs.set_verbosity(-1 if getattr(args, "quiet", False) else getattr(args, "verbose", 0))
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        if getattr(args, "json", False) and not getattr(args, "json_capable", False):
            raise InvalidRequestError(f"prioris {args.command}: has no --json output")
        args.json = getattr(args, "json", False)
        ctx = CliContext(_settings_for(args), may_create=args.command not in NEEDS_A_LIBRARY)
        return int(args.func(args, ctx))
    except SystemExit as exc:  # --help, --version
        return int(exc.code or 0)
    except (InvalidRequestError, ConfigurationError) as exc:
        log.error(f"error [{exc.code}]: {exc.message}")
        return EXIT_USAGE
    except PriorisError as exc:
        log.error(f"error [{exc.code}]: {exc.message}")
        return EXIT_ITEM_FAILED
    except _database_errors() as exc:  # read-only, locked past the timeout, disk full...
        db = _shown_location(ctx.settings) if ctx is not None else "the library file"
        log.error(f"error [configuration_error]: {db}: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        log.error("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    finally:
        if ctx is not None:
            ctx.close()
