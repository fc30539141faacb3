"""Split a work's Markdown into passages of about 200-256 model tokens (pure).

Chunks never cross a heading (a new section starts a new chunk once the current one has
some substance) and prefer to end at a page break; consecutive chunks of one section
overlap by a few sentences so a passage cut in two is still found whole. Every chunk is an
exact slice ``markdown[char_start:char_end]`` so offsets can be shown back to the user.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prioris.ingest.sections import (
    chunk_label,
    label_for_path,
    run_in_label,
    statement_label,
)

TARGET_TOKENS = 224
MAX_TOKENS = 256
OVERLAP_TOKENS = 32
MIN_SECTION_TOKENS = 48

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=\S)")
_SPACE = re.compile(r"\s+")
_BLOCK_SPLIT = re.compile(r"\n[ \t]*\n+")

TokenCounter = Callable[[Sequence[str]], list[int]]


_REFERENCE_HEADINGS = re.compile(
    r"^(?:[\dIVX]+\.?\s+)?(?:references(?: and notes)?|bibliography|works cited|"
    r"literature cited|cited literature)$",
    re.IGNORECASE,
)


def is_reference_section(heading_path: str) -> bool:
    """True inside a paper's reference list: its entries repeat the query words of every
    topic they cite, so indexing them would put bibliographies above the papers' text."""
    last = heading_path.rsplit(" > ", 1)[-1].strip().strip("*").strip()
    return bool(_REFERENCE_HEADINGS.match(last))


