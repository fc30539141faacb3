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


# lines that are not prose: a heading, a table row, an image, an HTML tag
_NOT_PROSE = re.compile(r"[ \t]*(?:#{1,6}\s|\||!\[|<)")
# a list item's marker, left out of the item's sentences
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+")
MIN_WORDS = 4  # fewer words is a label, a caption number or a heading, not a claim


def quotable_sentences(text: str) -> list[Sentence]:
    """The sentences of a passage an agent may quote: prose only, never across a paragraph
    or heading (a heading has no full stop, so the plain splitter would glue it to the
    first sentence under it), without headings, table rows, images or markup lines, and
    without fragments of fewer than :data:`MIN_WORDS` words or mostly not letters
    (equations, numbers of a table flattened into text), nor lines holding an e-mail
    address (a byline, a correspondence note)."""
    out: list[Sentence] = []
    for begin, end in _prose_blocks(text):
        for s in split_sentences(text[begin:end]):
            if _is_prose(s.text):
                out.append(Sentence(begin + s.start, begin + s.end, s.text))
    return out


def _prose_blocks(text: str) -> list[tuple[int, int]]:
    """Spans of paragraphs and list items: blank lines and non-prose lines end a block,
    a list marker starts one (after the marker)."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    position = 0
    for line in text.splitlines(keepends=True):
        line_start, position = position, position + len(line)
        body = line.rstrip("\r\n")
        if not body.strip() or _NOT_PROSE.match(body):
            if start is not None:
                blocks.append((start, line_start))
            start = None
            continue
        marker = _LIST_MARKER.match(body)
        if marker is not None:
            if start is not None:
                blocks.append((start, line_start))
            start = line_start + marker.end()
        elif start is None:
            start = line_start
    if start is not None:
        blocks.append((start, len(text)))
    return blocks


# an e-mail address: a byline or a correspondence line, not a statement of the paper
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


_EDGES = "()[]{}.,;:!?\"'‘’“”"


def _is_prose(text: str) -> bool:
    """Enough words made of letters only: a formula flattened into text ("R̂t −V̂ clip
    ϕ (st)") has tokens but few words, a result ("rose from 71.2% to 74.5%") has both."""
    tokens = text.split()
    if len(tokens) < MIN_WORDS or _EMAIL.search(text):
        return False
    words = sum(1 for t in tokens if len(w := t.strip(_EDGES)) >= 2 and w.isalpha())
    if words < 3 or words < 0.4 * len(tokens):
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters >= 0.5 * len(text.replace(" ", ""))
