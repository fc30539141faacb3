"""Sentences of scientific text, as character spans of the text they come from.

A quote must be a verbatim span of the stored text, so a sentence is its ``start`` and
``end`` offsets, never a re-spaced copy. A full stop ends a sentence only when the next
word could begin one and the stop does not belong to an abbreviation ("et al.", "Fig.",
"e.g.", "vs."), an initial ("J. Smith"), a decimal ("0.05") or a number list ("3.2.1");
citations in brackets after the stop ("... shown [12, 13]. Next") stay with their sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# words whose full stop does not end a sentence (compared without case and the stop)
ABBREVIATIONS = frozenset(
    """al e.g i.e cf vs etc fig figs eq eqs ref refs sec secs tab no nos vol pp p approx
    ca dr prof mr mrs ms st jr sr inc ltd co corp dept univ resp suppl et seq viz
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)
# a candidate end: . ! or ? (with closing quotes/brackets), then a citation in brackets
_END = re.compile(r"[.!?]+[\"')\]]*(?:\s*\[[\d,;\s\u2013-]+\])?(?=\s+|$)")
_NEXT_STARTS = re.compile(r"\s+[\"'(\[]?[A-Z0-9\u00c0-\u024f\u0370-\u03ff]")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


@dataclass(frozen=True)
class Sentence:
    """One sentence: ``text[start:end]`` of the text it was split from."""

    start: int
    end: int
    text: str


def _ends_sentence(text: str, stop: int, after: int) -> bool:
    """Whether the punctuation at ``text[stop]`` (its run ending at ``after``) ends one."""
    if text[stop] in "!?":
        return True
    word = _WORD_BEFORE.search(text, 0, stop)
    if word is not None:
        token = word.group(1)
        if token.lower().rstrip(".") in ABBREVIATIONS:
            return False
        if len(token) == 1 and token.isupper():  # an initial: "J. Smith"
            return False
    if after >= len(text):
        return True
    return _NEXT_STARTS.match(text, after) is not None


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` in order, each trimmed of surrounding white space."""
    sentences: list[Sentence] = []
    begin = 0
    for found in _END.finditer(text):
        stop = found.start()
        if not _ends_sentence(text, stop, found.end()):
            continue
        _append(sentences, text, begin, found.end())
        begin = found.end()
    _append(sentences, text, begin, len(text))
    return sentences


def _append(sentences: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        sentences.append(Sentence(start, end, text[start:end]))
