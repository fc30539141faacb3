"""Every provider response is bounded while it streams, after decoding (gzip bombs).

The bomb is built without ever holding its decoded form: after a full flush deflate
restarts from an empty window, so one compressed 1 MiB block of spaces can be repeated
1,024 times to make a ~1 MB gzip stream that decodes to 1 GiB.
"""

from __future__ import annotations

import gzip
import struct
import tracemalloc
import zlib
from collections.abc import Iterator

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import FileTooLargeError, ProviderUnavailableError
from prioris.sources.http import ProviderHttp, make_client
from prioris.sources.remote import RemoteSources

from conftest import FAKE_PROVIDER_ENV

MIB = 1024 * 1024
# a real Atom start, so only the size can be what refuses it
FEED_HEAD = b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>'


def gzip_bomb(decoded_mib: int, head: bytes = FEED_HEAD) -> tuple[bytes, int]:
    """(gzip bytes, decoded size): ``head`` then ``decoded_mib`` MiB of spaces."""
    block = b" " * MIB
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH)
    piece = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    again = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert again == piece  # the window was reset: every block compresses alike
    end = deflate.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(decoded_mib):
        crc = zlib.crc32(block, crc)
    size = len(head) + decoded_mib * MIB
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    body = start + piece * decoded_mib + end
    return header + body + struct.pack("<II", crc, size & 0xFFFFFFFF), size


def streamed(data: bytes, chunk: int = 64 * 1024) -> Iterator[bytes]:
    for offset in range(0, len(data), chunk):
        yield data[offset : offset + chunk]


@pytest.fixture(scope="module")
def bomb() -> tuple[bytes, int]:
    return gzip_bomb(1024)


def test_the_bomb_is_what_it_claims() -> None:
    wire, size = gzip_bomb(3)
    assert gzip.decompress(wire) == FEED_HEAD + b" " * (3 * MIB)
    assert size == len(FEED_HEAD) + 3 * MIB


def test_gzip_atom_bomb_is_refused_with_bounded_memory(bomb: tuple[bytes, int]) -> None:
    """~1 MB on the wire, 1 GiB decoded: refused once 8 MiB are decoded, never held whole."""
    wire, size = bomb
    assert len(wire) < 2 * MIB and size > 1000 * MIB
    sent: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        def body() -> Iterator[bytes]:
            for part in streamed(wire):
                sent.append(len(part))
                yield part

        return httpx.Response(
            200,
            headers={"Content-Type": "application/atom+xml", "Content-Encoding": "gzip"},
            content=body(),
        )

    env = {**FAKE_PROVIDER_ENV, "PRIORIS_MCP_MAX_RESPONSE_BYTES": str(8 * MIB)}
    sources = RemoteSources(load_settings(env), transport=httpx.MockTransport(handler))
    tracemalloc.start()
    try:
        with pytest.raises(ProviderUnavailableError) as info:
            sources.arxiv.search("diffusion")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        sources.close()
    assert info.value.code == "provider_unavailable"
    assert "PRIORIS_MCP_MAX_RESPONSE_BYTES" in info.value.message
    assert peak < 40 * MIB, f"peak {peak / MIB:.0f} MiB while refusing the bomb"
    assert sum(sent) <= 2 * 64 * 1024  # reading stopped at once: the rest was never pulled


def test_default_response_cap_applies_to_json(bomb: tuple[bytes, int]) -> None:
    """JSON providers are capped too (default from the settings, provider_unavailable)."""
    wire, _ = gzip_bomb(40, head=b'{"results": ["')
    settings = load_settings(FAKE_PROVIDER_ENV)
    assert settings.max_response_bytes == 32 * MIB
    http = ProviderHttp(
        "openalex",
        make_client(
            settings,
            httpx.MockTransport(
                lambda r: httpx.Response(
                    200, headers={"Content-Encoding": "gzip"}, content=streamed(wire)
                )
            ),
        ),
        min_interval=0,
        backoff_budget=0,
        max_response_bytes=settings.max_response_bytes,
    )
    with pytest.raises(ProviderUnavailableError, match="exceeds the limit of 33554432 bytes"):
        http.get_json("https://openalex.test/works")


