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


JATS = (
    b'<?xml version="1.0" encoding="UTF-8"?><article><front><article-meta>'
    b"<title-group><article-title>Asparaginase from a medicinal plant</article-title>"
    b"</title-group><abstract><p>We clone an enzyme.</p></abstract></article-meta></front>"
    b"<body><sec><title>Methods</title><p>Recombinant expression in Escherichia coli "
    b"yielded soluble tetrameric protein.</p></sec><sec><title>Results</title><p>Kinetic "
    b"constants matched the bacterial homologue.</p></sec></body></article>"
)
ARXIV_HTML = (
    "<html><head><title>x</title><script>var chrome = 1;</script></head><body>"
    '<nav>Skip to content</nav><article class="ltx_document"><h1>Diffusion models for '
    "protein design</h1><section><h2>Introduction</h2><p>Score matching denoises "
    "backbone coordinates iteratively.</p></section></article></body></html>"
)


def _epmc_search(hosted: bool) -> dict[str, object]:
    return {
        "hitCount": 1,
        "request": {"cursorMark": "*"},
        "resultList": {
            "result": [
                {
                    "id": "22558532",
                    "source": "MED",
                    "pmid": "22558532",
                    "pmcid": "PMC3339582",
                    "title": "Asparaginase from a medicinal plant",
                    "authorString": "Oza VP, Parmar PP.",
                    "pubYear": "2012",
                    "abstractText": "We clone an enzyme.",
                    "inEPMC": "Y" if hosted else "N",
                }
            ]
        },
    }


class Providers:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.pdf = _pdf()
        self.epmc_hosted = True

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(str(request.url))
        host, path = request.url.host, request.url.path
        if host == "api.arxiv.test":
            return httpx.Response(200, text=ATOM)
        if host == "arxiv.test" and path.startswith("/html/"):
            return httpx.Response(
                200, text=ARXIV_HTML, headers={"Content-Type": "text/html; charset=utf-8"}
            )
        if host == "epmc.test" and path == "/rest/search":
            return httpx.Response(200, json=_epmc_search(self.epmc_hosted))
        if host == "epmc.test" and path == "/rest/PMC3339582/fullTextXML":
            return httpx.Response(200, content=JATS, headers={"Content-Type": "application/xml"})
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


def test_europepmc_xml_is_stored_as_its_markdown_and_indexed(setup) -> None:  # type: ignore[no-untyped-def]
    library, providers = setup
    summary = library.fetch(["PMC3339582"])
    assert not summary.failed
    result = summary.ingested[0]
    assert result.id == "europepmc:PMC3339582" and result.chunks >= 1
    markdown = library.show("PMC3339582")["markdown"]
    assert "# Methods\n\nRecombinant expression" in markdown and "tetrameric" in markdown
    assert "Kinetic constants matched" in markdown and "<sec>" not in markdown
    _, documents = library.original("PMC3339582")
    assert [(d["format"], d["size_bytes"]) for d in documents] == [("xml", len(JATS))]
    assert documents[0]["url"] == "https://epmc.test/rest/PMC3339582/fullTextXML"
    assert library.document_bytes(documents[0]["sha256"]) == JATS
    hits = library.search("tetrameric", mode="fts").hits
    assert [h.id for h in hits] == ["europepmc:PMC3339582"]
    assert any(url.endswith("/PMC3339582/fullTextXML") for url in providers.seen)


def test_arxiv_html_is_stored_as_its_markdown_and_indexed(setup) -> None:  # type: ignore[no-untyped-def]
    library, _ = setup
    summary = library.fetch(["arxiv:2401.01234v3"], format="html")
    assert not summary.failed
    assert summary.ingested[0].chunks >= 1
    markdown = library.show("2401.01234")["markdown"]
    assert "## Introduction" in markdown and "denoises backbone coordinates" in markdown
    assert "chrome" not in markdown and "Skip to content" not in markdown
    _, documents = library.original("2401.01234")
    assert [d["format"] for d in documents] == ["html"]
    hits = library.search("denoises coordinates", mode="fts").hits
    assert [h.id for h in hits] == ["arxiv:2401.01234v3"]


def test_a_metadata_only_work_is_not_taken_for_full_text(setup) -> None:  # type: ignore[no-untyped-def]
    """Stored with its abstract only, the work is fetched again once full text exists."""
    library, providers = setup
    providers.epmc_hosted = False
    first = library.fetch(["PMC3339582"])
    assert first.ingested and first.ingested[0].status == "ingested"
    assert library.original("PMC3339582")[1] == []
    assert library.stored_full_text("PMC3339582") is None
    assert not library.search("tetrameric", mode="fts").hits
    assert library.search("clone enzyme", mode="fts").hits[0].id == "europepmc:PMC3339582"

    providers.epmc_hosted = True
    second = library.fetch(["PMC3339582"])
    assert [r.status for r in second.ingested] == ["ingested"] and not second.skipped
    assert second.ingested[0].chunks >= 1
    assert library.stored_full_text("PMC3339582") == "europepmc:PMC3339582"
    assert [d["format"] for d in library.original("PMC3339582")[1]] == ["xml"]
    assert "tetrameric protein" in library.show("PMC3339582")["markdown"]
    assert [h.id for h in library.search("tetrameric", mode="fts").hits] == ["europepmc:PMC3339582"]
    assert library.status()["works"] == 1
    third = library.fetch(["PMC3339582"])
    assert [r.reason for r in third.skipped] == ["already in the library"]
