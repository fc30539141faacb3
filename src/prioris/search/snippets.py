"""Snippets: the best window of a chunk with the query's words marked ``**like this**``.

Done in Python rather than with FTS5's ``snippet()`` so vector-only hits get one too. A word
is marked when it is a match the way the FTS index sees one: same tokens (letters and
digits; ``_`` and punctuation separate), case and diacritics folded, and the same stem
under the Snowball English stemmer (py-rust-stemmers, which fastembed already ships), so
"retrieval" marks "retrieved" while "c" (from ``C++``) marks "C" but not "code" or
"context". A query term ending in ``*`` (an FTS5 prefix query) marks words it prefixes.
A snippet costs well under a millisecond (the stemmer runs in Rust over a whole chunk).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # FTS5 unicode61 tokens
_HEADING_MARKS = re.compile(r"^#{1,6}\s+", re.MULTILINE)
WINDOW_WORDS = 40


@cache
def _stemmer() -> Any:
    from py_rust_stemmers import SnowballStemmer

    return SnowballStemmer("english")


def _fold(word: str) -> str:
    """Lower case without diacritics, as ``unicode61 remove_diacritics 2`` indexes words."""
    if word.isascii():  # most words of most papers: nothing to decompose
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stems(words: Sequence[str]) -> list[str]:
    """Snowball English stems of folded words."""
    return list(_stemmer().stem_words([_fold(w) for w in words]))


_KNOWN: dict[str, tuple[str, str]] = {}  # word as written -> (folded, stem)
_KNOWN_MAX = 200_000  # ~40 MB at most; cleared when full


def _folded_stems(words: list[str]) -> dict[str, tuple[str, str]]:
    """Folded form and stem of each distinct word, from a process-wide memo: a hundred
    hits of one query share most of their words, and papers share most of their
    vocabulary, so folding and stemming each word once is most of a snippet's cost saved."""
    known = _KNOWN
    table: dict[str, tuple[str, str]] = {}
    missing = []
    for word in set(words):
        found = known.get(word)
        if found is None:
            missing.append(word)
        else:
            table[word] = found
    if missing:
        folded = [_fold(w) for w in missing]
        for word, fold, stem in zip(missing, folded, _stemmer().stem_words(folded), strict=True):
            table[word] = (fold, stem)
        if len(known) + len(missing) > _KNOWN_MAX:
            known.clear()
        known.update((w, table[w]) for w in missing)
    return table


@lru_cache(maxsize=64)
def _matcher(terms: tuple[str, ...]) -> Callable[[list[str]], list[bool]] | None:
    """A function marking which words of a list match one of the query terms."""
    prefixes = tuple(_fold(t[:-1]) for t in terms if t.endswith("*") and len(t) > 1)
    exact = {
        s for s in stems([w for t in terms if not t.endswith("*") for w in _WORD.findall(t)]) if s
    }
    if not prefixes and not exact:
        return None

    def matches(words: list[str]) -> list[bool]:
        table = _folded_stems(words)
        return [
            table[word][1] in exact or (bool(prefixes) and table[word][0].startswith(prefixes))
            for word in words
        ]

    return matches


def make_snippet(text: str, terms: Sequence[str], *, window: int = WINDOW_WORDS) -> str:
    """The ``window``-word stretch with most query-word hits, matches marked in bold."""
    if "#" in text:
        text = _HEADING_MARKS.sub("", text)
    flat = " ".join(text.split())  # str.split's whitespace is regex \s: same result, faster
    words = list(_WORD.finditer(flat))
    if not words:
        return flat[:300]
    matcher = _matcher(tuple(terms))  # one per query: its hits share it
    marked = matcher([m.group(0) for m in words]) if matcher else [False] * len(words)
    hit_words = [i for i, is_hit in enumerate(marked) if is_hit]
    first = 0
    if hit_words:  # the window start that covers the most hits
        best, position = -1, 0
        for i, begin in enumerate(hit_words):
            while position < len(hit_words) and hit_words[position] < begin + window:
                position += 1
            if position - i > best:
                best, first = position - i, begin
        first = max(0, min(first - 3, len(words) - window))
    last = min(len(words), first + window)
    char_start = words[first].start() if first else 0
    char_end = len(flat) if last >= len(words) else words[last].start()
    parts, cursor = [], char_start
    for index in range(first, last):
        if marked[index]:
            match = words[index]
            parts += [flat[cursor : match.start()], f"**{match.group(0)}**"]
            cursor = match.end()
    parts.append(flat[cursor:char_end])
    piece = "".join(parts).rstrip()
    prefix = "… " if char_start > 0 else ""
    suffix = " …" if char_end < len(flat) else ""
    return prefix + piece + suffix