def test_plain_body_over_the_cap_and_declared_length() -> None:
    pulled: list[int] = []

    def body() -> Iterator[bytes]:
        for _ in range(100):
            pulled.append(1)
            yield b"x" * 1024

    http = ProviderHttp(
        "europepmc",
        make_client(
            load_settings(), httpx.MockTransport(lambda r: httpx.Response(200, content=body()))
        ),
        min_interval=0,
        backoff_budget=0,
        max_response_bytes=10 * 1024,
    )
    with pytest.raises(ProviderUnavailableError, match="exceeds the limit of 10240 bytes"):
        http.get("https://epmc.test/search")
    assert len(pulled) <= 12
    declared = ProviderHttp(
        "europepmc",
        make_client(
            load_settings(),
            httpx.MockTransport(
                lambda r: httpx.Response(200, headers={"Content-Length": "999999"}, content=b"")
            ),
        ),
        min_interval=0,
        backoff_budget=0,
        max_response_bytes=10 * 1024,
    )
    with pytest.raises(ProviderUnavailableError, match="999999 bytes"):
        declared.get("https://epmc.test/search")


def test_error_bodies_are_bounded_too(bomb: tuple[bytes, int]) -> None:
    """A 500 or 404 with a bomb body must not be decoded whole for its message."""
    wire, _ = bomb

    def handler(request: httpx.Request) -> httpx.Response:
        status = 500 if request.url.path == "/boom" else 400
        return httpx.Response(status, headers={"Content-Encoding": "gzip"}, content=streamed(wire))

    http = ProviderHttp(
        "arxiv",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    tracemalloc.start()
    try:
        with pytest.raises(ProviderUnavailableError, match="HTTP 500"):
            http.get("https://a.test/boom")
        with pytest.raises(Exception, match="HTTP 400") as info:
            http.get("https://a.test/bad")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.code == "invalid_request"  # type: ignore[attr-defined]
    assert peak < 20 * MIB


def test_documents_have_their_own_cap_and_file_too_large() -> None:
    """JATS full text over PRIORIS_MCP_MAX_MARKUP_BYTES: file_too_large, per document."""
    jats = b"<article><body><p>" + b"word " * 5000 + b"</p></body></article>"

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/fullTextXML"):
            return httpx.Response(
                200, content=streamed(gzip.compress(jats)), headers={"Content-Encoding": "gzip"}
            )
        if request.url.path.startswith("/html/"):
            return httpx.Response(
                200,
                content=b"<html><p>" + b"w " * 20000 + b"</p></html>",
                headers={"Content-Type": "text/html"},
            )
        return httpx.Response(404)

    env = {**FAKE_PROVIDER_ENV, "PRIORIS_MCP_MAX_MARKUP_BYTES": "10000"}
    sources = RemoteSources(load_settings(env), transport=httpx.MockTransport(handler))
    with pytest.raises(FileTooLargeError, match="PRIORIS_MCP_MAX_MARKUP_BYTES"):
        sources.europepmc.fetch_full_text("PMC123")
    with pytest.raises(FileTooLargeError, match="PRIORIS_MCP_MAX_MARKUP_BYTES"):
        sources.arxiv.fetch_html("2401.01234v1")
    sources.close()
    roomy = RemoteSources(load_settings(FAKE_PROVIDER_ENV), transport=httpx.MockTransport(handler))
    assert "word word" in (roomy.europepmc.fetch_full_text("PMC123").markdown or "")
    roomy.close()


def test_undecodable_or_unknown_encoding_is_provider_unavailable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        encoding = "br" if request.url.path == "/br" else "gzip"
        return httpx.Response(
            200, headers={"Content-Encoding": encoding}, content=streamed(b"not gzip")
        )

    http = ProviderHttp(
        "arxiv",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    with pytest.raises(ProviderUnavailableError, match="could not decode"):
        http.get("https://a.test/gz")
    with pytest.raises(ProviderUnavailableError, match="Content-Encoding"):
        http.get("https://a.test/br")


def test_accept_encoding_names_only_what_is_decoded_under_the_cap() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"{}")

    make_client(load_settings(), httpx.MockTransport(handler)).get("https://a.test/")
    assert seen[0].headers["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS, 16 + zlib.MAX_WBITS])
def test_deflate_gzip_and_multi_member_bodies_decode(wbits: int) -> None:
    payload = b'{"hello": "' + b"a" * 300_000 + b'"}'
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    wire = packer.compress(payload) + packer.flush()
    encoding = "gzip" if wbits > zlib.MAX_WBITS else "deflate"
    if encoding == "gzip":  # two members, as some servers concatenate them
        wire = gzip.compress(payload[:1000]) + gzip.compress(payload[1000:])
    http = ProviderHttp(
        "openalex",
        make_client(
            load_settings(),
            httpx.MockTransport(
                lambda r: httpx.Response(
                    200, headers={"Content-Encoding": encoding}, content=streamed(wire, 777)
                )
            ),
        ),
        min_interval=0,
        backoff_budget=0,
    )
    assert http.get_json("https://a.test/") == {"hello": "a" * 300_000}
