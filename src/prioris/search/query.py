"""Turning user text into a safe FTS5 expression, and the words to mark in snippets.

Plain text is searched as words: every token is quoted, so quotes, parentheses, ``AND``,
``NEAR``, ``*`` or ``-`` in a user's query never reach the FTS5 parser as syntax.
"""

from __future__ import annotations

import re
from itertools import pairwise

# Word characters less "_": both indexes split at an underscore (FTS5's unicode61 and
# PostgreSQL's parser), so "CRF01_1b2k" is searched as its two words. Kept whole, it was a
# two-token phrase, which PostgreSQL's BM25 postings cannot rank: the query fell back to
# SQL, ~10 s at a million passages (docs/benchmarks.md, section 29).
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

STOPWORDS = frozenset(
    (
        "a an and are as at be been but by can do does for from had has have how in into is it "
        "its of on or our that the their then there these this those to was we were what when "
        "where which while who will with within without"
    ).split()
)


# The query-side stop list of fts mode: the short list above plus the rest of the
# Lucene/Snowball English stop set and a few frequent function words ("also", "may",
# "might", "must"), as measured in bench/fts_variants.py (EXTENDED_STOPWORDS there).
# Dropping them from the query only (the index keeps every word) raised fts nDCG@10 on
# every split of SciFact and NFCorpus, but lost hybrid on SciFact half B, so hybrid keeps
# the short list: docs/benchmarks.md, section 9. The service builds the expression (and
# the snippet's marked words) from the same terms for both backends; PostgreSQL's
# 'english' configuration drops the Snowball stop set again in every mode, a no-op there.
EXTENDED_STOPWORDS = STOPWORDS | frozenset(
    (
        "about above after again against all also am any because before being below between "
        "both could did doing down during each few further having he her here hers herself "
        "him himself his i if itself just may me might more most must my myself no nor not "
        "now off once only other ours ourselves out over own same she should so some such "
        "than theirs them themselves they through too under until up very whom why would you "
        "your yours yourself yourselves"
    ).split()
)


def query_terms(text: str, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Lower-cased word tokens of a query, stopwords dropped unless nothing else is left.

    With a longer list than :data:`STOPWORDS`, a query of nothing but its words falls back
    to the short list's terms first ("what about them" still searches "about" and "them"),
    then to every token ("the")."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    kept = [t for t in tokens if t not in stopwords]
    if not kept and stopwords is not STOPWORDS:
        kept = [t for t in tokens if t not in STOPWORDS]
    return list(dict.fromkeys(kept or tokens))


def quote(term: str) -> str:
    """A term as an FTS5 string (a phrase of its tokens), never syntax."""
    return '"' + term.replace('"', '""') + '"'


def plain_to_fts5(
    text: str, *, bigrams: bool = False, stopwords: frozenset[str] = STOPWORDS
) -> str | None:
    """An OR of quoted terms (BM25 ranks documents matching more and rarer terms higher);
    None when the text has no searchable word. ``bigrams`` adds each pair of adjacent
    query words as a phrase, so passages keeping the query's word pairs together score
    higher (a proximity boost BM25 lacks)."""
    terms = query_terms(text, stopwords)
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
