"""JabRef's metadata in a .bib file: the folders its file links are relative to, and its
group tree.

JabRef keeps both in ``@Comment{jabref-meta: ...}`` blocks rather than in the entries: the
``fileDirectory`` settings say where relative ``file`` links point, and the ``grouping``
tree gives each group its path (``Thesis / Chapter 2``), which an entry's ``groups`` field
only names. Separate because it reads the file's comments, not its entries, and only for
JabRef's sake.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from bibtexparser.model import Block, ExplicitComment

from prioris.refman import fields as F

# the value is taken by slicing, not by a lazy group before trailing spaces, which
# backtracks over every space for each character (square time on a long comment)
_JABREF_DIRECTORY = re.compile(r"^\s*jabref-meta:\s*fileDirectory(?:Latex)?(?:-[^:]*)?:")
_JABREF_GROUP = re.compile(r"^(\d+) [A-Za-z]*Group:(.*)$")


def _jabref_unescape(text: str) -> str:
    return re.sub(r"\\([\\;:])", r"\1", text)


def jabref_meta(blocks: Sequence[Block], base: Path) -> tuple[list[Path], dict[str, str]]:
    """JabRef's file directories (where its relative links point, when set) and the path of
    each group in its group tree (``"Thesis / Chapter 2"`` for ``Chapter 2``), from the
    ``@Comment{jabref-meta: ...}`` blocks. A group name used twice in the tree keeps its
    plain name (which of the two an entry means is unknown)."""
    directories: list[Path] = []
    paths: dict[str, str] = {}
    repeated: set[str] = set()
    for block in blocks:
        if not isinstance(block, ExplicitComment):
            continue
        comment = str(block.comment)
        match = _JABREF_DIRECTORY.match(comment)
        if match:
            value = comment[match.end() :].rstrip()
            value = value[:-1] if value.endswith(";") else value
            folder = _jabref_unescape(value.strip())
            if folder:
                directories.append(base / folder)  # an absolute folder stays absolute
            continue
        if not re.match(r"^\s*jabref-meta:\s*grouping:", comment):
            continue
        stack: list[str] = []
        for line in comment.split("\n")[1:]:
            group = _JABREF_GROUP.match(line.strip())
            if not group:
                continue
            level = int(group.group(1))
            name = F.clean_line(_jabref_unescape(re.split(r"(?<!\\)\\;", group.group(2))[0]))
            if level == 0 or not name:
                continue
            stack = [*stack[: level - 1], name]
            if name in paths:
                repeated.add(name)
            paths[name] = " / ".join(stack)
    return directories, {k: v for k, v in paths.items() if k not in repeated}
