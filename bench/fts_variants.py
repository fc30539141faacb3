"""FTS variants measured without a migration: other stemmers and stop-word lists.

The product's FTS5 table tokenizes with ``porter unicode61 remove_diacritics 2``. Another
stemmer (Snowball English through py-rust-stemmers, as fastembed's BM25 uses) cannot be
plugged into FTS5 from Python, so the variant is built the way a migration would have to:
the text is tokenized like ``unicode61`` and stemmed in Python, stored in a side table
``bench_fts_<name>`` (in the benchmark's own library file) with a plain ``unicode61``
tokenizer, and the query's terms go through the same stemmer. A ``porter-control`` table
(same Python tokenization, FTS5's porter) checks that the pre-tokenization alone changes
nothing. The side tables are built once and reused.

Stop-word variants only change the query, so they run against the product's own table.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from prioris.search.protocols import ChunkScore

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_PHRASE = re.compile(r'"((?:[^"]|"")*)"')

# a common English list (the Lucene/Snowball stop set plus frequent function words),
# measured against the product's short list
EXTENDED_STOPWORDS = frozenset(
    (
        "a about above after again against all am an and any are as at be because been before "
        "being below between both but by can could did do does doing down during each few for "
        "from further had has have having he her here hers herself him himself his how i if in "
        "into is it its itself just me more most my myself no nor not now of off on once only "
        "or other our ours ourselves out over own same she should so some such than that the "
        "their theirs them themselves then there these they this those through to too under "
        "until up very was we were what when where which while who whom why will with within "
        "without would you your yours yourself yourselves may might must also"
    ).split()
)


def fold(text: str) -> str:
    """Lower case without diacritics, as ``unicode61 remove_diacritics 2`` sees it."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def snowball() -> Callable[[list[str]], list[str]]:
    from py_rust_stemmers import SnowballStemmer

    stemmer = SnowballStemmer("english")
    return lambda words: list(stemmer.stem_words(words))


def identity(words: list[str]) -> list[str]:
    return words


VARIANTS: dict[str, tuple[str, Callable[[], Callable[[list[str]], list[str]]]]] = {
    # name: (FTS5 tokenizer of the side table, factory of the Python stemmer)
    "porter-control": ("porter unicode61 remove_diacritics 2", lambda: identity),
    "snowball": ("unicode61 remove_diacritics 2", snowball),
    "unstemmed": ("unicode61 remove_diacritics 2", lambda: identity),
}


def ensure_table(conn: Any, name: str) -> str:
    """Create and fill ``bench_fts_<name>`` from the chunks once; returns the table name."""
    table = "bench_fts_" + name.replace("-", "_")
    tokenizer, factory = VARIANTS[name]
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    if exists:
        return table
    stem = factory()
    rows = conn.execute(
        "SELECT c.id, c.text, w.title, coalesce(c.heading, '') FROM chunks c "
        "JOIN works w ON w.id = c.work_id"
    ).fetchall()
    conn.execute("BEGIN")
    conn.execute(
        f"CREATE VIRTUAL TABLE {table} USING fts5(text, title, heading, tokenize = '{tokenizer}')"
    )
    conn.executemany(
        f"INSERT INTO {table}(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
        [
            (
                r[0],
                " ".join(stem(tokens(r[1]))),
                " ".join(stem(tokens(r[2]))),
                " ".join(stem(tokens(r[3]))),
            )
            for r in rows
        ],
    )
    conn.execute("COMMIT")
    return table


def rewrite_expression(expression: str, stem: Callable[[list[str]], list[str]]) -> str:
    """Each quoted phrase of a plain-syntax expression, tokenized and stemmed."""

    def one(match: re.Match[str]) -> str:
        words = stem(tokens(match.group(1).replace('""', '"')))
        return '"' + " ".join(words).replace('"', '""') + '"'

    return _PHRASE.sub(one, expression)


def drop_stopwords(expression: str, stopwords: frozenset[str]) -> str:
    """The expression without the phrases that are a single stop word (never empty)."""
    phrases = [m.group(0) for m in _PHRASE.finditer(expression)]
    kept = [p for p in phrases if p.strip('"').lower() not in stopwords]
    return " OR ".join(kept or phrases)


def variant_fts(
    conn: Any, table: str, expression: str, limit: int, **weights: float
) -> list[ChunkScore]:
    """The product's unfiltered FTS query (``backends.fts_search``) against a side table."""
    title_weight = weights.get("title_weight", 1.0)
    heading_weight = weights.get("heading_weight", 0.5)
    rows = conn.execute(
        f"SELECT rowid, bm25({table}, 1.0, ?, ?) AS score FROM {table} "
        f"WHERE {table} MATCH ? ORDER BY score LIMIT ?",
        (title_weight, heading_weight, expression, limit),
    ).fetchall()
    if not rows:
        return []
    marks = ", ".join("?" for _ in rows)
    owners = dict(
        conn.execute(f"SELECT id, work_id FROM chunks WHERE id IN ({marks})", [r[0] for r in rows])
    )
    return [ChunkScore(int(r[0]), str(owners[r[0]]), -float(r[1])) for r in rows if r[0] in owners]


def prefixed(expression: str, min_letters: int) -> str:
    """Each single-word phrase of at least ``min_letters`` letters as a prefix query
    (``"word" *``): inflections porter does not conflate match too."""

    def one(match: re.Match[str]) -> str:
        word = match.group(1)
        return (
            f"{match.group(0)} *"
            if " " not in word and len(word) >= min_letters
            else match.group(0)
        )

    return _PHRASE.sub(one, expression)
