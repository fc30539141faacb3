"""The examples of README.md and docs/*.md, as the doc-example tests read them.

Code blocks are fenced (```` ```sh ````) or indented by four spaces after a paragraph (the
Markdown rule; a list's indented continuation is not a block). A shell line names its
program after any ``NAME=value`` assignments; lines indented under another continue it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_HERE = ("prioris", "cat", "claude", "sqlite3")  # test_doc_examples; the rest test_doc_commands
OWN_TESTS = {"docs/deploy.md": "tests/test_deploy.py"}
"""Docs whose shell lines a test of their own checks, every program of them (a server's
set-up: docker, systemctl, pg_dump, ...), so :func:`shell_lines` leaves them out."""
SHELL_LANGS = ("", "sh", "bash", "console")
_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass
class Block:
    where: str  # file:line
    lang: str
    lines: list[str]


def blocks(path: Path) -> Iterator[Block]:
    """Fenced and indented code blocks with their language and first line number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    name = path.relative_to(ROOT)
    start, lang, body = None, "", []
    indented: list[str] = []
    indented_start = 0
    previous = ""  # the last non-blank line outside code
    for number, line in enumerate(lines, start=1):
        fence = re.match(r"^```(\w*)", line)
        if start is not None:
            if line.startswith("```"):
                yield Block(f"{name}:{start}", lang, body)
                start = None
            else:
                body.append(line)
            continue
        if indented and (line.startswith(("    ", "\t")) or not line.strip()):
            indented.append(line[4:] if line.startswith("    ") else line[1:])
            continue
        if indented:
            yield Block(f"{name}:{indented_start}", "", [x for x in indented if x.strip()])
            indented = []
        if fence:
            start, lang, body = number + 1, fence.group(1), []
        elif (
            line.startswith(("    ", "\t"))
            and number > 1
            and not lines[number - 2].strip()
            and previous
            and not _LIST_ITEM.match(previous)
            and not previous.startswith((" ", "\t"))
        ):
            indented, indented_start = [line[4:] if line.startswith("    ") else line[1:]], number
        if line.strip():
            previous = line
    if indented:
        yield Block(f"{name}:{indented_start}", "", [x for x in indented if x.strip()])


def commands(block: Block) -> Iterator[tuple[str, str]]:
    """``(where, command)`` for each shell line; indented lines continue the previous one."""
    current: list[str] = []
    first = 0
    for offset, line in enumerate(block.lines):
        if line.startswith((" ", "\t")) and current:
            current.append(line.strip())
            continue
        if current:
            yield f"{block.where.rsplit(':', 1)[0]}:{first}", " ".join(current)
        current, first = (
            ([line.strip()] if line.strip() else []),
            int(block.where.rsplit(":", 1)[1]) + offset,
        )
    if current:
        yield f"{block.where.rsplit(':', 1)[0]}:{first}", " ".join(current)


def split_words(command: str) -> list[str]:
    """A command's words as a POSIX shell splits them, without its comment; ``|`` and
    ``>`` are words of their own."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|>&")
    lexer.commenters = "#"
    lexer.whitespace_split = True
    return list(lexer)


def strip_comment(command: str) -> str:
    return shlex.join(split_words(command))


def split_assignments(items: list[str]) -> tuple[dict[str, str], list[str]]:
    """``NAME=value`` words before the program, and the rest."""
    env: dict[str, str] = {}
    index = 0
    while index < len(items) and _ASSIGNMENT.match(items[index]):
        key, _, value = items[index].partition("=")
        env[key] = value
        index += 1
    return env, items[index:]


def program(command: str | list[str]) -> str:
    """The program a shell line (or its words) runs (``prioris``, ``make``, ``python``,
    ...); a pipeline's last program; ``""`` for a line that is only a comment."""
    items = split_words(command) if isinstance(command, str) else command
    if "|" in items:
        items = items[len(items) - items[::-1].index("|") :]
    _env, rest = split_assignments(items)
    if not rest:
        return ""
    name = Path(rest[0]).name
    return "python" if re.fullmatch(r"python(3(\.\d+)?)?", name) else name


def is_synopsis(command: str) -> bool:
    """``prioris search QUERY [--mode fts|vector|hybrid]``: options listed, not a call."""
    return bool(re.search(r"\[-", command))


def shell_lines() -> list[tuple[str, str]]:
    """Every shell line of every doc (synopses and URIs excluded), in document order;
    the docs of :data:`OWN_TESTS` are left to their own test (:func:`doc_shell_lines`)."""
    found = []
    for path in DOCS:
        if str(path.relative_to(ROOT)) in OWN_TESTS:
            continue
        found += doc_shell_lines(path)
    return found


def doc_shell_lines(path: Path) -> list[tuple[str, str]]:
    """The shell lines of one doc (synopses and URIs excluded), in document order."""
    found = []
    for block in blocks(path):
        if block.lang not in SHELL_LANGS:
            continue
        for where, command in commands(block):
            if is_synopsis(command) or command.startswith("research://"):
                continue
            if program(command):
                found.append((where, command))
    return found


def resource_uris() -> list[tuple[str, str]]:
    """The ``research://`` URIs the docs give as examples (lines of plain blocks)."""
    return [
        (where, line)
        for path in DOCS
        for block in blocks(path)
        if block.lang in SHELL_LANGS
        for where, line in commands(block)
        if line.startswith("research://")
    ]


def inline_commands() -> list[tuple[str, str]]:
    """Inline ``code`` spans that run make, python or a bench/tools script."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for span in re.findall(r"`([^`\n]+)`", text):
            _env, rest = split_assignments(span.split())
            if not rest:
                continue
            script = re.fullmatch(r"(bench|tools)/\w+\.py", rest[0])
            if rest[0] == "make" or script or (program(rest) == "python" and len(rest) > 1):
                found.append((path.name, span))
    return found
