"""A .bib file split into blocks by bibtexparser, and an entry's field values as written.

bibtexparser splits the file; where it raises on odd input instead of skipping a block,
the file is split again one ``@`` block at a time so only that block fails
(:func:`parse_blocks`). A malformed block becomes a RefError naming its key when one can
be found. An entry's fields are then taken as written (``@string`` names replaced, ``#``
joined, a repeated field's values joined where that is how tools write them), also for the
entries bibtexparser hands back without running its middlewares. Separate from the entry
conversion: this is everything that depends on bibtexparser's block model and its quirks.
"""

from __future__ import annotations

import logging
import re

import bibtexparser
from bibtexparser.middlewares.enclosing import REMOVED_ENCLOSING_KEY
from bibtexparser.model import Block, Entry, ParsingFailedBlock

from prioris.refman import fields as F
from prioris.refman.items import RefError

# the splitter logs each malformed block it skips; each is a RefError here instead
logging.getLogger("bibtexparser").setLevel(logging.ERROR)

_JOINED = {
    "annote": "\n\n",
    "comment": "\n\n",
    "note": " ",
    "keywords": ", ",
    "mendeley-tags": ", ",
    "groups": ", ",
    "mendeley-groups": ", ",
    "file": ";",
}
_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()=]+)\s*,")


def parse_blocks(text: str) -> list[tuple[Block, int]]:
    """The file's blocks with a line offset each (0, or the chunk's start).

    bibtexparser re-raises an unexpected error instead of skipping the block; then the
    file is parsed again one ``@`` block at a time, so only that block fails.
    """
    try:
        library = bibtexparser.parse_string(text)
    except Exception:  # a parser bug on odd input: fall back to chunks
        return _chunked(text)
    return [(block, 0) for block in library.blocks]


def _chunked(text: str) -> list[tuple[Block, int]]:
    """Each ``@`` block parsed alone; one that still breaks the parser is a failed block."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("@")] or [0]
    if starts[0] != 0:
        starts.insert(0, 0)
    out: list[tuple[Block, int]] = []
    for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        chunk = "\n".join(lines[begin:end])
        try:
            library = bibtexparser.parse_string(chunk)
        except Exception as exc:
            if chunk.strip():
                failed = ParsingFailedBlock(error=exc, start_line=0, raw=chunk)
                out.append((failed, begin))
            continue
        out.extend((block, begin) for block in library.blocks)
    return out


def reason(exc: BaseException) -> str:
    """Why bibtexparser failed, as one short line."""
    reason = getattr(exc, "abort_reason", None) or str(exc) or type(exc).__name__
    return F.clean_line(reason)[:300]


def failed_error(block: ParsingFailedBlock, line: int | None) -> RefError:
    """The RefError of a block bibtexparser could not read, with its key when found."""
    match = _KEY_IN_RAW.search(block.raw or "")
    key = F.clean_key(match.group(1)) if match else ""
    return RefError(key, f"malformed BibTeX entry: {reason(block.error)}", line)


def _concat(value: str, strings: dict[str, str]) -> str:
    """A ``"a" # name # {b}`` value joined, ``@string`` names replaced."""
    out: list[str] = []
    for piece in _split_top(value, "#"):
        piece = piece.strip()
        if len(piece) >= 2 and (piece[0], piece[-1]) in (("{", "}"), ('"', '"')):
            out.append(piece[1:-1])
        else:
            out.append(strings.get(piece.lower(), piece))
    return "".join(out)


def _split_top(value: str, sep: str) -> list[str]:
    """``value`` split on ``sep`` outside braces and quotes."""
    parts, depth, quoted, current = [], 0, False, []
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == sep and depth == 0 and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _unenclosed(value: str, strings: dict[str, str]) -> str:
    """A raw field value as bibtexparser's middlewares leave it: braces or quotes around it
    removed, ``@string`` names replaced, ``#`` joined. For an entry with a repeated field,
    which bibtexparser hands back without running its middlewares on it."""
    text = value.strip()
    pieces = _split_top(text, "#")
    if len(pieces) > 1:
        return _concat(text, strings)
    if len(text) >= 2 and (text[0], text[-1]) in (("{", "}"), ('"', '"')):
        return text[1:-1]
    return strings.get(text.lower(), text)


def entry_fields(entry: Entry, strings: dict[str, str], *, raw: bool) -> dict[str, str]:
    """The entry's fields by lower-case name (repeats: see :mod:`prioris.refman.bibtex`);
    ``raw``: the entry is one bibtexparser's middlewares did not run on."""
    removed = entry.parser_metadata.get(REMOVED_ENCLOSING_KEY) or {}
    out: dict[str, str] = {}
    for field in entry.fields:
        name = str(field.key).strip().lower()
        value = field.value if isinstance(field.value, str) else str(field.value)
        if raw:
            value = _unenclosed(value, strings)
        elif "#" in value and removed.get(field.key, "no-enclosing") == "no-enclosing":
            value = _concat(value, strings)
        if name in out:
            if name in _JOINED and value.strip():
                out[name] = f"{out[name]}{_JOINED[name]}{value}" if out[name].strip() else value
            continue
        out[name] = value
    return out
