"""Passage text stored compressed in the SQLite library, read back as text.

Passage text is the largest thing a SQLite library holds (1.6 GB of a 5.1 GB file at a
million passages, and the rows of ~1.7 KB fill 4 KB pages badly: ``chunks`` took 2.1 GB).
Raw deflate halves it (0.49 of the UTF-8 bytes on the realistic corpus, ~45 us a passage
to pack, ~10 us to read back). A packed value is a BLOB whose first byte names its format;
a TEXT value is stored as it is, so libraries written before packing, short passages
(where deflate saves nothing) and rows written by other tools all read the same way. The
FTS5 index reads its content through a view that calls ``prioris_text()``, registered on
every connection the library opens (:func:`register`).
"""

from __future__ import annotations

import zlib
from typing import Any

from prioris.errors import DamagedLibraryError

DEFLATE = 1  # format byte: raw deflate (no zlib header), no preset dictionary
LEVEL = 6  # level 9 packs no smaller on passages (0.486 both) and is slower
MIN_CHARS = 64  # shorter text is stored as it is: deflate's overhead eats the gain


def pack(text: str) -> str | bytes:
    """The value stored for ``text``: a packed BLOB, or the text itself when packing would
    not make it smaller."""
    if len(text) < MIN_CHARS:
        return text
    raw = text.encode("utf-8")
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    packed = bytes((DEFLATE,)) + packer.compress(raw) + packer.flush()
    return packed if len(packed) < len(raw) else text


MAX_TEXT_BYTES = 16 << 20
"""The most one passage inflates to. Prioris writes passages of a few hundred tokens
(at most one JSONL record, ``PRIORIS_MCP_MAX_RECORD_BYTES``, 4 MiB by default), so a value
that inflates past four times that is damage or a deflate bomb in a handed-over file
(deflate reaches ~1000:1: 16 KB would otherwise become 16 MB, 16 MB 16 GB)."""


class DamagedText(ValueError):
    """A stored value that is not a passage this release can read (the reason is its
    message); :func:`unpack` turns it into an error naming the work."""


def inflate(value: Any) -> Any:
    """The text of a stored value (TEXT as it is, a packed BLOB inflated at most
    :data:`MAX_TEXT_BYTES`); None stays None. Raises :class:`DamagedText` otherwise."""
    if not isinstance(value, bytes | bytearray | memoryview):
        return value
    data = bytes(value)
    if data[:1] != bytes((DEFLATE,)):
        raise DamagedText(
            f"passage text stored in a format this Prioris does not know (format byte "
            f"{data[:1].hex() or 'none'}): the library was written by a newer Prioris "
            "(upgrade it) or damaged"
        )
    inflater = zlib.decompressobj(-15)
    try:
        raw = inflater.decompress(data[1:], MAX_TEXT_BYTES)
        if not inflater.eof:
            raise DamagedText(
                "packed passage text is cut short"
                if not inflater.unconsumed_tail
                else f"packed passage text inflates past {MAX_TEXT_BYTES >> 20} MiB"
            )
        if inflater.unused_data:
            raise DamagedText("packed passage text has bytes after its end")
        return raw.decode("utf-8")
    except zlib.error as exc:
        raise DamagedText(f"packed passage text is damaged ({exc})") from None
    except UnicodeDecodeError:
        raise DamagedText("packed passage text is not UTF-8") from None


def unpack(value: Any, work_id: str | None = None) -> Any:
    """The text of a stored value (TEXT as it is, a packed BLOB inflated); None stays None.

    A BLOB that cannot be read (damaged, a bomb, of an unknown format) is
    :class:`~prioris.errors.DamagedLibraryError` naming ``work_id``, never garbage or a
    zlib traceback: the rest of the library keeps working and the work can be deleted."""
    try:
        return inflate(value)
    except DamagedText as exc:
        raise damaged(work_id, str(exc)) from None


def damaged(work_id: str | None, reason: str) -> DamagedLibraryError:
    """The error a damaged passage of ``work_id`` is reported with (what to do included)."""
    whose = f"work {work_id!r}" if work_id else "a work"
    return DamagedLibraryError(
        f"{whose} cannot be read: {reason}; delete it (prioris delete) and add it again"
    )


def unpack_for_index(value: Any) -> Any:
    """What the FTS5 index is handed for a stored value: its text, or '' when it cannot
    be read, so that deleting the work or changing its title (which hand FTS5 the old
    text through the content view and the title trigger) still works on a damaged
    passage. Reads that show text use :func:`unpack`, which says what is wrong."""
    try:
        return inflate(value)
    except DamagedText:
        return ""


def readable(value: Any) -> int:
    """1 when a stored value reads back as text, else 0 (SQL ``prioris_readable()``)."""
    try:
        inflate(value)
    except DamagedText:
        return 0
    return 1


def register(conn: Any) -> None:
    """Make ``prioris_text(value)`` callable in SQL on ``conn`` (the FTS5 content view and
    the title trigger read passage text through it; a damaged value reads as '', so a
    damaged work can still be deleted or retitled)."""
    conn.create_function("prioris_text", 1, unpack_for_index, deterministic=True)
    conn.create_function("prioris_readable", 1, readable, deterministic=True)
