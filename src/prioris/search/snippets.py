"""Snippets: the best window of a chunk with the query's words marked ``**like this**``.

Done in Python rather than with FTS5's ``snippet()`` so vector-only hits get one too, and
matching is by word prefix so "embed" marks "embeddings" as BM25's stemmer would match it.
One regular expression finds every hit, so a snippet costs well under a millisecond.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
_HEADING_MARKS = re.compile(r"^#{1,6}\s+", re.MULTILINE)
_SPACES = re.compile(r"\s+")
WINDOW_WORDS = 40


def _stem(term: str) -> str:
    """Crude prefix stem: enough to mark inflections BM25's porter stemmer matched."""
    term = term.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s"):
        if len(term) - len(suffix) >= 4 and term.endswith(suffix):
            return term[: -len(suffix)]
    return term


def _hit_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    stems = sorted({_stem(t) for t in terms if t}, key=len, reverse=True)
    if not stems:
        return None
    return re.compile(r"\b(?:" + "|".join(map(re.escape, stems)) + r")\w*", re.IGNORECASE)


def make_snippet(text: str, terms: Sequence[str], *, window: int = WINDOW_WORDS) -> str:
    """The ``window``-word stretch with most query-word hits, matches marked in bold."""
    flat = _SPACES.sub(" ", _HEADING_MARKS.sub("", text)).strip()
    starts = [m.start() for m in _WORD.finditer(flat)]
    if not starts:
        return flat[:300]
    pattern = _hit_pattern(terms)
    hits = [m.start() for m in pattern.finditer(flat)] if pattern else []
    hit_words = [bisect_left(starts, h) for h in hits]
    first = 0
    if hit_words:  # the window start that covers the most hits
        best = -1
        for i, begin in enumerate(hit_words):
            covered = bisect_left(hit_words, begin + window) - i
            if covered > best:
                best, first = covered, begin
        first = max(0, min(first - 3, len(starts) - window))
    last = min(len(starts), first + window)
    char_start = starts[first] if first else 0
    char_end = len(flat) if last >= len(starts) else starts[last]
    piece = flat[char_start:char_end].rstrip()
    if pattern:
        piece = pattern.sub(lambda m: f"**{m.group(0)}**", piece)
    prefix = "… " if char_start > 0 else ""
    suffix = " …" if char_end < len(flat) else ""
    return prefix + piece + suffix
