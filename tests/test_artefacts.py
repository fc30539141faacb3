"""Library.artefacts: PriorisMCP's (provider, identifier, format, artefact) view of works.

Real Library, storage, PDF parsing and search, with the fake embedder and OCR; remote
providers answer through httpx.MockTransport.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.library import Library

from conftest import FAKE_PROVIDER_ENV, FakeOcr
from pdf_factory import make_text_pdf

ATOM = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"><opensearch:totalResults>1'
    "</opensearch:totalResults><entry><id>http://arxiv.org/abs/2401.01234v3</id>"
    "<title>Quokka census</title><published>2024-01-02T00:00:00Z</published>"
    "<summary>Counting quokkas.</summary><author><name>Ada Marsupial</name></author>"
    "</entry></feed>"
)
HTML = "<html><body><h1>Quokka census</h1><p>The HTML version mentions wombats.</p></body></html>"


@pytest.fixture(params=["sqlite", "postgresql"])
def world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[tuple[Library, list[str]]]:
    for name, value in FAKE_PROVIDER_ENV.items():
        monkeypatch.setenv(name, value)
    pdf = make_text_pdf(
        tmp_path / "q.pdf",
        "Quokka census",
        ["Quokkas live on Rottnest Island.", "Dry summers shrink the quokka population."],
    ).read_bytes()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.host == "api.arxiv.test":
            return httpx.Response(200, text=ATOM)
        if request.url.path.startswith("/pdf/"):
            return httpx.Response(200, content=pdf, headers={"Content-Type": "application/pdf"})
        if request.url.path.startswith("/html/"):
            return httpx.Response(200, text=HTML, headers={"Content-Type": "text/html"})
        return httpx.Response(404)

    settings = load_settings()
    if request.param == "postgresql":  # every test here runs on both backends
        settings = settings.with_library(request.getfixturevalue("pg_url"))
    library = Library(
        settings,
        embedder=FakeEmbedder(),
        ocr=FakeOcr(),
        http_transport=httpx.MockTransport(handler),
    )
    yield library, seen
    library.close()


def _kinds(library: Library, identifier: str) -> set[tuple[str, str]]:
    return {
        (e["format"], e["artefact"])
        for e in library.artefacts.entries()
        if e["identifier"] == identifier
    }


def test_entries_name_works_as_priorismcp_does(world: tuple[Library, list[str]]) -> None:
    library, _ = world
    library.fetch_one("2401.01234", format="pdf")
    library.fetch_one("2401.01234", format="html")
    assert _kinds(library, "2401.01234v3") == {
        ("pdf", "document"),
        ("pdf", "markdown"),
        ("html", "document"),
    }
    entry = next(e for e in library.artefacts.entries() if e["artefact"] == "markdown")
    assert entry["provider"] == "arxiv" and entry["work_id"] == "arxiv:2401.01234v3"
    assert library.artefacts.entries(provider="localfile") == []
    assert {e["format"] for e in library.artefacts.entries(fmt="html")} == {"html"}


def test_reading_another_stored_format_parses_it_on_demand(
    world: tuple[Library, list[str]],
) -> None:
    library, _ = world
    library.fetch_one("2401.01234", format="pdf")
    with pytest.raises(NotFoundError, match="no stored 'html'"):
        library.artefacts.read("2401.01234v3", provider="arxiv", fmt="html")
    library.fetch_one("2401.01234", format="html")
    html = library.artefacts.read("2401.01234v3", provider="arxiv", fmt="html")
    assert "wombats" in html["markdown"] and "Rottnest" not in html["markdown"]
    assert html["total_pages"] is None and html["page_range"] is None
    pdf = library.artefacts.read("2401.01234v3", provider="arxiv")  # the indexed text
    assert pdf["format"] == "pdf" and "Rottnest" in pdf["markdown"]
    with pytest.raises(InvalidRequestError, match="PDF documents only"):
        library.artefacts.read("2401.01234v3", provider="arxiv", fmt="html", page=1)
    with pytest.raises(NotFoundError, match="page 5"):
        library.artefacts.read("2401.01234v3", provider="arxiv", fmt="pdf", page=5)
    past = library.artefacts.read("2401.01234v3", provider="arxiv", offset=10**6)
    assert past["markdown"] == "" and past["has_more"] is False


def test_deleting_the_document_keeps_the_text(world: tuple[Library, list[str]]) -> None:
    library, _ = world
    library.fetch_one("2401.01234", format="pdf")
    ref = {"provider": "arxiv", "identifier": "2401.01234v3", "format": "pdf"}
    deleted, missing = library.artefacts.delete([{**ref, "artefact": "document"}])
    assert deleted == [{**ref, "artefact": "document"}] and missing == []
    assert _kinds(library, "2401.01234v3") == {("pdf", "markdown")}
    assert library.artefacts.document("arxiv:2401.01234v3", "pdf") is None
    assert "Rottnest" in library.artefacts.read("2401.01234v3", provider="arxiv")["markdown"]
    hits = library.search("rottnest", mode="fts").hits
    assert [h.id for h in hits] == ["arxiv:2401.01234v3"]


def test_deleting_the_markdown_unindexes_and_a_fetch_restores_it(
    world: tuple[Library, list[str]],
) -> None:
    library, seen = world
    library.fetch_one("2401.01234", format="pdf")
    ref = {"provider": "arxiv", "identifier": "2401.01234v3", "format": "pdf"}
    library.artefacts.delete([{**ref, "artefact": "markdown"}])
    assert _kinds(library, "2401.01234v3") == {("pdf", "document")}
    assert library.search("rottnest", mode="fts").hits == []
    assert library.status()["chunks"] == 0
    # the bytes are still there: reading parses them again, fetching re-indexes them
    assert "Rottnest" in library.artefacts.read("2401.01234v3", provider="arxiv")["markdown"]
    requests = len(seen)
    restored = library.fetch_one("2401.01234v3", format="pdf")
    assert len(seen) == requests and restored.chunks >= 1
    assert [h.id for h in library.search("rottnest", mode="fts").hits] == ["arxiv:2401.01234v3"]
    assert _kinds(library, "2401.01234v3") == {("pdf", "document"), ("pdf", "markdown")}


def test_a_work_left_with_nothing_is_removed(world: tuple[Library, list[str]]) -> None:
    library, _ = world
    library.fetch_one("2401.01234", format="pdf")
    library.fetch_one("2401.01234", format="html")
    html = {"provider": "arxiv", "identifier": "2401.01234v3", "format": "html"}
    pdf = {**html, "format": "pdf"}
    deleted, missing = library.artefacts.delete(
        [{**html, "artefact": "markdown"}, {**html, "artefact": "all"}, {**pdf, "artefact": "all"}]
    )
    assert missing == [{**html, "artefact": "markdown"}]  # the indexed text is the PDF's
    assert len(deleted) == 2
    assert library.status()["works"] == 0 and library.status()["documents"] == 0
    with pytest.raises(NotFoundError):
        library.resolve_work_id("arxiv:2401.01234v3")


def test_delete_entries_must_match_the_provider(world: tuple[Library, list[str]]) -> None:
    library, _ = world
    library.fetch_one("2401.01234", format="pdf")
    wrong = {"provider": "europepmc", "identifier": "2401.01234v3", "format": "pdf"}
    deleted, missing = library.artefacts.delete([{**wrong, "artefact": "all"}])
    assert deleted == [] and missing == [{**wrong, "artefact": "all"}]
    assert library.status()["works"] == 1
    with pytest.raises(InvalidRequestError, match="artefact"):
        library.artefacts.delete([{**wrong, "artefact": "pages"}])


def test_scoped_search_answers_matches(world: tuple[Library, list[str]], tmp_path: Path) -> None:
    library, _ = world
    library.fetch_one("2401.01234", format="pdf")
    local = library.ingest_upload(
        make_text_pdf(tmp_path / "l.pdf", "Quokka notes", ["A quokka smiled."]).read_bytes()
    )
    _, every = library.artefacts.search("quokk*")
    assert {(m["provider"], m["identifier"]) for m in every} == {
        ("arxiv", "2401.01234v3"),
        ("localfile", local.id),
    }
    assert all(m["format"] == "pdf" for m in every)
    assert [m["score"] for m in every] == sorted(m["score"] for m in every)
    _, local_only = library.artefacts.search("quokk*", provider="localfile")
    assert {m["identifier"] for m in local_only} == {local.id}
    _, one = library.artefacts.search("quokk*", provider="arxiv", identifier="2401.01234v3")
    assert {m["identifier"] for m in one} == {"2401.01234v3"}
    _, none = library.artefacts.search("quokk*", fmt="xml")
    assert none == []
    with pytest.raises(InvalidRequestError, match="requires provider"):
        library.artefacts.search("quokk*", identifier="2401.01234v3")
    with pytest.raises(InvalidRequestError, match="malformed FTS5"):
        library.artefacts.search('"unbalanced')


def test_uploads_that_are_not_pdfs_are_invalid_request(world: tuple[Library, list[str]]) -> None:
    library, _ = world
    with pytest.raises(InvalidRequestError, match="not a PDF"):
        library.ingest_upload(b"GIF89a" * 100)
