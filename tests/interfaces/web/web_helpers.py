"""What the web tests share: the app served for real on loopback, a loopback stand-in for
the providers (inline responses shaped like the recorded ones), and a library builder."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pymupdf

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.web.app import bind, build_app
from prioris.library import Library

ARXIV_ID = "2401.01234"
ATOM = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"><opensearch:totalResults>1'
    "</opensearch:totalResults><entry><id>http://arxiv.org/abs/2401.01234v2</id>"
    "<title>Denoising diffusion for protein backbones</title>"
    "<published>2024-01-02T00:00:00Z</published>"
    "<summary>We generate protein backbones with denoising diffusion.</summary>"
    "<author><name>Ada Lovelace</name></author><author><name>Alan Turing</name></author>"
    "<arxiv:doi>10.5555/diffprot</arxiv:doi></entry></feed>"
)
EMPTY_ATOM = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
    "<opensearch:totalResults>0</opensearch:totalResults></feed>"
)
OA_PDF = "https://pdfs.example.org/w13.pdf"
SEMANTIC_HITS: list[dict[str, Any]] = [
    {
        "id": "https://openalex.org/W11",
        "doi": "https://doi.org/10.5555/diffprot",
        "title": "Denoising diffusion for protein backbones",
        "publication_year": 2024,
        "relevance_score": 0.93,
        "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
        "ids": {"openalex": "https://openalex.org/W11", "doi": "https://doi.org/10.5555/diffprot"},
    },
    {
        "id": "https://openalex.org/W12",
        "doi": "https://doi.org/10.48550/arxiv.2305.00012",
        "title": "Equivariant graph networks for molecules",
        "publication_year": 2023,
        "relevance_score": 0.81,
        "authorships": [{"author": {"display_name": "Grace Hopper"}}],
        "abstract_inverted_index": {"Graphs": [0], "of": [1], "atoms.": [2]},
    },
    {
        "id": "https://openalex.org/W13",
        "doi": "https://doi.org/10.1000/oa-only",
        "title": "Open access folding benchmarks",
        "publication_year": 2022,
        "relevance_score": 0.7,
        "open_access": {"is_oa": True, "oa_status": "gold"},
        "locations": [
            {
                "is_oa": True,
                "version": "publishedVersion",
                "landing_page_url": "https://journal.example.org/w13",
                "pdf_url": OA_PDF,
            }
        ],
    },
    {
        "id": "https://openalex.org/W14",
        "doi": "https://doi.org/10.1000/closed",
        "title": "A closed paper about protein design",
        "publication_year": 2021,
        "relevance_score": 0.6,
    },
]
SECOND_ATOM = (
    ATOM.replace("2401.01234v2", "2305.00012v1")
    .replace(
        "Denoising diffusion for protein backbones", "Equivariant graph networks for molecules"
    )
    .replace("10.5555/diffprot", "10.48550/arXiv.2305.00012")
)


def text_pdf_bytes(title: str, pages: list[str]) -> bytes:
    """A born-digital PDF: the title on page 1, then one body per page."""
    doc = pymupdf.open()
    for number, body in enumerate(pages):
        page = doc.new_page(width=595, height=842)
        y = 72
        if number == 0:
            page.insert_textbox(
                pymupdf.Rect(72, y, 523, y + 50), title, fontsize=18, fontname="hebo"
            )
            y += 60
        page.insert_textbox(pymupdf.Rect(72, y, 523, 770), body, fontsize=11)
    doc.set_metadata({"title": title, "author": "Test Author"})
    data = doc.tobytes()
    doc.close()
    return data


class ProviderStub:
    """arXiv and OpenAlex on 127.0.0.1, answering with inline responses; logs every path."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.pdfs = {
            ARXIV_ID: text_pdf_bytes(
                "Denoising diffusion for protein backbones",
                ["Denoising diffusion generates protein backbones step by step. " * 20],
            ),
            "2305.00012": text_pdf_bytes(
                "Equivariant graph networks for molecules",
                ["Equivariant message passing over molecular graphs of atoms. " * 20],
            ),
        }
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                stub.requests.append(self.path)
                status, body, kind = stub.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, path: str) -> tuple[int, bytes, str]:
        parts = urlsplit(path)
        query = parse_qs(parts.query)
        if parts.path == "/arxiv/api/query":
            ids = ",".join(query.get("id_list", []))
            if ids.startswith(ARXIV_ID):
                return 200, ATOM.encode(), "application/atom+xml"
            if ids.startswith("2305.00012"):
                return 200, SECOND_ATOM.encode(), "application/atom+xml"
            return 200, EMPTY_ATOM.encode(), "application/atom+xml"
        if parts.path.startswith("/arxiv/pdf/"):
            key = parts.path.rsplit("/", 1)[1].split("v")[0]
            if key in self.pdfs:
                return 200, self.pdfs[key], "application/pdf"
        if parts.path.startswith("/arxiv/html/"):
            return 404, b"no html", "text/plain"
        if parts.path == "/openalex/works" and "search.semantic" in query:
            body = {"meta": {"count": len(SEMANTIC_HITS), "page": 1}, "results": SEMANTIC_HITS}
            return 200, json.dumps(body).encode(), "application/json"
        return 404, b"not here", "text/plain"

    def env(self, *, api_key: bool = True) -> dict[str, str]:
        env = {
            "PRIORIS_MCP_ARXIV_API_URL": f"{self.url}/arxiv/api/query",
            "PRIORIS_MCP_ARXIV_SITE_URL": f"{self.url}/arxiv",
            "PRIORIS_MCP_EUROPEPMC_BASE_URL": f"{self.url}/europepmc",
            "PRIORIS_MCP_OPENALEX_BASE_URL": f"{self.url}/openalex",
            "PRIORIS_MCP_DOI_RESOLVER_URL": f"{self.url}/doi",
        }
        if api_key:
            env["PRIORIS_MCP_OPENALEX_API_KEY"] = "test-key"
        return env

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def make_library(data_dir: Path, env: dict[str, str] | None = None, **components: Any) -> Library:
    """A Library in ``data_dir`` (fake embedder unless one is given), providers from ``env``."""
    settings = load_settings(
        {
            "PRIORIS_MCP_DATA_DIR": str(data_dir),
            **{
                f"PRIORIS_MCP_{p}_MIN_INTERVAL_SECONDS": "0"
                for p in ("ARXIV", "EUROPEPMC", "OPENALEX", "DISCOVERY")
            },
            **(env or {}),
        }
    )
    components.setdefault("embedder", FakeEmbedder())
    if "ocr" not in components:
        from conftest import FakeOcr

        components["ocr"] = FakeOcr()
    return Library.open(settings, **components)


class LiveApp:
    """The web app served by uvicorn in a thread on a free loopback port."""

    def __init__(self, library: Library, *, accounts: bool = False) -> None:
        import uvicorn

        self.library = library
        self.app = build_app(library, accounts=accounts)
        sock = bind(0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise AssertionError("the web app did not start")
            time.sleep(0.02)
        self._sock = sock

    @property
    def jobs(self) -> Any:
        return self.app.state.web.jobs

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.jobs.close()
        self._sock.close()


@contextmanager
def live_app(library: Library) -> Iterator[LiveApp]:
    app = LiveApp(library)
    try:
        yield app
    finally:
        app.close()


def wait_for_jobs(jobs: Any, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Block until no job is queued or running; their snapshots."""
    deadline = time.monotonic() + timeout
    while True:
        listed = jobs.list()
        if not any(j["active"] for j in listed):
            return listed
        if time.monotonic() > deadline:
            raise AssertionError(f"jobs still running: {listed}")
        time.sleep(0.05)
