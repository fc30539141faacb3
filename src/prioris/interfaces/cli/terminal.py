"""Text for a terminal: the control characters anyone's text may carry, made visible.

Titles, authors, venues, snippets and Markdown come from providers' JSON, shared JSONL
files and PDF text layers, that is from anyone. Printed as they are, an ESC sequence can
clear the screen or hide text, OSC 0 retitle the window, OSC 52 write the clipboard in
several terminals, BEL ring, and C1 codes act as ESC on some. So every line of text
output goes through :func:`terminal_safe` (the CLI's ``print_line``, its log lines, and the
non-JSON exports): C0 controls other than tab and newline, DEL and C1 become their
visible ``\\x1b`` spelling, and the bidirectional overrides and isolates (U+202A-U+202E,
U+2066-U+2069, which can make a line read other than it is) their ``\\u202e`` one. JSON
output is left exact: JSON escapes control characters itself.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character that could drive a terminal spelled out."""
    return _UNSAFE.sub(_visible, text) if _UNSAFE.search(text) else text
