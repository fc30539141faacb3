"""What a page will cost MuPDF, counted from its content streams before MuPDF runs them.

A PDF under the size cap can still hold a page whose text extraction takes minutes and
gigabytes: three million positioned text runs compress to 7.5 MB. :func:`page_cost` counts
the operators a page would execute (its content streams and, recursively, the Form
XObjects they draw, each counted as often as it is drawn) with a tokenizer that skips
strings, names, comments and inline image data, and stops as soon as a limit is passed,
so refusing a bomb costs a fraction of a second. The count is an upper-bound estimate,
not a PDF interpreter: the time and memory limits of the parser process
(:mod:`prioris.ingest.pdf.process`) stay the backstop for whatever it misjudges.

Runs in the parser process (:mod:`prioris.ingest.pdf.worker`): pymupdf and the standard
library only.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

import pymupdf

# One alternative per token kind. Numbers, brackets and whitespace (most of the bytes of a
# drawing) are eaten possessively by the leading class, and any other byte matches on its
# own, so every position is consumed once: the scan is linear even on junk.
_TOKEN = re.compile(
    rb"""
    [0-9.+\-\s\[\]{}]*+
    (?:
      (?P<s>\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\))  # literal string, one nesting level
    | <<|>>                                                 # dictionary delimiters
    | <[0-9A-Fa-f\s]*>                                      # hex string
    | %[^\r\n]*                                             # comment
    | (?P<n>/[^\s()<>\[\]{}/%]*)                            # name
    | (?P<o>[A-Za-z'"][A-Za-z0-9*'"]*)                      # operator (or true/false/null)
    | .                                                     # a stray byte
    | \Z
    )
    """,
    re.S | re.X,
)
TEXT_SHOW = frozenset((b"Tj", b"TJ", b"'", b'"'))
PAINT = frozenset((b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"S", b"s", b"sh", b"Do", b"BI"))
_NOT_OPERATORS = frozenset((b"true", b"false", b"null"))
MAX_FORM_DEPTH = 32  # deeper nesting is not drawn by MuPDF either
CHUNK_BYTES = 1 << 20  # decompressed content is counted this much at a time
MAX_CARRY_BYTES = 16 << 20  # a token longer than this (a giant string) is cut


@dataclass
class PageCost:
    """Counted work of one page: operators, text-showing operators, painting operators."""

    operations: int = 0
    text_runs: int = 0
    paints: int = 0

    def add(self, other: PageCost, times: int = 1) -> None:
        self.operations += other.operations * times
        self.text_runs += other.text_runs * times
        self.paints += other.paints * times


class PageLimitError(Exception):
    """A page needs more work than a limit allows; ``setting`` names the variable."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class PageLimits:
    """Per-page bounds (``PRIORIS_MCP_PDF_MAX_PAGE_*``)."""

    operations: int = 1_000_000
    text_runs: int = 100_000
    chars: int = 200_000


def stream_cost(
    chunks: Iterator[bytes] | bytes,
    limits: PageLimits,
    forms: dict[bytes, PageCost] | None = None,
) -> PageCost:
    """Count the operators of one content stream; a ``Do`` of a known form adds its cost.

    ``chunks`` is the decompressed stream, whole or in pieces (cut anywhere: a piece is
    counted up to its last line break, else whitespace, and the rest carried into the
    next; a string cut in two may count a few words as operators, an overestimate). Stops
    reading once a limit is passed (the result is then already over it).
    """
    cost = PageCost()
    last_name = b""
    carry: list[bytes] = []  # pieces of a line not yet counted
    carried = 0
    pieces = iter([chunks]) if isinstance(chunks, bytes) else chunks
    for piece in _with_end(pieces):
        if piece is None:
            data = b"".join(carry)
        else:
            cut = piece.rfind(b"\n")  # between operators; a string rarely holds a newline
            if cut < 0 and carried + len(piece) < MAX_CARRY_BYTES:
                carry.append(piece)
                carried += len(piece)
                continue
            if cut < 0:  # a giant line: cut at a space, an overestimate at worst
                cut = max(piece.rfind(b" "), piece.rfind(b"\r"))
                cut = len(piece) - 1 if cut < 0 else cut
            data = b"".join([*carry, piece[: cut + 1]])
            carry, carried = [piece[cut + 1 :]], len(piece) - cut - 1
        skip_until = 0  # the binary data of an inline image
        for match in _TOKEN.finditer(data):
            kind = match.lastgroup
            if kind == "n":
                last_name = match.group("n")[1:]
                continue
            if kind != "o" or match.start("o") < skip_until:
                continue
            op = match.group("o")
            if op in _NOT_OPERATORS:
                continue
            if op == b"BI":
                skip_until = _inline_image_end(data, match.end(), skip_until)
            cost.operations += 1
            if op in TEXT_SHOW:
                cost.text_runs += 1
                cost.paints += 1
            elif op in PAINT:
                cost.paints += 1
                if op == b"Do" and forms and last_name in forms:
                    cost.add(forms[last_name])
        if cost.operations > limits.operations or cost.text_runs > limits.text_runs:
            break
    return cost


def _inline_image_end(data: bytes, start: int, previous: int) -> int:
    """Where the data of the inline image begun at ``start`` ends (its ``EI``): a ``BI``
    with no ``ID`` after it skips nothing, so repeated junk ``BI`` stays linear."""
    begin = data.find(b"ID", max(start, previous))
    if begin < 0:
        return previous
    end = data.find(b"EI", begin + 3)
    return len(data) if end < 0 else end


def _with_end(pieces: Iterator[bytes]) -> Iterator[bytes | None]:
    yield from pieces
    yield None


def stream_chunks(doc: pymupdf.Document, xref: int) -> Iterator[bytes]:
    """A stream's decoded bytes in pieces: Flate is inflated a megabyte at a time, so a
    compression bomb is refused by its count long before it is all in memory; other
    filters are decoded whole by MuPDF (the parser process's memory limit bounds them)."""
    kind, value = doc.xref_get_key(xref, "Filter")
    params = doc.xref_get_key(xref, "DecodeParms")[0]
    if not (kind == "name" and value == "/FlateDecode" and params == "null"):
        yield doc.xref_stream(xref) or b""
        return
    raw = doc.xref_stream_raw(xref) or b""
    inflater = zlib.decompressobj()
    pending = raw
    try:
        while pending:
            piece = inflater.decompress(pending, CHUNK_BYTES)
            pending = inflater.unconsumed_tail
            if piece:
                yield piece
            if inflater.eof:
                return
        tail = inflater.flush()
        if tail:
            yield tail
    except zlib.error:  # a broken stream: let MuPDF decode what it can
        yield doc.xref_stream(xref) or b""


def page_cost(doc: pymupdf.Document, page: pymupdf.Page, limits: PageLimits) -> PageCost:
    """The page's cost, Form XObjects included as often as they are drawn.

    Raises :class:`PageLimitError` naming the limit when the page is over one.
    """
    by_invoker: dict[int, dict[bytes, int]] = {}
    for xref, name, invoker, _bbox in page.get_xobjects():  # images too: skip them
        if doc.xref_get_key(xref, "Subtype") == ("name", "/Form"):
            by_invoker.setdefault(invoker, {})[name.encode("latin-1", "replace")] = xref
    memo: dict[int, PageCost] = {}

    def form_costs(invoker: int, depth: int, trail: frozenset[int]) -> dict[bytes, PageCost]:
        costs: dict[bytes, PageCost] = {}
        for name, xref in by_invoker.get(invoker, {}).items():
            if xref in trail or depth >= MAX_FORM_DEPTH:
                continue  # a cycle or absurd nesting: MuPDF refuses to draw it
            if xref not in memo:
                nested = form_costs(xref, depth + 1, trail | {xref})
                memo[xref] = stream_cost(stream_chunks(doc, xref), limits, nested)
            costs[name] = memo[xref]
        return costs

    total = PageCost()
    page_forms = form_costs(0, 0, frozenset())
    for xref in page.get_contents():
        total.add(stream_cost(stream_chunks(doc, xref), limits, page_forms))
        _check(total, limits, page.number)
    _check(total, limits, page.number)
    return total


def _check(cost: PageCost, limits: PageLimits, index: int | None) -> None:
    where = f"page {(index or 0) + 1}"
    if cost.text_runs > limits.text_runs:
        raise PageLimitError(
            f"{where} draws more than {limits.text_runs} text runs "
            "(PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS); the PDF was refused unparsed"
        )
    if cost.operations > limits.operations:
        raise PageLimitError(
            f"{where} has more than {limits.operations} drawing and text operations "
            "(PRIORIS_MCP_PDF_MAX_PAGE_OPERATIONS); the PDF was refused unparsed"
        )
