"""Helpers for the MCP tests: a Library with fakes at the edges, an in-process client, PDFs."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp.types import CallToolResult

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ERROR_CODES
from prioris.interfaces.mcp_server import build_server
from prioris.library import Library

from pdf_factory import make_scanned_pdf, make_text_pdf

TOPICS = [
    (
        "Protein folding with attention",
        [
            "Protein structure prediction uses attention over residue pairs. Folding accuracy "
            "improves when multiple sequence alignments are embedded.",
            "We evaluate contact maps and tertiary structure on benchmark proteins.",
        ],
    ),
    (
        "Coral reef bleaching",
        [
            "Ocean warming causes coral bleaching; symbiotic algae leave the coral tissue.",
            "Reef recovery depends on water temperature and larval supply.",
        ],
    ),
]


class FakeOcr:
    """Answers every page with a fixed text after an optional delay."""

    def __init__(self, text: str = "scanned glacier moraine sediment", delay: float = 0.0):
        self.text = text
        self.delay = delay

    def ocr_page(self, image_png: bytes) -> str:
        if self.delay:
            time.sleep(self.delay)
        return self.text


def make_library(transport: httpx.BaseTransport | None = None, ocr: Any = None) -> Library:
    """A Library on the per-test data dir with the fake embedder and OCR."""
    return Library(
        load_settings(), embedder=FakeEmbedder(), ocr=ocr or FakeOcr(), http_transport=transport
    )


def pdf_bytes(tmp_path: Path, title: str, pages: list[str]) -> bytes:
    path = make_text_pdf(tmp_path / f"{abs(hash(title))}.pdf", title, pages)
    return path.read_bytes()


def scanned_pdf_bytes(tmp_path: Path) -> bytes:
    return make_scanned_pdf(tmp_path / "scan.pdf", "Glacier moraine").read_bytes()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def with_client(
    library: Library, body: Callable[[Client], Awaitable[Any]], **server_options: Any
) -> Any:
    """Run ``body`` against an in-process server over ``library``; bounded by a timeout."""
    server = build_server(lambda: library, **server_options)

    async def main() -> Any:
        with anyio.fail_after(60):
            async with Client(server) as client:
                return await body(client)

    try:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the usual case: no loop in this thread
            return anyio.run(main)
        # pytest-playwright's session keeps an event loop running in the main thread once
        # a browser test has run: the client then runs in a thread of its own
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(anyio.run, main).result()
    finally:
        server.prioris_state.close()


def data(result: CallToolResult) -> dict[str, Any]:
    """Structured content of a successful call (fails the test on a tool error)."""
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None
    return result.structured_content


def error(result: CallToolResult) -> str:
    """Text of a tool error; it must start with a Prioris error code."""
    assert result.is_error, f"expected an error, got {result.structured_content}"
    text = result.content[0].text
    code = text.split(":", 1)[0]
    assert code in ERROR_CODES, text
    assert "Traceback" not in text
    carried = (result.meta or {}).get("prioris/error")
    if carried is not None:  # PriorisErrors also carry the pair in _meta
        assert carried["code"] == code and text == f"{code}: {carried['message']}"
    return text


def text_of(resource: Any) -> str:
    return resource.contents[0].text


def as_json(resource: Any) -> Any:
    return json.loads(text_of(resource))
