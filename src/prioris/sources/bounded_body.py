"""Read an HTTP body under a cap on its *decoded* size, never decoding more than a step ahead.

httpx decodes ``Content-Encoding`` one network chunk at a time but without a bound on
what one chunk expands to: a 64 KiB piece of a gzip bomb becomes 64 MiB at once, and
``response.read()`` keeps going to the end (a 1 MB reply decoding to 1 GB took 2 GB of
memory). Here the raw bytes are inflated with ``max_length`` so each step yields at most
:data:`STEP` bytes, and reading stops as soon as the running total passes the limit; the
rest of the body is never pulled from the network.

Only ``gzip`` (also multi-member and ``x-gzip``), ``deflate`` (zlib-wrapped or raw) and
``identity`` are decoded, which is exactly what :func:`prioris.sources.http.make_client`
advertises in ``Accept-Encoding``; anything else is refused rather than passed on encoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

STEP = 64 * 1024
"""Most bytes one decoding step may produce."""
ACCEPT_ENCODING = "gzip, deflate"
"""What the client advertises: the encodings :class:`BoundedDecoder` can bound."""


class BodyTooLarge(Exception):
    """The decoded body passed the limit (``seen`` bytes decoded when reading stopped)."""

    def __init__(self, seen: int) -> None:
        super().__init__(seen)
        self.seen = seen


class UndecodableBody(Exception):
    """The body is not valid for its ``Content-Encoding``, or the encoding is unknown."""


class _Inflater:
    """One gzip or deflate layer, inflating at most :data:`STEP` bytes per step."""

    def __init__(self, encoding: str) -> None:
        self.gzip = encoding in ("gzip", "x-gzip")
        self._raw_fallback = not self.gzip  # deflate: zlib-wrapped first, then raw
        self._fresh = True
        self._member = 0  # gzip members seen before this one
        self._done = False
        self._inflater = self._new()

    def _new(self) -> zlib._Decompress:
        return zlib.decompressobj(16 + zlib.MAX_WBITS if self.gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data and not self._done:
            try:
                yield from self._drain(data)
            except zlib.error as exc:
                if self._raw_fallback and self._fresh:  # servers that send raw deflate
                    self._raw_fallback = False
                    self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                if self._member and self._fresh:  # padding after the last member
                    self._done = True
                    return
                raise UndecodableBody(str(exc)) from exc
            self._fresh = False
            data = b""
            if self.gzip and self._inflater.eof and self._inflater.unused_data:
                data = self._inflater.unused_data  # another gzip member follows
                self._inflater = self._new()
                self._member += 1
                self._fresh = True

    def _drain(self, data: bytes) -> Iterator[bytes]:
        pending = data
        while True:
            out = self._inflater.decompress(pending, STEP)
            if out:
                self._fresh = False
                yield out
            pending = self._inflater.unconsumed_tail
            if not pending and len(out) < STEP:
                return

    def flush(self) -> Iterator[bytes]:
        if self._done:
            return
        try:
            yield from self._drain(b"")
        except zlib.error as exc:
            raise UndecodableBody(str(exc)) from exc


def _layers(content_encoding: str) -> list[_Inflater]:
    """Decoders in the order to apply them (the reverse of how the server encoded)."""
    names = [n.strip().lower() for n in content_encoding.split(",") if n.strip()]
    layers: list[_Inflater] = []
    for name in reversed(names):
        if name == "identity":
            continue
        if name not in ("gzip", "x-gzip", "deflate"):
            raise UndecodableBody(f"unsupported Content-Encoding {name!r}")
        layers.append(_Inflater(name))
    return layers


def _through(layer: _Inflater, pieces: Iterable[bytes]) -> Iterator[bytes]:
    for piece in pieces:
        yield from layer.feed(piece)
    yield from layer.flush()


def decoded_chunks(raw: Iterable[bytes], content_encoding: str) -> Iterator[bytes]:
    """The decoded body, lazily, in pieces of at most :data:`STEP` bytes per layer step."""
    pieces: Iterable[bytes] = raw
    for layer in _layers(content_encoding):
        pieces = _through(layer, pieces)
    yield from pieces


def read_bounded(raw: Iterable[bytes], content_encoding: str, limit: int) -> bytes:
    """The whole decoded body; :class:`BodyTooLarge` as soon as it passes ``limit`` bytes."""
    body = bytearray()
    for piece in decoded_chunks(raw, content_encoding):
        if len(body) + len(piece) > limit:
            raise BodyTooLarge(len(body) + len(piece))
        body.extend(piece)
    return bytes(body)


def read_prefix(raw: Iterable[bytes], content_encoding: str, limit: int) -> bytes:
    """At most ``limit`` decoded bytes (the rest is dropped); for error messages."""
    body = bytearray()
    try:
        for piece in decoded_chunks(raw, content_encoding):
            body.extend(piece[: limit - len(body)])
            if len(body) >= limit:
                break
    except UndecodableBody:
        pass  # an error body we cannot decode just gives no detail
    return bytes(body)
