"""FTS5 expressions as PostgreSQL ``tsquery`` text, so both backends take the same syntax.

The search service builds FTS5 expressions (plain queries become ``"a" OR "b"``; the
``fts5`` syntax passes the user's expression). PostgreSQL gets the same meaning:

- a quoted string is a phrase (``"heart attack"`` -> ``'heart' <-> 'attack'``);
- ``word*`` is a prefix (``'word':*``);
- ``AND``, ``OR``, ``NOT`` and juxtaposition (an implicit AND) keep FTS5's precedence
  (NOT > AND > OR is tsquery's ``!`` > ``&`` > ``|``), parentheses group;
- ``NEAR(...)``, column filters (``title:``) and ``^`` have no tsquery equivalent here and
  are an invalid_request naming them, as a malformed expression is.

Lexemes are passed quoted to ``to_tsquery('english', prioris_fold(…))``, which folds
diacritics as the indexed text was folded (migration postgres 0005, FTS5's
``remove_diacritics 2`` on SQLite) and stems them as it was stemmed (English Snowball
there, Porter in FTS5).
"""

from __future__ import annotations

import re

from prioris.errors import InvalidRequestError

_TOKEN = re.compile(r'\s*(?:("(?:[^"]|"")*")|(\()|(\))|([^\s"()*:^+]+)(\*)?|(.))', re.UNICODE)
_WORD = re.compile(r"\w+", re.UNICODE)
_OPERATORS = {"AND": "&", "OR": "|", "NOT": "& !"}


def _lexeme(word: str, prefix: bool = False) -> str:
    return "'" + word.replace("'", "''").replace("\\", "\\\\") + "'" + (":*" if prefix else "")


def to_tsquery_text(expression: str) -> str | None:
    """The tsquery text of an FTS5 expression; None when it holds no word at all."""
    out: list[str] = []
    previous = "start"  # start, operand, operator, open
    depth = 0
    position = 0
    text = expression.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            break
        position = match.end()
        phrase, open_, close, word, star, other = match.groups()
        if other is not None:
            if other.strip() == "":
                continue
            if other == '"':
                raise InvalidRequestError(
                    f"malformed FTS5 query {expression!r}: unterminated string"
                )
            raise InvalidRequestError(
                f"malformed FTS5 query {expression!r}: {other!r} is not supported on PostgreSQL"
            )
        starts_operand = open_ or phrase is not None or (word and word not in _OPERATORS)
        if starts_operand and previous == "operand":
            out.append("&")  # juxtaposition is AND in FTS5
        if open_:
            out.append("(")
            depth += 1
            previous = "open"
        elif close:
            depth -= 1
            if depth < 0 or previous in ("operator", "open"):
                raise InvalidRequestError(f"malformed FTS5 query {expression!r}: unbalanced ')'")
            out.append(")")
            previous = "operand"
        elif phrase is not None:
            words = _WORD.findall(phrase[1:-1].replace('""', '"'))
            if not words:
                out.append("''")  # matches nothing, as an empty FTS5 phrase
            else:
                out.append("(" + " <-> ".join(_lexeme(w) for w in words) + ")")
            previous = "operand"
        elif word in _OPERATORS:
            if previous != "operand":
                raise InvalidRequestError(
                    f"malformed FTS5 query {expression!r}: {word} needs something before it"
                )
            out.append(_OPERATORS[word])
            previous = "operator"
        elif word is not None:
            if word.upper() == "NEAR" and text[position : position + 1] == "(":
                raise InvalidRequestError(
                    f"malformed FTS5 query {expression!r}: NEAR() is not supported on PostgreSQL"
                )
            if text[position : position + 1] == ":":
                raise InvalidRequestError(
                    f"malformed FTS5 query {expression!r}: column filters are not supported on "
                    "PostgreSQL"
                )
            words = _WORD.findall(word)
            if not words:
                raise InvalidRequestError(f"malformed FTS5 query {expression!r}: {word!r}")
            if len(words) == 1:
                out.append(_lexeme(words[0], bool(star)))
            else:  # "e-mail", "covid-19": one FTS5 token sequence, a phrase here
                out.append("(" + " <-> ".join(_lexeme(w) for w in words) + ")")
            previous = "operand"
    if depth != 0:
        raise InvalidRequestError(f"malformed FTS5 query {expression!r}: unbalanced '('")
    if previous in ("operator", "open"):
        raise InvalidRequestError(f"malformed FTS5 query {expression!r}: ends with an operator")
    if not out:
        return None
    return " ".join(out)
