"""A .bib file's entries read one by one into items, and the errors of those that fail.

The file is split into blocks (:mod:`.blocks`), what the whole file says about every entry
(``@string`` values, JabRef's metadata: :mod:`.jabref`) gathered, and each entry turned
into a RefItem (:mod:`.entry`) on its own: a malformed entry, one that fails to convert,
or a second entry with a citation key already seen is a RefError with its line, and the
entries around it are read. Separate from the entry conversion so that what fails where
(and the line reported) is decided in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ParsingFailedBlock,
    String,
)

from prioris.refman import fields as F
from prioris.refman.bibtex.blocks import failed_error, parse_blocks, reason
from prioris.refman.bibtex.entry import Context, build_item
from prioris.refman.bibtex.jabref import jabref_meta
from prioris.refman.items import RefError, RefItem


def read_bibtex(path: Path, *, roots: Sequence[Path] = ()) -> tuple[list[RefItem], list[RefError]]:
    """The entries of the .bib file at ``path`` as items, and those that could not be read.

    File links are resolved against the file's folder, then re-rooted under it and under
    ``roots`` (:mod:`prioris.refman.filelinks`). A missing file is NotFoundError, a
    folder, a binary or an unreadable file InvalidRequestError; never anything but a
    PriorisError.
    """
    text, encoding = F.read_text(path, kind="BibTeX")
    return parse_bibtex(text, base=path.absolute().parent, roots=roots, encoding=encoding)


def parse_bibtex(
    text: str, *, base: Path, roots: Sequence[Path] = (), encoding: str = "utf-8"
) -> tuple[list[RefItem], list[RefError]]:
    """:func:`read_bibtex` of text already read (``base``: the folder links are under)."""
    items: list[RefItem] = []
    errors: list[RefError] = []
    seen: dict[str, int | None] = {}
    blocks = parse_blocks(text)
    strings = {
        F.clean_line(b.key).lower(): str(b.value) for b, _ in blocks if isinstance(b, String)
    }
    directories, group_paths = jabref_meta([b for b, _ in blocks], base)
    context = Context(strings, base, (*directories, *roots), group_paths, encoding)
    for block, offset in blocks:
        line = block.start_line + 1 + offset if block.start_line is not None else None
        # bibtexparser hands these back without its middlewares run on them
        raw = isinstance(block, DuplicateFieldKeyBlock | DuplicateBlockKeyBlock)
        if raw:
            inner = block.ignore_error_block
            if not isinstance(inner, Entry):
                continue
            block = inner
        if isinstance(block, ParsingFailedBlock):
            errors.append(failed_error(block, line))
            continue
        if not isinstance(block, Entry):
            continue
        try:
            item = build_item(block, context, raw=raw, line=line)
        except Exception as exc:  # one entry fails alone, whatever went wrong
            key = F.clean_key(block.key)
            errors.append(RefError(key, f"cannot read this entry: {reason(exc)}", line))
            continue
        if item.key in seen:
            first = seen[item.key]
            where = f" at line {first}" if first is not None else ""
            errors.append(
                RefError(
                    item.key,
                    f"duplicate citation key {item.key!r}: the first entry{where} is kept",
                    line,
                )
            )
            continue
        seen[item.key] = line
        items.append(item)
    return items, errors
