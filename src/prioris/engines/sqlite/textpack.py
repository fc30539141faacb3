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

from prioris.errors import ConfigurationError

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


def unpack(value: Any) -> Any:
    """The text of a stored value (TEXT as it is, a packed BLOB inflated); None stays None.

    A BLOB of an unknown format is a library written by a newer Prioris: refused with a
    configuration error rather than shown as garbage."""
    if not isinstance(value, bytes | bytearray | memoryview):
        return value
    data = bytes(value)
    if data[:1] == bytes((DEFLATE,)):
        return zlib.decompress(data[1:], -15).decode("utf-8")
    raise ConfigurationError(
        f"passage text stored in a format this Prioris does not know (format byte "
        f"{data[:1].hex() or 'none'}); the library was written by a newer Prioris: upgrade it"
    )


def register(conn: Any) -> None:
    """Make ``prioris_text(value)`` callable in SQL on ``conn`` (the FTS5 content view and
    the title trigger read passage text through it)."""
    conn.create_function("prioris_text", 1, unpack, deterministic=True)
