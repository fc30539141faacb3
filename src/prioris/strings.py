"""Text that SQLite and UTF-8 can hold.

Python strings may carry lone surrogates: from ``\\ud800`` escapes in JSON (a JSONL record,
an MCP argument) or from file names and arguments that are not valid UTF-8 (Python maps
their bytes to ``\\udc80``-``\\udcff``). SQLite cannot bind them (UnicodeEncodeError), so
every string from outside that may reach the database passes through
:func:`without_surrogates` first.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)