@dataclass(frozen=True)
class PageSpan:
    """Characters ``start:end`` of the Markdown belong to page ``number``."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Piece:
    """A paragraph, sentence or word run: the unit chunks are built from."""

    start: int
    end: int
    tokens: int
    page: int
    heading: str
    section: int
    is_heading: bool = False
    label: str = "body"  # the part of the paper (prioris.models.SECTIONS)


@dataclass(frozen=True)
class ChunkSpan:
    """A chunk before storage: where it is and what it is about."""

    char_start: int
    char_end: int
    page_start: int
    page_end: int
    heading: str
    token_count: int
    section: str = "body"  # the part of the paper (prioris.models.SECTIONS)


def _blocks(markdown: str, spans: Sequence[PageSpan]) -> list[tuple[int, int, int]]:
    """(start, end, page) for each blank-line separated block, never crossing a page."""
    blocks = []
    for span in spans:
        position = span.start
        for part in [*_BLOCK_SPLIT.split(markdown[span.start : span.end]), ""]:
            index = markdown.find(part, position, span.end) if part else -1
            if not part.strip() or index < 0:
                continue
            lead = len(part) - len(part.lstrip())
            start = index + lead
            end = index + len(part.rstrip())
            blocks.append((start, end, span.number))
            position = index + len(part)
    return blocks


def _split_long(
    markdown: str, start: int, end: int, tokens: int, count: TokenCounter
) -> list[tuple[int, int, int]]:
    """Break a block over MAX_TOKENS into sentences, then word runs."""
    text = markdown[start:end]
    cuts = [0] + [m.start() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    parts = [(start + a, start + b) for a, b in itertools.pairwise(cuts) if b > a]
    sizes = count([markdown[a:b] for a, b in parts])
    out: list[tuple[int, int, int]] = []
    for (a, b), size in zip(parts, sizes, strict=True):
        # trim the whitespace the sentence split left at the front
        while a < b and markdown[a].isspace():
            a += 1
        if size <= MAX_TOKENS:
            out.append((a, b, size))
            continue
        words = [(m.start() + a, m.end() + a) for m in re.finditer(r"\S+", markdown[a:b])]
        per_token = max(size / max(len(words), 1), 1e-6)
        step = max(1, int(TARGET_TOKENS / per_token))
        for i in range(0, len(words), step):
            group = words[i : i + step]
            out.append((group[0][0], group[-1][1], int(len(group) * per_token) + 1))
    return out


def make_pieces(markdown: str, spans: Sequence[PageSpan], count: TokenCounter) -> list[Piece]:
    """Blocks with their heading path, section label and token counts; oversized blocks
    broken down.

    The label is the heading path's (:func:`prioris.ingest.sections.label_for_path`); a
    block opening with a run-in label (``Funding This work ...``) starts that section
    until the next heading, a thanks or funding paragraph without one (``We thank ...``)
    is labelled alone, and an unnamed heading after the reference list starts an
    appendix (``A Implementation details``)."""
    blocks = _blocks(markdown, spans)
    sizes = count([markdown[a:b] for a, b, _ in blocks]) if blocks else []
    pieces: list[Piece] = []
    path: list[tuple[int, str]] = []
    section = 0
    label = "body"
    after_references = False
    for (start, end, page), tokens in zip(blocks, sizes, strict=True):
        first_line = markdown[start:end].split("\n", 1)[0]
        match = _HEADING.match(first_line)
        if match and "\n" not in markdown[start:end].strip():
            level = len(match.group(1))
            path = [(lvl, title) for lvl, title in path if lvl < level] + [
                (level, _SPACE.sub(" ", match.group(2)))
            ]
            section += 1
            heading = " > ".join(title for _, title in path)
            label = label_for_path(heading)
            if label == "body" and after_references:
                label = "appendix"
            after_references = after_references or label == "references"
            pieces.append(
                Piece(start, end, tokens, page, heading, section, is_heading=True, label=label)
            )
            continue
        heading = " > ".join(title for _, title in path)
        run_in = run_in_label(markdown[start:end])
        if run_in is not None and run_in != label:
            section += 1  # a new section without a heading: chunks break here too
            label = run_in
            after_references = after_references or label == "references"
        # a thanks or funding paragraph without a label is labelled alone
        own = (statement_label(markdown[start:end]) if label == "body" else None) or label
        if tokens <= MAX_TOKENS:
            pieces.append(Piece(start, end, tokens, page, heading, section, label=own))
        else:
            for a, b, size in _split_long(markdown, start, end, tokens, count):
                pieces.append(Piece(a, b, size, page, heading, section, label=own))
    return pieces


def chunk_markdown(
    markdown: str, spans: Sequence[PageSpan], count: TokenCounter
) -> list[ChunkSpan]:
    """Group pieces into chunks of ~TARGET_TOKENS (never over MAX_TOKENS) with overlap."""
    pieces = make_pieces(markdown, spans, count)
    chunks: list[ChunkSpan] = []
    current: list[Piece] = []

    def size(items: list[Piece]) -> int:
        return sum(p.tokens for p in items)

    def emit() -> None:
        body = [p for p in current if not p.is_heading]
        if not body:
            return
        last_heading = next((p for p in reversed(current) if p.is_heading), None)
        heading = body[-1].heading if last_heading is None else last_heading.heading
        chunks.append(
            ChunkSpan(
                char_start=current[0].start,
                char_end=current[-1].end,
                page_start=current[0].page,
                page_end=current[-1].page,
                heading=heading or body[0].heading,
                token_count=size(current),
                section=chunk_label(body[-1].label, markdown[current[0].start : current[-1].end]),
            )
        )

    for piece in pieces:
        if current:
            new_section = piece.section != current[-1].section
            total = size(current)
            page_break = piece.page != current[-1].page and total >= TARGET_TOKENS // 2
            too_big = total + piece.tokens > MAX_TOKENS
            # a reference list always stands alone (its label must not spill over)
            hard = is_reference_section(piece.heading) or is_reference_section(current[-1].heading)
            # nor does a passage mix two parts of the paper (body and acknowledgements)
            relabel = piece.label != current[-1].label and any(not p.is_heading for p in current)
            section_break = (
                new_section and piece.is_heading and (total >= MIN_SECTION_TOKENS or hard)
            ) or relabel
            if too_big or page_break or section_break:
                emit()
                carry: list[Piece] = []
                if not (section_break or piece.is_heading):
                    for prev in reversed(current):
                        if prev.is_heading or size(carry) + prev.tokens > OVERLAP_TOKENS:
                            break
                        carry.insert(0, prev)
                    if size(carry) + piece.tokens > MAX_TOKENS:
                        carry = []
                current = carry
        current.append(piece)
    emit()
    if not chunks and pieces:  # only headings (a title-only record): still searchable
        chunks.append(
            ChunkSpan(
                pieces[0].start,
                pieces[-1].end,
                pieces[0].page,
                pieces[-1].page,
                pieces[-1].heading,
                sum(p.tokens for p in pieces),
                pieces[-1].label,
            )
        )
    return chunks
