"""Turning user text into a safe FTS5 expression, and the words to mark in snippets.

Plain text is searched as words: every token is quoted, so quotes, parentheses, ``AND``,
``NEAR``, ``*`` or ``-`` in a user's query never reach the FTS5 parser as syntax.
"""

from __future__ import annotations

import re
from itertools import pairwise

_TOKEN = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    (
        "a an and are as at be been but by can do does for from had has have how in into is it "
        "its of on or our that the their then there these this those to was we were what when "
        "where which while who will with within without"
    ).split()
)


def query_terms(text: str) -> list[str]:
    """Lower-cased word tokens of a query, stopwords dropped unless nothing else is left."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    kept = [t for t in tokens if t not in STOPWORDS]
    return list(dict.fromkeys(kept or tokens))


def quote(term: str) -> str:
    """A term as an FTS5 string (a phrase of its tokens), never syntax."""
    return '"' + term.replace('"', '""') + '"'


def plain_to_fts5(text: str, *, bigrams: bool = False) -> str | None:
    """An OR of quoted terms (BM25 ranks documents matching more and rarer terms higher);
    None when the text has no searchable word. ``bigrams`` adds each pair of adjacent
    query words as a phrase, so passages keeping the query's word pairs together score
    higher (a proximity boost BM25 lacks)."""
    terms = query_terms(text)
    if not terms:
        return None
    parts = [quote(t) for t in terms]
    if bigrams:
        parts += [quote(f"{a} {b}") for a, b in adjacent_pairs(text)]
    return " OR ".join(parts)


def adjacent_pairs(text: str) -> list[tuple[str, str]]:
    """Pairs of neighbouring non-stopword words of the text, in order, without repeats."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    pairs = [(a, b) for a, b in pairwise(tokens) if a not in STOPWORDS and b not in STOPWORDS]
    return list(dict.fromkeys(pairs))


_FTS5_WORD = re.compile(r"\w+\"?\*?", re.UNICODE)


def fts5_expression_terms(expression: str) -> list[str]:
    """Words of a raw FTS5 expression, for snippet marking (operators dropped); a prefix
    query keeps its ``*`` (``embed*``) so the snippet marks the words it matched."""
    words = []
    for token in _FTS5_WORD.findall(expression):
        word = token.replace('"', "")
        if word.rstrip("*") not in ("AND", "OR", "NOT", "NEAR"):
            words.append(word)
    prefixes = [w.lower() for w in words if w.endswith("*") and len(w) > 1]
    return list(dict.fromkeys([*query_terms(" ".join(words)), *prefixes]))
