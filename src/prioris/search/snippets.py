"""Snippets: the best window of a chunk with the query's words marked ``**like this**``.

Done in Python rather than with FTS5's ``snippet()`` so vector-only hits get one too, and
matching is by word prefix so "embed" marks "embeddings" as BM25's stemmer would match it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
WINDOW_WORDS = 40


def _stem(term: str) -> str:
    """Crude prefix stem: enough to mark inflections BM25's porter stemmer matched."""
    term = term.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s"):
        if len(term) - len(suffix) >= 4 and term.endswith(suffix):
            return term[: -len(suffix)]
    return term


def make_snippet(text: str, terms: Sequence[str], *, window: int = WINDOW_WORDS) -> str:
    """The ``window``-word stretch with most query-word hits, matches marked in bold."""
    flat = re.sub(r"^#{1,6}\s+", "", text, flags=re.MULTILINE)
    flat = re.sub(r"\s+", " ", flat).strip()
    words = list(_WORD.finditer(flat))
    stems = [_stem(t) for t in terms if t]
    if not words:
        return flat[:300]

    def is_hit(word: str) -> bool:
        low = word.lower()
        return any(low.startswith(s) for s in stems)

    hits = [is_hit(m.group(0)) for m in words]
    best_start, best_count = 0, -1
    running = sum(hits[:window])
    for start in range(0, max(1, len(words) - window + 1)):
        if start:
            running += (hits[start + window - 1] if start + window - 1 < len(hits) else 0) - hits[
                start - 1
            ]
        if running > best_count:
            best_start, best_count = start, running
    end_index = min(len(words), best_start + window) - 1
    char_start = words[best_start].start() if best_start else 0
    char_end = words[end_index].end() if end_index < len(words) - 1 else len(flat)
    piece = flat[char_start:char_end]
    out: list[str] = []
    position = 0
    for match in _WORD.finditer(piece):
        if is_hit(match.group(0)):
            out.append(piece[position : match.start()])
            out.append(f"**{match.group(0)}**")
            position = match.end()
    out.append(piece[position:])
    prefix = "… " if char_start > 0 else ""
    suffix = " …" if char_end < len(flat) else ""
    return prefix + "".join(out) + suffix
