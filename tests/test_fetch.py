"""Library.fetch: providers to stored works, one work per paper, no request when stored."""

from __future__ import annotations

from pathlib import Path

import httpx
import pymupdf
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library

from conftest import FAKE_PROVIDER_ENV, FakeOcr

ATOM = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"><opensearch:totalResults>1'
    "</opensearch:totalResults><entry><id>http://arxiv.org/abs/2401.01234v3</id>"
    "<title>Diffusion models for protein design</title>"
    "<published>2024-01-02T00:00:00Z</published><summary>We design proteins.</summary>"
    "<author><name>Ada Lovelace</name></author><arxiv:doi>10.5555/diffprot</arxiv:doi>"
    "</entry></feed>"
)
OPENALEX_WORK = {
    "id": "https://openalex.org/W42",
    "doi": "https://doi.org/10.5555/diffprot",
    "title": "Diffusion models for protein design",
    "display_name": "Diffusion models for protein design",
    "publication_year": 2024,
    "cited_by_count": 12,
    "ids": {"openalex": "https://openalex.org/W42", "doi": "https://doi.org/10.5555/diffprot"},
    "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
    "locations": [
        {
            "landing_page_url": "https://arxiv.org/abs/2401.01234",
            "pdf_url": None,
            "version": "submittedVersion",
            "is_oa": True,
        }
    ],
    "abstract_inverted_index": {"We": [0], "design": [1], "proteins.": [2]},
}


def _pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(
        pymupdf.Rect(72, 72, 520, 700), "Denoising diffusion generates protein backbones. " * 30
    )
    data = doc.tobytes()
    doc.close()
    return data


class Providers:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.pdf = _pdf()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(str(request.url))
        host, path = request.url.host, request.url.path
        if host == "api.arxiv.test":
            return httpx.Response(200, text=ATOM)
        if host == "arxiv.test" and path.startswith("/pdf/"):
            return httpx.Response(
                200, content=self.pdf, headers={"Content-Type": "application/pdf"}
            )
        if host == "openalex.test" and path.startswith("/works/"):
            return httpx.Response(200, json=OPENALEX_WORK)
        return httpx.Response(404)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Library, Providers]:
    providers = Providers()
    settings = load_settings({**FAKE_PROVIDER_ENV, "PRIORIS_MCP_DATA_DIR": str(tmp_path)})
    library = Library.open(
        settings,
        embedder=FakeEmbedder(),
        ocr=FakeOcr(),
        http_transport=httpx.MockTransport(providers),
    )
    yield library, providers
    library.close()


def test_fetch_arxiv_stores_and_indexes_the_pdf(setup) -> None:  # type: ignore[no-untyped-def]
    library, providers = setup
    summary = library.fetch(["2401.01234"])
    assert not summary.failed
    result = summary.ingested[0]
    assert result.id == "arxiv:2401.01234v3" and result.chunks >= 1
    work = library.get_work("arXiv:2401.01234")
    assert work.title == "Diffusion models for protein design" and work.source == "arxiv"
    assert "doi:10.5555/diffprot" in work.aliases
    hits = library.search("denoising diffusion backbones", mode="fts").hits
    assert hits[0].id == "arxiv:2401.01234v3"
    assert any("/pdf/2401.01234v3" in url for url in providers.seen)


def test_stored_full_text_is_served_without_a_request(setup) -> None:  # type: ignore[no-untyped-def]
    library, providers = setup
    library.fetch(["arxiv:2401.01234v3"])
    requests = len(providers.seen)
    again = library.fetch(["https://arxiv.org/abs/2401.01234", "doi:10.5555/diffprot"])
    assert [r.status for r in again.skipped] == ["skipped", "skipped"]
    assert len(providers.seen) == requests


def test_same_paper_through_openalex_is_one_work(setup) -> None:  # type: ignore[no-untyped-def]
    library, _ = setup
    library.fetch(["2401.01234"])
    summary = library.fetch(["https://openalex.org/W42"])
    assert not summary.failed
    assert library.status()["works"] == 1
    work = library.get_work("W42")
    assert work.id == "arxiv:2401.01234v3"
    assert "openalex:W42" in work.aliases


def test_failures_are_reported_per_identifier(setup) -> None:  # type: ignore[no-untyped-def]
    library, _ = setup
    summary = library.fetch(["not an id", "2401.01234"])
    assert [f["error"]["code"] for f in summary.failed] == ["invalid_request"]
    assert len(summary.ingested) == 1
