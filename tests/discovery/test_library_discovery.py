"""Library.discover / openalex_search / export, and ``prioris discover`` against a loopback API."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.interfaces.cli.app import main
from prioris.library import Library
from prioris.models import Work
from prioris.storage import works as work_store

HITS: list[dict[str, Any]] = [
    {
        "id": "https://openalex.org/W11",
        "doi": "https://doi.org/10.1000/stored",
        "title": "A work the library already holds",
        "publication_year": 2020,
        "relevance_score": 0.9,
        "ids": {"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC11"},
    },
    {
        "id": "https://openalex.org/W12",
        "doi": "https://doi.org/10.48550/arxiv.2305.00012",
        "title": "A preprint elsewhere",
        "publication_year": 2023,
        "relevance_score": 0.8,
        "locations": [
            {
                "is_oa": True,
                "version": "submittedVersion",
                "landing_page_url": "https://x.org/a",
                "pdf_url": "https://pdfs.example.org/w12.pdf",
            },
        ],
    },
]

STORED = Work(
    id="doi:10.1000/stored",
    title="A work the library already holds",
    authors=["Grace Hopper"],
    year=2020,
    venue="Journal of Compilers",
    type="article",
    aliases=["doi:10.1000/stored"],
    source="import",
)
PREPRINT = Work(
    id="arxiv:2305.00012v3",
    title="A preprint elsewhere",
    authors=["Alan Turing"],
    year=2023,
    aliases=["arxiv:2305.00012v3"],
    source="arxiv",
    is_preprint=True,
)


def store(settings: Any, *works: Work) -> None:
    from prioris.engines.sqlite.connection import connect

    conn = connect(settings.db_path)
    try:
        for work in works:
            work_store.upsert_work(conn, work, "2026-01-01T00:00:00+00:00")
    finally:
        conn.close()


class FakeOcr:
    def ocr_page(self, image: Any) -> str:  # never called by these tests
        raise AssertionError("no OCR expected")


def api_handler(requests: list[httpx.Request]):
    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        assert request.url.host == "api.openalex.test", f"request to {request.url}"
        return httpx.Response(
            200, json={"meta": {"count": 2, "page": 1, "per_page": 25}, "results": HITS}
        )

    return handle


@pytest.fixture
def library_with(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    opened: list[Library] = []

    def make(*, key: str | None = "KEY", requests: list[httpx.Request] | None = None) -> Library:
        if key:
            monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", key)
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", "https://api.openalex.test")
        settings = load_settings()
        store(settings, STORED, PREPRINT)
        lib = Library(
            settings,
            embedder=FakeEmbedder(),
            ocr=FakeOcr(),
            http_transport=httpx.MockTransport(
                api_handler(requests if requests is not None else [])
            ),
        )
        opened.append(lib)
        return lib

    yield make
    for lib in opened:
        lib.close()


def test_library_discover_marks_stored_works(library_with: Any) -> None:
    requests: list[httpx.Request] = []
    lib = library_with(requests=requests)
    page = lib.discover("compilers and preprints", per_page=10, open_access_only=True)
    assert [h.in_library for h in page.results] == [True, True]  # DOI; unversioned arXiv id
    assert page.results[1].fetch_route == {"provider": "arxiv", "identifier": "arxiv:2305.00012"}
    params = dict(requests[0].url.params)
    assert params["search.semantic"] == "compilers and preprints"
    assert params["filter"] == "is_oa:true" and params["api_key"] == "KEY"
    assert all(r.url.path == "/works" for r in requests)


def test_library_discover_without_key_and_too_long(library_with: Any) -> None:
    requests: list[httpx.Request] = []
    lib = library_with(key=None, requests=requests)
    with pytest.raises(ConfigurationError):
        lib.discover("anything")
    with pytest.raises(InvalidRequestError):
        lib.discover("x" * 2001)
    assert requests == []


def test_library_openalex_search_sort_citations(library_with: Any) -> None:
    requests: list[httpx.Request] = []
    lib = library_with(requests=requests)
    page = lib.openalex_search("compilers", sort="citations", per_page=5)
    assert dict(requests[0].url.params)["sort"] == "cited_by_count:desc"
    assert [w.id for w in page.works] == ["openalex:W11", "openalex:W12"]


def test_library_export(library_with: Any) -> None:
    lib = library_with()
    bib = lib.export([], "bibtex")
    assert "@article{hopper2020work," in bib and "@misc{turing2023preprint," in bib
    one = json.loads(lib.export(["10.1000/stored"], "csl-json"))
    assert [item["id"] for item in one] == ["doi:10.1000/stored"]
    assert one[0]["container-title"] == "Journal of Compilers"
    with pytest.raises(InvalidRequestError):
        lib.export([], "endnote")


# --- the CLI against a loopback HTTP server --------------------------------------------------


class LoopbackApi:
    """A tiny OpenAlex on 127.0.0.1 that records query strings."""

    def __init__(self) -> None:
        self.queries: list[dict[str, list[str]]] = []
        self.paths: list[str] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                api.paths.append(parts.path)
                api.queries.append(parse_qs(parts.query))
                body = json.dumps(
                    {"meta": {"count": 2, "page": 1, "per_page": 2}, "results": HITS}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> LoopbackApi:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_cli_discover_json_end_to_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    with LoopbackApi() as api:
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", api.url)
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "loopback-key")
        store(load_settings(), STORED)
        code = main(
            [
                "discover",
                "compilers, preprints",
                "--from-year",
                "2019",
                "--to-year",
                "2024",
                "--per-page",
                "2",
                "--json",
            ]
        )
        out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"total", "has_more", "page", "per_page", "results"}
    assert (data["total"], data["has_more"], data["page"], data["per_page"]) == (2, False, 1, 2)
    assert [r["id"] for r in data["results"]] == ["openalex:W11", "openalex:W12"]
    assert [r["in_library"] for r in data["results"]] == [True, False]
    assert data["results"][0]["fetch_route"] == {
        "provider": "europepmc",
        "identifier": "europepmc:PMC11",
    }
    assert api.paths == ["/works"]
    assert api.queries[0] == {
        "search.semantic": ["compilers, preprints"],
        "page": ["1"],
        "per_page": ["2"],
        "filter": ["publication_year:>2018,publication_year:<2025"],
        "api_key": ["loopback-key"],
    }


def test_cli_discover_reads_stdin_and_prints_a_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    abstract = "We study compilers.\nSecond line of the abstract."
    with LoopbackApi() as api:
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", api.url)
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "k")
        monkeypatch.setattr("sys.stdin", io.StringIO(abstract))
        code = main(["discover", "-"])
        out, _ = capsys.readouterr()
    assert code == 0
    assert api.queries[0]["search.semantic"] == [abstract]
    assert "A work the library already holds" in out and "arxiv:2305.00012" in out
    assert "2 shown of 2 matches" in out


def test_cli_discover_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with LoopbackApi() as api:
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", api.url)
        assert main(["discover", "no key configured"]) == 2
        assert "error [configuration_error]" in capsys.readouterr().err
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "k")
        assert main(["discover", "y" * 2001]) == 2
        assert "error [invalid_request]" in capsys.readouterr().err
        assert main(["discover", "ok", "--per-page", "51"]) == 2
        assert api.paths == []


def test_cli_openalex_search_and_export(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with LoopbackApi() as api:
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", api.url)
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "k")
        assert main(["openalex", "search", "compilers", "--sort", "citations", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
    assert api.queries[0]["sort"] == ["cited_by_count:desc"]
    assert data["total"] == 2 and data["next"] is None
    assert data["results"][0]["id"] == "openalex:W11"
    assert {"id", "title", "authors", "year"} <= set(data["results"][0])

    store(load_settings(), STORED, PREPRINT)
    assert main(["export", "--format", "bibtex"]) == 0
    bib = capsys.readouterr().out
    assert bib.count("@") == 2 and "hopper2020work" in bib
    assert main(["export", "arxiv:2305.00012v3", "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["arxiv:2305.00012v3"]
    assert main(["export", "doi:10.9/missing"]) == 1
    assert "error [not_found]" in capsys.readouterr().err


def test_discover_and_openalex_search_neutralise_a_hostile_reply(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A provider's JSON is anyone's text: its escapes never reach the terminal in the
    table output of ``discover`` and ``openalex search`` (issue 25); ``--json`` stays exact."""
    hostile = "Evil \x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07 title \x9b31m \u202eright"
    hits = [
        {
            **HITS[1],
            "title": hostile,
            "authorships": [{"author": {"display_name": hostile}}],
            "primary_location": {"source": {"display_name": hostile}},
        }
    ]
    monkeypatch.setitem(globals(), "HITS", hits)
    with LoopbackApi() as api:
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", api.url)
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_API_KEY", "k")
        for argv in (["discover", "evil things"], ["openalex", "search", "evil"]):
            code = main(argv)
            out, err = capsys.readouterr()
            assert code == 0, err
            shown = out + err
            assert "Evil" in shown
            assert not [
                c for c in shown if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F
            ]
            assert "\u202e" not in shown
        code = main(["discover", "evil things", "--json"])
        out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["results"][0]["title"] == hostile
